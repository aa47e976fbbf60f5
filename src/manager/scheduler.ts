/**
 * Ordering, decided here and only here: which commands run alone, how commands overlap
 * (`CommandScheduler`), and when a streaming reply's commands may start (`HeldStream`).
 */
import type { PermissionClass } from "../../protocols/contract/protocol.js";

/** True for a command that must run alone, in order: it changes state, or declares itself exclusive. */
export function runsAlone(permissionClass: PermissionClass, exclusive: boolean | undefined): boolean {
  return permissionClass !== "read" || exclusive === true;
}

/**
 * Told when a run of read-only commands starts and ends and when state is about to change or has
 * changed, so that it may remember what it looked up while nothing changes (the workspace does).
 */
export interface ReadRunObserver {
  readRunStarted(): void;
  readRunEnded(): void;
  stateChanging(): void;
}

/**
 * Ordering rules for one stream of commands: read-only commands run in parallel (bounded);
 * a command that changes state waits for everything before it, and everything after it waits
 * for it. So results match a one-at-a-time run, while reads overlap.
 */
export class CommandScheduler {
  private barrier: Promise<void> = Promise.resolve();
  /** The reads scheduled since the last barrier, counted rather than kept (a long read-only run keeps nothing). */
  private reads = new ReadGroup();
  private running = 0;
  /** Reads past the barrier and not yet finished (running or waiting for a slot); a run of reads lasts while this stays above zero. */
  private readsRunning = 0;
  private readonly waiting: (() => void)[] = [];
  /** False from when a command that runs alone is scheduled until it (and every read before it) has finished. */
  private barrierPassed = true;
  /** A run of reads whose reads all finished at once, left open until the next turn of the event loop (`readAtOnceEnded`). */
  private runEndDue = false;
  /** Whether a look at a due run's end is queued for the next turn. */
  private endLookQueued = false;

  constructor(
    private readonly concurrency = 4,
    private readonly observer?: ReadRunObserver,
  ) {}

  /** Runs `task` when the ordering rules allow; `exclusive` for anything that changes state. */
  schedule<T>(exclusive: boolean, task: () => T | Promise<T>): Promise<T> {
    if (exclusive) {
      const before = Promise.all([this.barrier, this.reads.finished()]);
      const run = before.then(() => this.changing(task));
      const barrier = run.then(ignore, ignore);
      this.barrier = barrier;
      this.barrierPassed = false;
      barrier.then(() => {
        if (this.barrier === barrier) this.barrierPassed = true;
      });
      this.reads = new ReadGroup();
      return run;
    }
    const run = this.withSlot(this.barrier, task);
    this.reads.add(run);
    return run;
  }

  /**
   * `schedule`, for a task that may finish at once: a read that finds no command running alone
   * before it and a slot free runs in this call, and when its task gives its value at once (not a
   * promise) so does this. Anything else is scheduled as `schedule` does.
   */
  scheduleAtOnce<T>(exclusive: boolean, task: () => T | Promise<T>): T | Promise<T> {
    if (exclusive || !this.barrierPassed || this.running >= this.concurrency) return this.schedule(exclusive, task);
    this.readStarted();
    this.running++;
    let value: T | Promise<T>;
    try {
      value = task();
    } catch (error) {
      value = Promise.reject(error);
    }
    if (!(value instanceof Promise)) {
      this.slotFreed();
      this.readAtOnceEnded();
      return value;
    }
    const run = value.finally(() => {
      this.slotFreed();
      this.readEnded();
    });
    this.reads.add(run);
    return run;
  }

  /** Resolves when everything scheduled so far has finished. */
  async idle(): Promise<void> {
    await Promise.all([this.barrier, this.reads.finished()]);
  }

  /** Runs a task that may change state, with the observer told before and after. */
  private async changing<T>(task: () => T | Promise<T>): Promise<T> {
    this.endRunDue();
    this.observer?.stateChanging();
    try {
      return await task();
    } finally {
      this.observer?.stateChanging();
    }
  }

