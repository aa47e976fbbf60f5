import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodeIndex } from "../../tools/index/code-index.js";
import { FileQueue } from "../../tools/index/file-queue.js";
import { analyseFiles, type AnalysedOutcome } from "../../tools/index/parallel.js";
import { searchIndex } from "../../tools/index/search.js";
import { TermDictionary } from "../../tools/index/store.js";
import { walkFiles } from "../../tools/index/walk.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: { path: string; remove(): Promise<void> };
const FILES = 80;

beforeEach(async () => {
  folder = await temporaryFolder("clio-parallel-");
  const words = ["parse", "token", "cache", "route", "queue", "retry", "socket", "render"];
  for (let index = 0; index < FILES; index++) {
    const word = words[index % words.length]!;
    const other = words[(index * 3) % words.length]!;
    const folderName = path.join(folder.path, `pkg${index % 4}`);
    await mkdir(folderName, { recursive: true });
    const text =
      index % 2 === 0
        ? `export function ${word}Handler${index}(input: string): string {\n  const ${other}Value = ${word}(input);\n  return ${other}Value;\n}\n`
        : `def ${word}_worker_${index}(value):\n    ${other}_result = ${word}(value)\n    return ${other}_result\n`;
    await writeFile(path.join(folderName, `file${index}.${index % 2 === 0 ? "ts" : "py"}`), text);
  }
  await writeFile(path.join(folder.path, "pkg0", "image.bin"), Buffer.from([1, 0, 2, 0]));
});
afterEach(() => folder.remove());

/** The index's content with each chunk's terms and counts read back from its segments, so two builds can be compared. */
function contentOf(index: CodeIndex) {
  const termsOf = new Map<string, Record<string, number>>();
  for (const reader of index.segmentReaders) {
    for (const entry of reader.termEntries()) {
      reader.postings(entry, (chunk, count) => {
        const key = `${reader.name}:${chunk}`;
        const terms = termsOf.get(key) ?? {};
        terms[entry.term] = count;
        termsOf.set(key, terms);
      });
    }
  }
  return [...index.files.values()]
    .sort((left, right) => left.path.localeCompare(right.path))
    .map((file) => ({
      path: file.path,
      hash: file.hash,
      symbols: file.symbols,
      chunks: index.chunkIdsOf(file.path).map((id, chunk) => {
        const { startLine, endLine } = index.chunk(id);
        const local = file.segment.files[file.fileIndex]!.firstChunk + chunk;
        return { lines: [startLine, endLine], terms: termsOf.get(`${file.segment.name}:${local}`) };
      }),
    }));
}

