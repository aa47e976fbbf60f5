/**
 * Ordering rules for one stream of commands: read-only commands run in parallel (bounded);
 * a command that changes state waits for everything before it, and everything after it waits
 * for it. So results match a one-at-a-time run, while reads overlap.
 */
export class CommandScheduler {
  private barrier: Promise<void> = Promise.resolve();
  private readsSinceBarrier: Promise<unknown>[] = [];
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly concurrency = 4) {}

  /** Runs `task` when the ordering rules allow; `exclusive` for anything that changes state. */
  schedule<T>(exclusive: boolean, task: () => Promise<T>): Promise<T> {
    if (exclusive) {
      const before = Promise.all([this.barrier, ...this.readsSinceBarrier]);
      const run = before.then(task);
      this.barrier = run.then(ignore, ignore);
      this.readsSinceBarrier = [];
      return run;
    }
    const run = this.barrier.then(() => this.withSlot(task));
    this.readsSinceBarrier.push(run.then(ignore, ignore));
    return run;
  }

  /** Resolves when everything scheduled so far has finished. */
  async idle(): Promise<void> {
    await Promise.all([this.barrier, ...this.readsSinceBarrier]);
  }

  private async withSlot<T>(task: () => Promise<T>): Promise<T> {
    // A freed slot passes straight to the longest waiter, so no newcomer can take it in between.
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

function ignore(): void {}
