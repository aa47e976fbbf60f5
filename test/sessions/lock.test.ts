import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionStore } from "../../src/sessions/index.js";
import { type Child, makeTempDir, rejection, startChild } from "./helpers.js";

let directory: string;
let sessionId: string;
const children: Child[] = [];

beforeEach(async () => {
  directory = await makeTempDir("sessions-lock");
  const session = await new SessionStore(directory).create({ workspace: "/w", provider: "p", model: "m" });
  sessionId = session.id;
  await session.close();
});

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL");
    await child.exited;
  }
  await fs.rm(directory, { recursive: true, force: true });
});

async function holdInChild(): Promise<Child> {
  const child = await startChild(["hold", directory, sessionId]);
  children.push(child);
  return child;
}

const lockFile = (): string => path.join(directory, `${sessionId}.lock`);

describe("a session open in another clio process", () => {
  it("is refused with the holder's pid and what to do", async () => {
    const child = await holdInChild();
    const owner = JSON.parse(await fs.readFile(lockFile(), "utf8"));
    expect(owner).toMatchObject({ pid: Number(child.readyValue), hostname: os.hostname() });

    const error = await rejection(new SessionStore(directory).open(sessionId));
    expect(error.code).toBe("locked");
    expect(error.message).toContain(`Session ${sessionId} is open in another clio process (pid ${child.readyValue}, since `);
    expect(error.hint).toContain(`delete ${lockFile()}`);
    expect((await rejection(new SessionStore(directory).delete(sessionId))).code).toBe("locked");
    // reading (for show and export) needs no lock
    expect((await new SessionStore(directory).read(sessionId.slice(0, 15))).id).toBe(sessionId);
  });

  it("is free again once that process exits normally (the lock is released on exit)", async () => {
    const child = await holdInChild();
    child.process.stdin!.write("exit\n");
    expect(await child.exited).toBe(0);
    await expect(fs.access(lockFile())).rejects.toThrow();
    const session = await new SessionStore(directory).open(sessionId);
    await session.close();
  });

  it("is taken over when that process died without releasing it (stale lock)", async () => {
    const child = await holdInChild();
    child.process.kill("SIGKILL");
    await child.exited;
    const stale = JSON.parse(await fs.readFile(lockFile(), "utf8"));
    expect(stale.pid).toBe(Number(child.readyValue));

    const session = await new SessionStore(directory).open(sessionId);
    expect(JSON.parse(await fs.readFile(lockFile(), "utf8")).pid).toBe(process.pid);
    await session.close();
    await expect(fs.access(lockFile())).rejects.toThrow();
    expect((await fs.readdir(directory)).filter((name) => name.includes(".stale-"))).toEqual([]);
  });
});

describe("a stale lock raced for by several processes", () => {
  it("goes to exactly one of them; the others are refused", async () => {
    const dead = spawnSync(process.execPath, ["-e", ""]);
    await fs.writeFile(lockFile(), JSON.stringify({ pid: dead.pid, hostname: os.hostname(), since: "2026-11-22T01:00:00.000Z" }));
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => holdInChild()));
    const winners = outcomes.filter((outcome) => outcome.status === "fulfilled");
    const losers = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    expect(winners).toHaveLength(1);
    for (const loser of losers) expect(String(loser.reason)).toMatch(/is open in another clio process|is being opened by another clio process/);
    const holder = (winners[0] as PromiseFulfilledResult<Child>).value;
    expect(JSON.parse(await fs.readFile(lockFile(), "utf8")).pid).toBe(Number(holder.readyValue));
  });
});

describe("the lock in this process", () => {
  it("refuses a second open of the same session and frees it on close", async () => {
    const store = new SessionStore(directory);
    const session = await store.open(sessionId);
    const error = await rejection(store.open(sessionId));
    expect(error.message).toBe(`Session ${sessionId} is already open in this process (pid ${process.pid}).`);
    await session.close();
    const again = await store.open(sessionId);
    await again.close();
  });

  it("cannot judge a lock held on another host, so it refuses and names the host", async () => {
    await fs.writeFile(lockFile(), JSON.stringify({ pid: 4242, hostname: "build-box", since: "2026-11-22T01:00:00.000Z" }));
    const error = await rejection(new SessionStore(directory).open(sessionId));
    expect(error.message).toBe(`Session ${sessionId} is open in another clio process (pid 4242 on host build-box, since 2026-11-22T01:00:00.000Z).`);
  });

  it("treats an unreadable lock as being written unless it is old", async () => {
    await fs.writeFile(lockFile(), "");
    let now = Date.now();
    const store = () => new SessionStore(directory, { now: () => now });
    expect((await rejection(store().open(sessionId))).message).toContain("is being opened by another clio process right now");
    now += 60_000;
    const session = await store().open(sessionId);
    await session.close();
  });

  it("takes over a lock from a dead pid on this host (liveness seam)", async () => {
    await fs.writeFile(lockFile(), JSON.stringify({ pid: 999_999, hostname: os.hostname(), since: "2026-11-22T01:00:00.000Z" }));
    const store = new SessionStore(directory, { lock: { isProcessAlive: (pid) => pid !== 999_999 } });
    const session = await store.open(sessionId);
    await session.close();
  });
});
