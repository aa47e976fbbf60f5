/**
 * A thread that stats paths for change checks. Starting a thread costs about 90 ms (of CPU and
 * of wall), about as much as the stats of a 13,000-file tree, so it pays only when it starts
 * early, before the paths are known (a fresh process starts it as the first RAG command begins,
 * while this thread loads and opens the index), and when a core is idle to run it. It is one
 * thread for all the checks of a process: each check hands it a list, and both threads claim
 * paths from the list's shared counter a batch at a time.
 *
 * This module loads nothing but Node's own modules, so a caller can start the thread before it
 * loads the index code.
 */
import type { statSync } from "node:fs";
import os from "node:os";
import { Worker } from "node:worker_threads";

/** Paths a thread claims at a time. */
export const STAT_BATCH = 128;

/**
 * True when a core looks idle (the load average leaves one free): on a busy machine the
 * thread's start costs more than the stats it would take over, as it does not run beside this one.
 */
export function coreToSpare(): boolean {
  return os.availableParallelism() - os.loadavg()[0]! >= 1;
}

/**
 * Stats `paths[index]` for each index claimed from `counters[0]` (a batch at a time), writing
 * kind (1 a file, 2 a folder, 3 anything else, 4 gone or unreachable), size and mtime into
 * `results`, and counts what it did in `counters[1]`; returns how many it took. It runs on both
 * threads: the other thread gets its source text, so it uses nothing but its arguments.
 */
export function statClaimed(paths: string[], counters: Int32Array, results: Float64Array, batch: number, stat: typeof statSync): number {
  let taken = 0;
  for (;;) {
    const from = Atomics.add(counters, 0, batch);
    if (from >= paths.length) return taken;
    const to = Math.min(from + batch, paths.length);
    for (let index = from; index < to; index++) {
      let seen: ReturnType<typeof statSync> | undefined;
      try {
        seen = stat(paths[index]!, { throwIfNoEntry: false });
      } catch {
        seen = undefined;
      }
      results[3 * index] = seen === undefined ? 4 : seen.isFile() ? 1 : seen.isDirectory() ? 2 : 3;
      if (seen !== undefined) {
        results[3 * index + 1] = seen.size;
        results[3 * index + 2] = seen.mtimeMs;
      }
    }
    Atomics.add(counters, 1, to - from);
    Atomics.notify(counters, 1);
    taken += to - from;
  }
}

const THREAD_SOURCE = `const { parentPort } = require("node:worker_threads");
const { statSync } = require("node:fs");
const statClaimed = ${statClaimed.toString()};
parentPort.on("message", (list) => { statClaimed(list.paths.split("\\0"), new Int32Array(list.counters), new Float64Array(list.results), list.batch, statSync); });`;

/** The thread, idle between checks; it never keeps the process alive. */
export class StatThread {
  private constructor(private readonly worker: Worker) {}

  /** Starts the thread; undefined when threads or shared memory are not available. */
  static start(): StatThread | undefined {
    if (typeof SharedArrayBuffer !== "function") return undefined;
    try {
      // execArgv: [] keeps the process's preloads (--require) out of the thread.
      const worker = new Worker(THREAD_SOURCE, { eval: true, execArgv: [], stdout: true, stderr: true });
      worker.unref();
      // A thread that fails leaves its paths to the checking thread, which stats what nobody took.
      worker.on("error", () => undefined);
      return new StatThread(worker);
    } catch {
      return undefined;
    }
  }

  /**
   * Has the thread claim and stat paths of `paths` (shared `counters` and `results`, as
   * `statClaimed` takes them) as soon as it is free.
   */
  share(paths: readonly string[], counters: Int32Array, results: Float64Array): void {
    this.worker.postMessage({ paths: paths.join("\0"), counters: counters.buffer, results: results.buffer, batch: STAT_BATCH });
  }

  /** Ends the thread; resolves once it has ended. */
  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}