describe("parallel analysis", () => {
  it("builds on worker threads exactly the index a single thread builds (terms compared by name)", async () => {
    const alone = await CodeIndex.open(folder.path, { workers: 0 });
    const aloneReport = await alone.update();
    await rm(path.join(folder.path, ".clio"), { recursive: true, force: true });
    const parallel = await CodeIndex.open(folder.path, { workers: 2, parallelMinBytes: 0 });
    const parallelReport = await parallel.update();
    expect(aloneReport.workers).toBe(0);
    expect(parallelReport).toMatchObject({ workers: 2, files: aloneReport.files, indexed: FILES, chunks: aloneReport.chunks, symbols: aloneReport.symbols });
    expect(parallelReport.skipped.map((entry) => entry.reason)).toEqual(["binary"]);
    expect(contentOf(parallel)).toEqual(contentOf(alone));
    const query = "cache handler";
    expect((await searchIndex(parallel, query)).hits).toEqual((await searchIndex(alone, query)).hits);
    const reloaded = await CodeIndex.open(folder.path);
    expect(contentOf(reloaded)).toEqual(contentOf(alone));
  });

  it("finishes in this thread, with the same outcomes, when a worker fails", async () => {
    const { files } = await walkFiles(folder.path, folder.path);
    const here = [] as AnalysedOutcome[];
    for await (const batch of analyseFiles(FileQueue.of(files), { workers: 0 })) here.push(...batch.outcomes);
    const failing = [] as AnalysedOutcome[];
    const threads: number[] = [];
    const context = {
      workers: 2,
      parallelMinBytes: 0,
      createWorker: () => new Worker("throw new Error('the worker could not start')", { eval: true }),
    };
    for await (const batch of analyseFiles(FileQueue.of(files), context)) {
      failing.push(...batch.outcomes);
      threads.push(batch.workers);
    }
    expect(threads.every((workers) => workers === 0)).toBe(true);
    expect(failing.map((outcome) => outcome.kind)).toEqual(here.map((outcome) => outcome.kind));
    expect(failing.filter((outcome) => outcome.kind === "record")).toHaveLength(FILES);
  });

  it("once the queue has ended, sends a worker no more bytes than are left to give out, and analyses the rest here, so both end together", async () => {
    const { files } = await walkFiles(folder.path, folder.path);
    const here = new Set<string>();
    const outcomes = [] as AnalysedOutcome[];
    for await (const batch of analyseFiles(FileQueue.of(files), { workers: 1, parallelMinBytes: 0 })) {
      for (const outcome of batch.outcomes) if (outcome.kind === "record" && outcome.terms instanceof TermDictionary) here.add(outcome.record.header.path);
      outcomes.push(...batch.outcomes);
    }
    // All 81 files (about 100 bytes each) fit in what a worker may hold at a time: without the limit, every one went to it.
    expect(here.size).toBeGreaterThan(0);
    expect(here.size).toBeLessThan(FILES);
    expect(outcomes.filter((outcome) => outcome.kind === "record")).toHaveLength(FILES);
  });

  it("reports a file that is gone by the time a worker reads it as unreadable, and analyses the rest", async () => {
    const { files } = await walkFiles(folder.path, folder.path);
    const gone = { ...files[0]!, absolute: path.join(folder.path, "vanished.ts"), path: "vanished.ts" };
    const outcomes = [] as AnalysedOutcome[];
    const threads: number[] = [];
    for await (const batch of analyseFiles(FileQueue.of([gone, ...files]), { workers: 2, parallelMinBytes: 0 })) {
      outcomes.push(...batch.outcomes);
      threads.push(batch.workers);
    }
    expect(threads.every((workers) => workers === 2)).toBe(true);
    expect(outcomes[0]).toMatchObject({ kind: "unreadable", message: expect.stringContaining("ENOENT") });
    expect(outcomes.slice(1).filter((outcome) => outcome.kind === "record")).toHaveLength(FILES);
  });

  it("stops the workers and reports the update cancelled when the signal fires mid-way, leaving the stored index as it was", async () => {
    const index = await CodeIndex.open(folder.path, { workers: 2, parallelMinBytes: 0 });
    const controller = new AbortController();
    const cancelled = await CodeIndex.open(folder.path, {
      workers: 2,
      parallelMinBytes: 0,
      onProgress: (progress) => {
        if (progress.phase === "reading" && progress.done > 0) controller.abort();
      },
    });
    await expect(cancelled.update(undefined, controller.signal)).rejects.toMatchObject({ code: "cancelled" });
    expect((await CodeIndex.open(folder.path)).built).toBe(false);
    const report = await index.update();
    expect(report).toMatchObject({ workers: 2, indexed: FILES });
  });
});

describe("a vocabulary larger than one dictionary keeps", () => {
  it("gives the same index on one thread and on workers when their dictionaries start afresh mid-build", async () => {
    const large = await temporaryFolder("clio-vocabulary-");
    try {
      // 150 files of 3,000 identifiers found nowhere else: 450,000 terms, past the 200,000 a counter keeps.
      for (let file = 0; file < 150; file++) {
        const names = Array.from({ length: 3000 }, (_, at) => `unique${file}name${at}`);
        await writeFile(path.join(large.path, `vocabulary${file}.ts`), `export const ${names.join(" = 0, ")} = 0;\n`);
      }
      const alone = await CodeIndex.open(large.path, { workers: 0 });
      await alone.update();
      await rm(path.join(large.path, ".clio"), { recursive: true, force: true });
      const parallel = await CodeIndex.open(large.path, { workers: 1, parallelMinBytes: 0 });
      expect(await parallel.update()).toMatchObject({ workers: 1, indexed: 150 });
      expect(contentOf(parallel)).toEqual(contentOf(alone));
      for (const index of [alone, parallel]) {
        expect((await searchIndex(index, "unique3name2999")).hits[0]?.path).toBe("vocabulary3.ts");
        expect((await searchIndex(index, "unique149name7")).hits[0]?.path).toBe("vocabulary149.ts");
      }
    } finally {
      await large.remove();
    }
  }, 120_000);
});

