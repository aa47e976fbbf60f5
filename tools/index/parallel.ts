/**
 * Reads and analyses the files of an index update in queue order, as a walk queues them: in this
 * thread, and, once the update has queued enough bytes to be worth it, on worker threads too,
 * each thread taking the next batch when it is free. This thread counts with the index's own
 * dictionary; each worker keeps a dictionary of its own, whose term ids are mapped onto the
 * index's as its outcomes are taken in order. Which thread analysed a file changes the numbering
 * of terms, never the index's content. If the workers cannot run, the files they did not finish
 * are analysed here.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { ToolError } from "../errors.js";
import { readAndAnalyse, type FileOutcome, type FileToAnalyse } from "./file-record.js";
import { fileFromParts, type FileParts, type IndexedFile, type TermDictionary } from "./store.js";
import type { TermCounter } from "./term-counter.js";

/** Files sent to a worker at a time. */
const WORKER_BATCH = 24;
/** Files analysed at a time in this thread. */
const LOCAL_BATCH = 64;
/** Below this many bytes to read, starting workers costs more than it saves. */
const PARALLEL_MIN_BYTES = 8 * 1024 * 1024;

export interface WorkerTask {
  /** Position of the first file in the update's list. */
  start: number;
  files: FileToAnalyse[];
  maxChunkLines?: number;
}

/** An outcome as a worker sends it: a record travels as its parts. */
export type WorkerOutcome = Exclude<FileOutcome, { kind: "record" }> | { kind: "parts"; parts: FileParts };

export interface WorkerReply {
  start: number;
  /** Terms the worker's dictionary gained since its last reply, in id order. */
  terms: string[];
  outcomes: WorkerOutcome[];
}

export interface AnalysisContext {
  /** The index's own counter and dictionary (used in this thread; worker ids map onto it). */
  counter: TermCounter;
  dictionary: TermDictionary;
  maxChunkLines?: number;
  /** Worker threads beside this one for a large update (default: the machine's parallelism less one, at most 3; 0 analyses here only). */
  workers?: number;
  /** Updates that read fewer bytes stay in this thread (default 8 MiB). */
  parallelMinBytes?: number;
  /** Starts one worker thread (a seam for tests; default the bundled or source worker entry). */
  createWorker?: () => Worker;
  signal?: AbortSignal;
}

/** Outcomes of consecutive files, and how many worker threads were running beside this one (0: this thread alone). */
export interface AnalysedBatch {
  outcomes: FileOutcome[];
  workers: number;
}

/**
 * Files to analyse, handed in while a walk is still finding them: `push` adds, `end` says no more
 * come. Analysis starts before the walk ends (on worker threads once enough bytes are queued).
 */
export class FileQueue {
  readonly files: FileToAnalyse[] = [];
  bytes = 0;
  ended = false;
  private readonly listeners = new Set<() => void>();

  /** A queue already holding all its files. */
  static of(files: FileToAnalyse[]): FileQueue {
    const queue = new FileQueue();
    for (const file of files) queue.push(file);
    queue.end();
    return queue;
  }

  push(file: FileToAnalyse): void {
    this.files.push(file);
    this.bytes += file.size;
    this.changed();
  }

  end(): void {
    this.ended = true;
    this.changed();
  }