  /**
   * Runs a read past `barrier` (the one it was scheduled behind) in a free slot; the observer hears
   * when the first of a run starts and the last ends. The barrier is awaited here rather than
   * chained with `then`, which would cost a closure and two more turns of the queue per read.
   */
  private async withSlot<T>(barrier: Promise<void>, task: () => T | Promise<T>): Promise<T> {
    await barrier;
    this.readStarted();
    try {
      // A freed slot passes straight to the longest waiter, so no newcomer can take it in between.
      if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
      else this.running++;
      try {
        return await task();
      } finally {
        this.slotFreed();
      }
    } finally {
      this.readEnded();
    }
  }

  /** A read is past its barrier: the first of a run tells the observer (unless the run's end was only due). */
  private readStarted(): void {
    if (this.readsRunning++ > 0) return;
    if (this.runEndDue) this.runEndDue = false;
    else this.observer?.readRunStarted();
  }

  /** A read finished: the last of a run tells the observer. */
  private readEnded(): void {
    if (--this.readsRunning === 0) this.observer?.readRunEnded();
  }

  /**
   * A read that finished at once: when it was the last, the run's end is told on the next turn of
   * the event loop unless another read starts first, so reads handed over one by one, each done at
   * once, are still one run (see `ReadRunObserver`). A command that runs alone ends it first.
   */
  private readAtOnceEnded(): void {
    if (--this.readsRunning > 0) return;
    this.runEndDue = true;
    // One look on the next turn, however many reads end before it.
    if (this.endLookQueued) return;
    this.endLookQueued = true;
    setImmediate(this.lookAtRunEnd);
  }

  /** The look at a due run's end on the next turn of the event loop. */
  private readonly lookAtRunEnd = (): void => {
    this.endLookQueued = false;
    this.endRunDue();
  };

  /** Tells the observer of a run's end that was due, if no read started since. */
  private endRunDue(): void {
    if (!this.runEndDue || this.readsRunning > 0) return;
    this.runEndDue = false;
    this.observer?.readRunEnded();
  }

  /** A slot is free: it passes straight to the longest waiter, or is counted free. */
  private slotFreed(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}

/**
 * A reply's commands as they stream in. Until the first command that must run alone, each starts
 * the moment it arrives (the scheduler overlaps reads); from that one on, every command is held
 * until the reply has ended, and then starts in order — or never, when the reply broke off.
 */
export class HeldStream<Item> {
  private holding = false;
  private readonly held: Item[] = [];

  constructor(private readonly start: (item: Item) => void) {}

  /** Starts or holds `item`; `mustRunAlone` is asked only while nothing is held. */
  add(item: Item, mustRunAlone: () => boolean): void {
    if (!this.holding && mustRunAlone()) this.holding = true;
    if (this.holding) this.held.push(item);
    else this.start(item);
  }

  /** The reply ended whole: the held items start, in order, each as `vet` returns it. */
  release(vet: (item: Item) => Item = (item) => item): void {
    for (const item of this.held.splice(0)) this.start(vet(item));
  }
}

/** Reads that a later barrier waits for: how many are still running, and who waits for none. */
class ReadGroup {
  private running = 0;
  private whenNone?: Promise<void>;
  private resolveNone?: () => void;

  add(run: Promise<unknown>): void {
    this.running++;
    run.then(this.settle, this.settle);
  }

  /** Resolves when every read added so far has settled. */
  finished(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    this.whenNone ??= new Promise<void>((resolve) => (this.resolveNone = resolve));
    return this.whenNone;
  }

  private readonly settle = (): void => {
    this.running--;
    if (this.running > 0 || this.resolveNone === undefined) return;
    this.resolveNone();
    this.whenNone = undefined;
    this.resolveNone = undefined;
  };
}

function ignore(): void {}
