/**
 * Reads and analyses the files of an index update in queue order, as a walk queues them: in this
 * thread, and, once the update has queued enough bytes to be worth it, on worker threads too,
 * each thread taking the next batch when it is free. Each thread counts with a dictionary of its
 * own, started afresh when it grows large (so memory stays bounded on any tree); a record comes
 * with the terms its ids name, and the segment it goes into maps them onto its own. Which thread
 * analysed a file changes the numbering of terms, never the index's content. If the workers
 * cannot run, the files they did not finish are analysed here.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { ToolError } from "../errors.js";
import { FileReader, readAndAnalyse, type FileOutcome, type FileToAnalyse } from "./file-record.js";
import type { FileQueue } from "./file-queue.js";
import { TermDictionary } from "./store.js";
import { TermCounter } from "./term-counter.js";
import { GrowingTermList, type TermList, type TermRun } from "./term-list.js";
import { writableOf, type WritableFile } from "./writable-file.js";

/** Files sent to a worker at a time. */
const WORKER_BATCH = 24;
/** File bytes a worker holds at a time (at least two batches): enough to keep it busy while this thread writes a segment. */
const IN_FLIGHT_BYTES = 4 * 1024 * 1024;
/** Files analysed at a time in this thread. */
const LOCAL_BATCH = 64;
/**
 * A worker's young generation: its garbage is mostly one file's text and lines at a time, so a
 * smaller nursery than V8's default costs no measurable CPU, and a build's peak memory was about
 * 18 MB lower with it (docs/performance.md, branch rag-pool).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 12 };
/** Below this many bytes to read, starting workers costs more than it saves. */
const PARALLEL_MIN_BYTES = 8 * 1024 * 1024;

export interface WorkerTask {
  /** Position of the first file in the update's list. */
  start: number;
  files: FileToAnalyse[];
  maxChunkLines?: number;
}

/** An outcome as a worker sends it: a record travels ready to write. */
export type WorkerOutcome = Exclude<FileOutcome, { kind: "record" }> | { kind: "record"; record: WritableFile };

export interface WorkerReply {
  start: number;
  /** The worker started a new dictionary before this reply (its counter was crowded): `terms` start from id 0. */
  reset: boolean;
  /** Terms the worker's dictionary gained since its last reply, in id order. */
  terms: TermRun;
  outcomes: WorkerOutcome[];
}

export interface AnalysisContext {
  maxChunkLines?: number;
  /** Worker threads beside this one for a large update (default: the machine's parallelism less one, at most 3; 0 analyses here only). */
  workers?: number;
  /** Updates that read fewer bytes stay in this thread (default 8 MiB). */
  parallelMinBytes?: number;
  /** Starts one worker thread (a seam for tests; default the bundled or source worker entry). */
  createWorker?: () => Worker;
  signal?: AbortSignal;
}

/** An outcome as analysis yields it: a record, ready to write, comes with the terms its ids name (the dictionary of the thread that made it). */
export type AnalysedOutcome = Exclude<FileOutcome, { kind: "record" }> | { kind: "record"; record: WritableFile; terms: TermList };

/** Outcomes of consecutive files, and how many worker threads were running beside this one (0: this thread alone). */
export interface AnalysedBatch {
  outcomes: AnalysedOutcome[];
  workers: number;
}

/**
 * The outcomes of the queued files, yielded in queue order a batch at a time: analysed here as
 * they are queued, and on worker threads beside this one too once the queue holds enough bytes.
 */
export async function* analyseFiles(queue: FileQueue, context: AnalysisContext): AsyncGenerator<AnalysedBatch> {
  const workers = context.workers ?? Math.min(3, os.availableParallelism() - 1);
  const worthWorkers = () => workers >= 1 && queue.bytes >= (context.parallelMinBytes ?? PARALLEL_MIN_BYTES) && queue.files.length >= 2 * WORKER_BATCH;
  const local = new LocalAnalysis(context.maxChunkLines);
  const reached = yield* analyseHere(queue, 0, local, context, worthWorkers);
  if (reached < queue.files.length || !queue.ended) yield* analyseInWorkers(queue, reached, local, context, workers);
}

/**
 * This thread's analysis: a counter with a dictionary of its own, started afresh between batches
 * once it is crowded. Made at the first batch: a check that finds nothing changed analyses nothing,
 * and the counter's tables cost a fresh process milliseconds.
 */
class LocalAnalysis {
  private state: { dictionary: TermDictionary; counter: TermCounter; reader: FileReader } | undefined;

  constructor(private readonly maxLines: number | undefined) {}

  analyse(files: FileToAnalyse[]): AnalysedOutcome[] {
    if (this.state === undefined) {
      const dictionary = new TermDictionary();
      this.state = { dictionary, counter: new TermCounter(dictionary), reader: new FileReader() };
    } else if (this.state.counter.crowded) {
      this.state.dictionary = new TermDictionary(this.state.dictionary);
      // Records not yet written name the old dictionary's ids, so it is replaced, not emptied.
      this.state.counter.restart(this.state.dictionary);
    }
    const { dictionary: terms, counter, reader } = this.state;
    return readAndAnalyse(files, counter, reader, { maxLines: this.maxLines }).map((outcome) =>
      outcome.kind === "record" ? { kind: "record", record: writableOf(outcome.record), terms } : outcome,
    );
  }
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ToolError("cancelled", "Indexing was cancelled.", "Run the index action again to finish it.");
}

