/**
 * One clio process per session: a lock file `<id>.lock`, created with O_EXCL, holding the
 * owner's pid, host name and start time. A lock whose process is gone (same host, pid not
 * alive) is stale and taken over. Locks are released on close and when the process exits.
 *
 * Taking over is race-free: the stale file is renamed aside first (only one process can win
 * that rename), its content compared with what was judged stale, and only then is a new lock
 * created, again with O_EXCL.
 */
import { unlinkSync } from "node:fs";
import os from "node:os";
import type { ClioError } from "../../grammar/errors.js";
import { ApplicationError } from "../errors.js";
import { createExclusive, isProcessAlive, parseLockOwner, readLock, takeOverStaleLock } from "../../tools/lock-file.js";

export { isProcessAlive };

export interface LockOwner {
  pid: number;
  hostname: string;
  /** ISO 8601. */
  since: string;
}

/** Seams for tests; the defaults describe this process. */
export interface LockOptions {
  pid?: number;
  hostname?: string;
  now?: () => number;
  isProcessAlive?: (pid: number) => boolean;
}

/** A lock file being written right now is empty for a moment; only an older empty one is stale. */
const UNREADABLE_GRACE_MS = 10_000;
const ATTEMPTS = 5;

const heldLocks = new Set<string>();
let exitHookInstalled = false;

/** A held lock. `release` is synchronous so it also works inside an `exit` handler. */
export class SessionLock {
  private released = false;

  private constructor(readonly file: string) {}

  /** Takes the lock for `sessionId` or throws `locked` naming the process that holds it. */
  static async acquire(file: string, sessionId: string, options: LockOptions = {}): Promise<SessionLock> {
    const pid = options.pid ?? process.pid;
    const hostname = options.hostname ?? os.hostname();
    const now = options.now ?? Date.now;
    const isAlive = options.isProcessAlive ?? isProcessAlive;
    const content = `${JSON.stringify({ pid, hostname, since: new Date(now()).toISOString() } satisfies LockOwner)}\n`;

    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (await createExclusive(file, content)) {
        installExitHook();
        heldLocks.add(file);
        return new SessionLock(file);
      }
      const existing = await readLock(file);
      if (existing === undefined) continue; // released between our attempt and the read
      const owner = parseOwner(existing.text);
      const live =
        owner === undefined ? now() - existing.modifiedMs < UNREADABLE_GRACE_MS : owner.hostname !== hostname || (owner.pid === pid ? heldLocks.has(file) : isAlive(owner.pid));
      if (live) throw lockedError(sessionId, file, owner, { pid, hostname });
      await takeOverStaleLock(file, existing.text);
    }
    throw new ApplicationError(
      "locked",
      `Session ${sessionId} could not be locked: other processes kept taking ${file}.`,
      "Make sure only one clio opens this session, then try again.",
    );
  }

  /** Removes the lock file if this process still holds it. Safe to call twice. */
  release(): void {
    if (this.released) return;
    this.released = true;
    heldLocks.delete(this.file);
    removeQuietly(this.file);
  }
}

/** The owner a session lock names (`since` an ISO time); undefined when unreadable, then judged by age. */
function parseOwner(text: string): LockOwner | undefined {
  return parseLockOwner(text, (value): value is string => typeof value === "string");
}

function lockedError(sessionId: string, file: string, owner: LockOwner | undefined, self: { pid: number; hostname: string }): ClioError {
  if (owner === undefined) {
    return new ApplicationError("locked", `Session ${sessionId} is being opened by another clio process right now (${file}).`, "Wait a moment and try again.");
  }
  if (owner.pid === self.pid && owner.hostname === self.hostname) {
    return new ApplicationError("locked", `Session ${sessionId} is already open in this process (pid ${owner.pid}).`, "Use the open session, or close it before opening it again.");
  }
  const where = owner.hostname === self.hostname ? `pid ${owner.pid}` : `pid ${owner.pid} on host ${owner.hostname}`;
  return new ApplicationError(
    "locked",
    `Session ${sessionId} is open in another clio process (${where}, since ${owner.since}).`,
    `Finish or quit that clio first, or start a new session. If that process is not clio or no longer runs, delete ${file} and try again.`,
  );
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const file of heldLocks) removeQuietly(file);
    heldLocks.clear();
  });
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}
