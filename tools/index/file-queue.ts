/**
 * The queue a change check fills with the files to analyse (parallel.ts analyses them). Its own
 * module: a check that finds nothing changed loads none of the analysis.
 */
import type { FileToAnalyse } from "./file-record.js";

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

  /** Whether any file comes: resolves once one has arrived (true) or the queue ended without one. */
  async holdsAny(): Promise<boolean> {
    while (this.files.length === 0 && !this.ended) await this.next();
    return this.files.length > 0;
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