/**
 * Analyses the queued files from position `from` on in this thread, a batch at a time as they
 * are queued. Stops when the queue has ended and everything is analysed, or, between batches,
 * when `handOver` says so; returns the position reached.
 */
async function* analyseHere(
  queue: FileQueue,
  from: number,
  local: LocalAnalysis,
  context: AnalysisContext,
  handOver: () => boolean = () => false,
): AsyncGenerator<AnalysedBatch, number> {
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
    const outcomes = local.analyse(files.slice(start, end));
    start = end;
    yield { outcomes, workers: 0 };
  }
  return start;
}

interface Pooled {
  worker: Worker;
  /** Batches sent and not yet answered, and their files' bytes by start position. */
  inFlight: Map<number, number>;
  bytesInFlight: number;
  /** The worker's current dictionary, as its replies spell it out (a new list when it starts afresh). */
  terms: GrowingTermList;
}

async function* analyseInWorkers(queue: FileQueue, from: number, local: LocalAnalysis, context: AnalysisContext, count: number): AsyncGenerator<AnalysedBatch> {
  const files = queue.files;
  /** Outcomes analysed here, or sent by a worker (with the worker's terms their ids name). */
  const received: Array<{ here: AnalysedOutcome } | { sent: WorkerOutcome; terms: TermList } | undefined> = [];
  let assigned = from;
  /** Bytes of the files up to `assigned`. */
  let assignedBytes = files.slice(0, from).reduce((sum, file) => sum + file.size, 0);
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
    const batch = files.slice(start, assigned);
    for (const file of batch) assignedBytes += file.size;
    return { start, files: batch, maxChunkLines: context.maxChunkLines };
  };
  const pool: Pooled[] = [];
  // Enough batches in flight per worker that none runs dry while this thread analyses a batch or writes a segment. Once
  // the queue has ended, no more than the bytes not yet given out: this thread takes the rest, so both end together
  // (with 4 MiB in flight to the last, this thread waited about 160 ms for the worker at the end of a build).
  const wanted = (pooled: Pooled) =>
    pooled.inFlight.size === 0 ||
    (queue.ended ? pooled.bytesInFlight < Math.min(IN_FLIGHT_BYTES, queue.bytes - assignedBytes) : pooled.inFlight.size < 2 || pooled.bytesInFlight < IN_FLIGHT_BYTES);
  const topUp = () => {
    for (const pooled of pool) {
      while (wanted(pooled) && failure === undefined) {
        const task = nextTask();
        if (task === undefined) return;
        const bytes = task.files.reduce((sum, file) => sum + file.size, 0);
        pooled.inFlight.set(task.start, bytes);
        pooled.bytesInFlight += bytes;
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
      yield* analyseHere(queue, from, local, context);
      return;
    }
  }
  for (let index = 0; index < count; index++) {
    let worker: Worker;
    try {
      worker = createWorker();
    } catch {
      await Promise.all(pool.map((started) => started.worker.terminate()));
      yield* analyseHere(queue, from, local, context);
      return;
    }
    const pooled: Pooled = { worker, inFlight: new Map(), bytesInFlight: 0, terms: new GrowingTermList() };
    pooled.worker.on("message", (reply: WorkerReply) => {
      // Outcomes still waiting keep the old list: their ids name its terms.
      if (reply.reset) pooled.terms = new GrowingTermList();
      pooled.terms.append(reply.terms);
      const terms = pooled.terms;
      reply.outcomes.forEach((outcome, offset) => (received[reply.start + offset] = { sent: outcome, terms }));
      pooled.bytesInFlight -= pooled.inFlight.get(reply.start) ?? 0;
      pooled.inFlight.delete(reply.start);
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
          local.analyse(task.files).forEach((outcome, offset) => (received[task.start + offset] = { here: outcome }));
          // Let the workers' replies in (and hand them their next batches) before going on.
          await new Promise<void>((resolve) => setImmediate(resolve));
        } else {
          await new Promise<void>((resolve) => (wake = resolve));
        }
        continue;
      }
      const ready: AnalysedOutcome[] = [];
      for (let entry = received[taken]; entry !== undefined; entry = received[taken]) {
        received[taken++] = undefined;
        if ("here" in entry) ready.push(entry.here);
        else ready.push(entry.sent.kind === "record" ? { kind: "record", record: entry.sent.record, terms: entry.terms } : entry.sent);
      }
      yield { outcomes: ready, workers: count };
    }
  } finally {
    stopListening();
    context.signal?.removeEventListener("abort", signalChange);
    await Promise.all(pool.map(({ worker }) => worker.terminate()));
  }
  if (!finished()) yield* analyseHere(queue, taken, local, context);
}

interface WorkerEntry {
  built?: URL;
  source: string;
}

function startWorker(entry: WorkerEntry): Worker {
  if (entry.built !== undefined) return new Worker(entry.built, { resourceLimits: WORKER_LIMITS });
  // Running from source (tests, benchmarks under tsx): load the TypeScript entry through tsx.
  const source = JSON.stringify(entry.source);
  return new Worker(`import { register } from "tsx/esm/api"; register(); await import(${source});`, { eval: true, resourceLimits: WORKER_LIMITS });
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
