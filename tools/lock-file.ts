/**
 * Lock files between processes: `<file>.lock` created with O_EXCL, holding the owner's pid,
 * host and time. `withFileLock` is a short-held lock (memory, index); the building blocks below
 * also serve the long-held session lock.
 *
 * A short-held lock: Others wait (a few milliseconds at a time) until it is released. A lock
 * whose owner is gone (same host, pid not running) or that is older than `staleMs` is stale and
 * taken over race-free: renamed aside first (only one process wins the rename), its content
 * compared with what was judged stale, and put back if a fresh lock had replaced it.
 */
import nodeFileSystem, { promises as fs } from "node:fs";
import os from "node:os";
import { ToolError } from "./errors.js";
import { randomHex } from "./node-crypto.js";

/**
 * The file-system calls a short-held lock and an atomic rewrite make; tests inject failures (a
 * full disk) here. They are synchronous: each takes microseconds, and a round trip through
 * libuv's thread pool per call cost more than the call itself on a loaded machine (a MEMORY
 * store made fifteen of them).
 */
export type WriteFileSystem = Pick<typeof nodeFileSystem, "openSync" | "writeSync" | "closeSync" | "writeFileSync" | "renameSync" | "rmSync" | "readdirSync">;

export interface FileLockOptions {
  /** A lock held longer than this is taken over (default 30 s; holders keep it for milliseconds). */
  staleMs?: number;
  /** How long to wait for the lock before giving up with `locked` (default 15 s). */
  timeoutMs?: number;
  /** The file-system calls used (tests inject a full disk); node's by default. */
  fileSystem?: WriteFileSystem;
}

interface Owner {
  pid: number;
  hostname: string;
  since: number;
}

const hostname = os.hostname();

/** Runs `work` while holding the lock `lockFile`. */
export async function withFileLock<Result>(lockFile: string, work: () => Promise<Result>, options: FileLockOptions = {}): Promise<Result> {
  await acquire(lockFile, options);
  try {
    return await work();
  } finally {
    (options.fileSystem ?? nodeFileSystem).rmSync(lockFile, { force: true });
  }
}

async function acquire(lockFile: string, options: FileLockOptions): Promise<void> {
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  let wait = 1;
  for (;;) {
    const content = JSON.stringify({ pid: process.pid, hostname, since: Date.now() } satisfies Owner);
    if (await createExclusive(lockFile, content, options.fileSystem)) return;
    const existing = await readLock(lockFile);
    if (existing !== undefined && isStale(existing, staleMs)) {
      await takeOverStaleLock(lockFile, existing.text);
      continue;
    }
    if (Date.now() > deadline) {
      const owner = existing === undefined ? undefined : parseOwner(existing.text);
      throw new ToolError(
        "locked",
        `${lockFile} has been held by ${owner === undefined ? "another process" : `process ${owner.pid} on ${owner.hostname}`} for too long.`,
        `Wait for the other clio to finish; if none is running, delete ${lockFile}.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, wait + Math.random() * wait));
    wait = Math.min(wait * 2, 20);
  }
}

function isStale(existing: { text: string; modifiedMs: number }, staleMs: number): boolean {
  const owner = parseOwner(existing.text);
  if (owner === undefined) return Date.now() - existing.modifiedMs > staleMs; // being written right now, or garbage
  if (owner.hostname === hostname && owner.pid !== process.pid && !isProcessAlive(owner.pid)) return true;
  return Date.now() - owner.since > staleMs;
}

/** Whether a process with this pid exists (EPERM means it exists under another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Creates `file` with `content` unless it exists; false when it does. When the content cannot
 * be written (a full disk), the file is removed again: an empty lock nobody owns would make
 * every other process wait until it counts as stale.
 */
export async function createExclusive(
  file: string,
  content: string,
  fileSystem: Pick<WriteFileSystem, "openSync" | "writeSync" | "closeSync" | "rmSync"> = nodeFileSystem,
): Promise<boolean> {
  let descriptor: number;
  try {
    descriptor = fileSystem.openSync(file, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    fileSystem.writeSync(descriptor, content);
  } catch (error) {
    closeQuietly(fileSystem, descriptor);
    try {
      fileSystem.rmSync(file, { force: true });
    } catch {
      // The write's error is the one to report.
    }
    throw error;
  }
  fileSystem.closeSync(descriptor);
  return true;
}

function closeQuietly(fileSystem: Pick<WriteFileSystem, "closeSync">, descriptor: number): void {
  try {
    fileSystem.closeSync(descriptor);
  } catch {
    // The error that matters is the one being thrown.
  }
}

/** A lock file's text and modification time; undefined when it is gone. */
export async function readLock(file: string): Promise<{ text: string; modifiedMs: number } | undefined> {
  try {
    const [text, stats] = await Promise.all([fs.readFile(file, "utf8"), fs.stat(file)]);
    return { text, modifiedMs: stats.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * The owner a lock file's JSON names: its pid, host name and `since` (of the kind `isSince`
 * accepts). Undefined for anything else (a lock being written right now, or garbage), which
 * callers judge by the file's age.
 */
export function parseLockOwner<Since>(text: string, isSince: (value: unknown) => value is Since): { pid: number; hostname: string; since: Since } | undefined {
  try {
    const value = JSON.parse(text) as { pid?: unknown; hostname?: unknown; since?: unknown };
    if (typeof value.pid === "number" && typeof value.hostname === "string" && isSince(value.since)) {
      return { pid: value.pid, hostname: value.hostname, since: value.since };
    }
  } catch {
    // not JSON
  }
  return undefined;
}

function parseOwner(text: string): Owner | undefined {
  return parseLockOwner(text, (value): value is number => typeof value === "number");
}

/**
 * Takes a stale lock out of the way race-free: renamed aside first (only one process wins),
 * and put back if what was moved is not the stale content judged (a fresh lock replaced it).
 */
export async function takeOverStaleLock(file: string, staleText: string): Promise<void> {
  const aside = `${file}.stale-${process.pid}-${randomHex(4)}`;
  try {
    await fs.rename(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const moved = await fs.readFile(aside, "utf8").catch(() => staleText);
  if (moved !== staleText) await fs.link(aside, file).catch(() => undefined);
  await fs.rm(aside, { force: true });
}