describe("parallel analysis of files still being found", () => {
  const kinds = (outcomes: AnalysedOutcome[]) => outcomes.map((outcome) => outcome.kind);

  it("starts on the files queued so far and takes the rest as they come, in queue order", async () => {
    const { files } = await walkFiles(folder.path, folder.path);
    const here = [] as AnalysedOutcome[];
    for await (const batch of analyseFiles(FileQueue.of(files), { workers: 0 })) here.push(...batch.outcomes);
    const queue = new FileQueue();
    for (const file of files.slice(0, 60)) queue.push(file);
    let firstBatch!: () => void;
    const firstBatchSeen = new Promise<void>((resolve) => (firstBatch = resolve));
    const feeding = firstBatchSeen.then(() => {
      for (const file of files.slice(60)) queue.push(file);
      queue.end();
    });
    const outcomes = [] as AnalysedOutcome[];
    const threads: number[] = [];
    for await (const batch of analyseFiles(queue, { workers: 1, parallelMinBytes: 0 })) {
      if (outcomes.length === 0) expect(queue.ended).toBe(false);
      outcomes.push(...batch.outcomes);
      threads.push(batch.workers);
      firstBatch();
    }
    await feeding;
    expect(threads.every((workers) => workers === 1)).toBe(true);
    expect(kinds(outcomes)).toEqual(kinds(here));
    expect(outcomes.map((outcome) => (outcome.kind === "record" ? outcome.record.header.path : outcome.kind))).toEqual(
      here.map((outcome) => (outcome.kind === "record" ? outcome.record.header.path : outcome.kind)),
    );
  });

  it("analyses queued files in this thread too before the queue ends, when no workers are wanted", async () => {
    const { files } = await walkFiles(folder.path, folder.path);
    const queue = new FileQueue();
    for (const file of files.slice(0, 70)) queue.push(file);
    const outcomes = [] as AnalysedOutcome[];
    for await (const batch of analyseFiles(queue, { workers: 0 })) {
      expect(batch.workers).toBe(0);
      if (outcomes.length === 0) {
        expect(queue.ended).toBe(false);
        for (const file of files.slice(70)) queue.push(file);
        queue.end();
      }
      outcomes.push(...batch.outcomes);
    }
    expect(outcomes.map((outcome) => (outcome.kind === "record" ? outcome.record.header.path : outcome.kind))).toEqual(
      files.map((file) => (file.path.endsWith(".bin") ? "binary" : file.path)),
    );
  });

  it("waits for the queue to end, then finishes here, when the worker fails mid-way", async () => {
    const { files } = await walkFiles(folder.path, folder.path);
    const queue = new FileQueue();
    for (const file of files.slice(0, 50)) queue.push(file);
    setTimeout(() => {
      for (const file of files.slice(50)) queue.push(file);
      queue.end();
    }, 50);
    const context = {
      workers: 1,
      parallelMinBytes: 0,
      createWorker: () => new Worker("throw new Error('the worker broke')", { eval: true }),
    };
    const outcomes = [] as AnalysedOutcome[];
    for await (const batch of analyseFiles(queue, context)) outcomes.push(...batch.outcomes);
    expect(outcomes).toHaveLength(files.length);
    expect(outcomes.filter((outcome) => outcome.kind === "record")).toHaveLength(FILES);
  });
});

describe("parallel analysis, hard cases", () => {
  it("takes a worker reply with 180,000 new terms at once (one run of bytes)", async () => {
    // Three data files in one folder (one batch) with 60,000 distinct identifiers each.
    await mkdir(path.join(folder.path, "data"));
    for (const [position, name] of ["a", "b", "c"].entries()) {
      const names = Array.from({ length: 60_000 }, (_, index) => `q${(position * 60_000 + index).toString(36)}x`);
      await writeFile(path.join(folder.path, "data", `${name}.ts`), `export const names = [${names.join(", ")}];\n`);
    }
    const report = await (await CodeIndex.open(folder.path, { workers: 2, parallelMinBytes: 0 })).update();
    expect(report).toMatchObject({ workers: 2, indexed: FILES + 3, skipped: [expect.objectContaining({ reason: "binary" })] });
  });

  it("analyses everything here, leaving no worker running, when a later worker cannot start", async () => {
    const { files } = await walkFiles(folder.path, folder.path);
    const started: Worker[] = [];
    const createWorker = () => {
      if (started.length === 1) throw new Error("no more threads");
      const worker = new Worker("setInterval(() => {}, 1000)", { eval: true });
      started.push(worker);
      return worker;
    };
    const outcomes = [] as AnalysedOutcome[];
    for await (const batch of analyseFiles(FileQueue.of(files), { workers: 2, parallelMinBytes: 0, createWorker })) {
      expect(batch.workers).toBe(0);
      outcomes.push(...batch.outcomes);
    }
    expect(outcomes.filter((outcome) => outcome.kind === "record")).toHaveLength(FILES);
    expect(started).toHaveLength(1);
    // A worker's threadId turns -1 once it has stopped.
    expect(started[0]!.threadId).toBe(-1);
  });
});