  /** Calls `listener` whenever files arrive or the queue ends, until the returned function is called. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once files arrive or the queue ends. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      const stop = this.listen(() => {
        stop();
        resolve();
      });
    });
  }

  private changed(): void {
    // A listener may remove itself as it runs: a Set's iteration allows that without a copy.
    for (const listener of this.listeners) listener();
  }
}

/**
 * The outcomes of the queued files, yielded in queue order a batch at a time: analysed here as
 * they are queued, and on worker threads beside this one too once the queue holds enough bytes.
 */
export async function* analyseFiles(queue: FileQueue, context: AnalysisContext): AsyncGenerator<AnalysedBatch> {
  const workers = context.workers ?? Math.min(3, os.availableParallelism() - 1);
  const worthWorkers = () => workers >= 1 && queue.bytes >= (context.parallelMinBytes ?? PARALLEL_MIN_BYTES) && queue.files.length >= 2 * WORKER_BATCH;
  const reached = yield* analyseHere(queue, 0, context, worthWorkers);
  if (reached < queue.files.length || !queue.ended) yield* analyseInWorkers(queue, reached, context, workers);
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ToolError("cancelled", "Indexing was cancelled.", "Run the index action again to finish it.");
}

/**
 * Analyses the queued files from position `from` on in this thread, a batch at a time as they
 * are queued. Stops when the queue has ended and everything is analysed, or, between batches,
 * when `handOver` says so; returns the position reached.
 */
async function* analyseHere(queue: FileQueue, from: number, context: AnalysisContext, handOver: () => boolean = () => false): AsyncGenerator<AnalysedBatch, number> {
  const files = queue.files;
  let start = from;
  while (!handOver()) {
    const available = files.length - start;
    if (available < LOCAL_BATCH && !queue.ended) {
      await queue.next();
      continue;
    }
    if (available === 0) break;
    const end = Math.min(files.length, start + LOCAL_BATCH);
    throwIfCancelled(context.signal);
    // Synchronous reads: on a local disk they cost a fraction of the asynchronous ones' CPU.
    const outcomes = readAndAnalyse(files.slice(start, end), context.counter, { maxLines: context.maxChunkLines });
    start = end;
    yield { outcomes, workers: 0 };
  }
  return start;
}

/** A worker's own dictionary, as seen from the index: its terms, and their index ids once mapped. */
interface TermSource {
  /** Local term id → index term id (-1 until first used). */
  ids: Int32Array;
  terms: string[];
}

interface Pooled extends TermSource {
  worker: Worker;
  /** Batches sent and not yet answered. */
  inFlight: number;
}

async function* analyseInWorkers(queue: FileQueue, from: number, context: AnalysisContext, count: number): AsyncGenerator<AnalysedBatch> {
  const files = queue.files;
  /** Outcomes analysed here (term ids already the index's), or sent by a worker (`from`, whose term ids they hold). */
  const received: Array<{ here: FileOutcome } | { sent: WorkerOutcome; from: TermSource } | undefined> = [];
  let assigned = from;
  let taken = from;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const signalChange = () => {
    wake?.();
    wake = undefined;
  };
  const finished = () => queue.ended && taken === files.length;
  /** The next batch, when a whole one is queued (or the last, once the queue has ended). */
  const nextTask = (): WorkerTask | undefined => {
    const available = files.length - assigned;
    if (available === 0 || (available < WORKER_BATCH && !queue.ended)) return undefined;
    const start = assigned;
    assigned = Math.min(files.length, start + WORKER_BATCH);
    return { start, files: files.slice(start, assigned), maxChunkLines: context.maxChunkLines };
  };
  const pool: Pooled[] = [];
  // Three batches in flight per worker, so none runs dry while this thread analyses a batch.
  const topUp = () => {
    for (const pooled of pool) {
      while (pooled.inFlight < 3 && failure === undefined) {
        const task = nextTask();
        if (task === undefined) return;
        pooled.inFlight++;
        pooled.worker.postMessage(task);
      }
    }
  };
  let createWorker = context.createWorker;
  if (createWorker === undefined) {
    try {
      const entry = workerEntry();
      createWorker = () => startWorker(entry);
    } catch {
      yield* analyseHere(queue, from, context);
      return;
    }
  }
  for (let index = 0; index < count; index++) {
    let worker: Worker;
    try {
      worker = createWorker();
    } catch {
      await Promise.all(pool.map((started) => started.worker.terminate()));
      yield* analyseHere(queue, from, context);
      return;
    }
    const pooled: Pooled = { worker, inFlight: 0, ids: new Int32Array(0), terms: [] };
    pooled.worker.on("message", (reply: WorkerReply) => {
      // A loop, not push(...terms): a reply can carry more terms than a call takes arguments.
      for (const term of reply.terms) pooled.terms.push(term);
      reply.outcomes.forEach((outcome, offset) => (received[reply.start + offset] = { sent: outcome, from: pooled }));
      pooled.inFlight--;
      topUp();
      signalChange();
    });
    pooled.worker.on("error", (error) => {
      failure ??= error;
      signalChange();
    });
    pooled.worker.on("exit", (code) => {
      if (!finished()) failure ??= new Error(`an index worker stopped (exit code ${code})`);
      signalChange();
    });
    pool.push(pooled);
  }
  topUp();
  const stopListening = queue.listen(() => {
    topUp();
    signalChange();
  });
  context.signal?.addEventListener("abort", signalChange);
  try {
    while (!finished() && failure === undefined) {
      throwIfCancelled(context.signal);
      if (received[taken] === undefined) {
        const task = nextTask();
        if (task !== undefined) {
          // Rather than wait, analyse the next batch here.
          readAndAnalyse(task.files, context.counter, { maxLines: task.maxChunkLines }).forEach((outcome, offset) => (received[task.start + offset] = { here: outcome }));
          // Let the workers' replies in (and hand them their next batches) before going on.
          await new Promise<void>((resolve) => setImmediate(resolve));
        } else {
          await new Promise<void>((resolve) => (wake = resolve));
        }
        continue;
      }
      const ready: FileOutcome[] = [];
      for (let entry = received[taken]; entry !== undefined; entry = received[taken]) {
        received[taken++] = undefined;
        if ("here" in entry) ready.push(entry.here);
        else ready.push(entry.sent.kind === "parts" ? mapTerms(fileFromParts(entry.sent.parts), entry.from, context.dictionary) : entry.sent);
      }
      yield { outcomes: ready, workers: count };
    }
  } finally {
    stopListening();
    context.signal?.removeEventListener("abort", signalChange);
    await Promise.all(pool.map(({ worker }) => worker.terminate()));
  }
  if (!finished()) yield* analyseHere(queue, taken, context);
}

/** A worker's record with its term ids rewritten in place to the index's, interning terms as first met. */
function mapTerms(record: IndexedFile, from: TermSource, dictionary: TermDictionary): FileOutcome {
  if (from.ids.length < from.terms.length) {
    const larger = new Int32Array(Math.max(from.terms.length, from.ids.length * 2)).fill(-1);
    larger.set(from.ids);
    from.ids = larger;
  }
  const ids = from.ids;
  const numbers = record.numbers;
  for (const { termsAt, distinct } of record.chunks) {
    for (let position = termsAt; position < termsAt + distinct; position++) {
      const local = numbers[position]!;
      let global = ids[local]!;
      if (global < 0) ids[local] = global = dictionary.intern(from.terms[local]!);
      numbers[position] = global;
    }
  }
  return { kind: "record", record };
}

interface WorkerEntry {
  built?: URL;
  source: string;
}

function startWorker(entry: WorkerEntry): Worker {
  if (entry.built !== undefined) return new Worker(entry.built);
  // Running from source (tests, benchmarks under tsx): load the TypeScript entry through tsx.
  const source = JSON.stringify(entry.source);
  return new Worker(`import { register } from "tsx/esm/api"; register(); await import(${source});`, { eval: true });
}

/**
 * The worker script: `index-worker.js` beside the bundle (dist/ or dist/chunks/..), or, when
 * running from source, the built one if it is newer than every source of tools/index, else the
 * TypeScript entry.
 */
function workerEntry(): WorkerEntry {
  const here = import.meta.url;
  const source = new URL("./worker.ts", here).href;
  if (!here.endsWith(".ts")) {
    for (const candidate of ["./index-worker.js", "../index-worker.js"]) {
      const url = new URL(candidate, here);
      if (existsSync(url)) return { built: url, source };
    }
    throw new Error("index-worker.js is missing beside the bundle; rebuild with `npm run build`.");
  }
  const built = new URL("../../dist/index-worker.js", here);
  try {
    const builtAt = statSync(built).mtimeMs;
    // The worker bundles tools/index and a few modules of tools/ itself.
    const folders = [fileURLToPath(new URL(".", here)), fileURLToPath(new URL("..", here))];
    const newest = Math.max(...folders.flatMap((folder) => readdirSync(folder).map((name) => statSync(path.join(folder, name)).mtimeMs)));
    if (builtAt >= newest) return { built, source };
  } catch {
    // No build yet: use the source.
  }
  return { source };
}
