/** The ordering rules on their own: reads overlap up to the bound, writes run alone and in order. */
import { describe, expect, it } from "vitest";
import { CommandScheduler, HeldStream, runsAlone } from "../../src/manager/scheduler.js";

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe("the command scheduler", () => {
  it("never runs more reads at once than its bound, even when a read arrives as a slot frees", async () => {
    const scheduler = new CommandScheduler(1);
    let running = 0;
    let most = 0;
    const read = (gate?: Promise<void>) => async () => {
      running++;
      most = Math.max(most, running);
      await gate;
      await Promise.resolve();
      running--;
    };
    const first = deferred();
    const runs = [scheduler.schedule(false, read(first.promise)), scheduler.schedule(false, read())];
    await new Promise((resolve) => setTimeout(resolve, 5));
    first.resolve();
    for (let index = 0; index < 4; index++) {
      await Promise.resolve();
      runs.push(scheduler.schedule(false, read()));
    }
    await Promise.all(runs);
    expect(most).toBe(1);
  });

  it("runs a write after every earlier read, and a later read after the write", async () => {
    const scheduler = new CommandScheduler(4);
    const log: string[] = [];
    const step =
      (name: string, wait = 0) =>
      async () => {
        log.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, wait));
        log.push(`end ${name}`);
      };
    await Promise.all([
      scheduler.schedule(false, step("r1", 20)),
      scheduler.schedule(true, step("w1")),
      scheduler.schedule(true, step("w2")),
      scheduler.schedule(false, step("r2")),
    ]);
    expect(log).toEqual(["start r1", "end r1", "start w1", "end w1", "start w2", "end w2", "start r2", "end r2"]);
  });

  it("goes on after a task that fails", async () => {
    const scheduler = new CommandScheduler(1);
    const failed = scheduler.schedule(true, async () => {
      throw new Error("no");
    });
    await expect(failed).rejects.toThrow("no");
    await expect(scheduler.schedule(false, async () => "after")).resolves.toBe("after");
    await scheduler.idle();
  });

  it("tells its observer when a run of reads starts and ends, and before and after each change", async () => {
    const told: string[] = [];
    const scheduler = new CommandScheduler(2, {
      readRunStarted: () => told.push("reads start"),
      readRunEnded: () => told.push("reads end"),
      stateChanging: () => told.push("changing"),
    });
    const step = (name: string) => async () => {
      told.push(name);
      await new Promise((resolve) => setTimeout(resolve, 1));
    };
    await Promise.all([
      scheduler.schedule(false, step("r1")),
      scheduler.schedule(false, step("r2")),
      scheduler.schedule(false, step("r3")),
      scheduler.schedule(true, step("w1")),
      scheduler.schedule(false, step("r4")),
    ]);
    // Three reads waiting for two slots are one run; the write never overlaps a run.
    expect(told).toEqual(["reads start", "r1", "r2", "r3", "reads end", "changing", "w1", "changing", "reads start", "r4", "reads end"]);
  });
});

describe("reads run at once", () => {
  const observed = () => {
    const told: string[] = [];
    const scheduler = new CommandScheduler(2, {
      readRunStarted: () => told.push("reads start"),
      readRunEnded: () => told.push("reads end"),
      stateChanging: () => told.push("changing"),
    });
    return { told, scheduler };
  };
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it("give a read's value in the call when a slot is free; reads handed over one by one are one run, ended on the next turn", async () => {
    const { told, scheduler } = observed();
    for (const name of ["r1", "r2", "r3"]) {
      expect(scheduler.scheduleAtOnce(false, () => (told.push(name), name))).toBe(name);
      await Promise.resolve();
    }
    expect(told).toEqual(["reads start", "r1", "r2", "r3"]);
    await nextTurn();
    expect(told).toEqual(["reads start", "r1", "r2", "r3", "reads end"]);
  });

  it("wait for a command that runs alone before them, and end a run that was due before the change", async () => {
    const { told, scheduler } = observed();
    scheduler.scheduleAtOnce(false, () => told.push("r1"));
    const gate = deferred();
    const write = scheduler.scheduleAtOnce(true, async () => {
      told.push("w1");
      await gate.promise;
    });
    const read = scheduler.scheduleAtOnce(false, () => (told.push("r2"), "r2"));
    expect(read).toBeInstanceOf(Promise);
    gate.resolve();
    await write;
    expect(await read).toBe("r2");
    await nextTurn();
    expect(told).toEqual(["reads start", "r1", "reads end", "changing", "w1", "changing", "reads start", "r2", "reads end"]);
  });

  it("keep to the bound: past it a read waits for a slot, and a task that throws rejects", async () => {
    const { scheduler } = observed();
    const gate = deferred();
    const slow = [scheduler.scheduleAtOnce(false, () => gate.promise), scheduler.scheduleAtOnce(false, () => gate.promise)];
    const third = scheduler.scheduleAtOnce(false, () => "third");
    expect(third).toBeInstanceOf(Promise);
    gate.resolve();
    await Promise.all(slow);
    expect(await third).toBe("third");
    const failing = scheduler.scheduleAtOnce(false, () => {
      throw new Error("broken");
    });
    await expect(failing).rejects.toThrow("broken");
    expect(scheduler.scheduleAtOnce(false, () => "after")).toBe("after");
  });
});

describe("a streaming reply's commands", () => {
  const alone = (name: string) => name.startsWith("w");

  it("starts reads as they arrive and holds everything from the first command that runs alone until the reply ends", () => {
    const started: string[] = [];
    const stream = new HeldStream<string>((name) => started.push(name));
    const asked: string[] = [];
    for (const name of ["r1", "r2", "w1", "r3", "w2"]) {
      stream.add(name, () => {
        asked.push(name);
        return alone(name);
      });
    }
    expect(started).toEqual(["r1", "r2"]);
    // Once holding, later commands are not even asked about (they are checked when they start).
    expect(asked).toEqual(["r1", "r2", "w1"]);
    stream.release((name) => `${name}!`);
    expect(started).toEqual(["r1", "r2", "w1!", "r3!", "w2!"]);
  });

  it("never starts held commands of a reply that is not released (it broke off)", () => {
    const started: string[] = [];
    const stream = new HeldStream<string>((name) => started.push(name));
    for (const name of ["r1", "w1", "r2"]) stream.add(name, () => alone(name));
    expect(started).toEqual(["r1"]);
  });

  it("runs alone whatever changes state or declares itself exclusive", () => {
    expect(runsAlone("read", undefined)).toBe(false);
    expect(runsAlone("read", true)).toBe(true);
    for (const permissionClass of ["write", "exec", "network"] as const) expect(runsAlone(permissionClass, false)).toBe(true);
  });
});
