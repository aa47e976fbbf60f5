/**
 * git's own lock convention for the index: whoever creates `.git/index.lock` with O_EXCL owns
 * the index until the lock is renamed over `.git/index` (a new index) or removed. Real git
 * processes honour it, so an isomorphic-git write inside `withIndexLock` can never interleave
 * with a `git` command writing the same index.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";

export interface LockOptions {
  /** How long to wait for another process's lock before refusing (default 3000 ms). */
  timeoutMs?: number;
  /** Pause between attempts (default 25 ms). */
  retryMs?: number;
  signal?: AbortSignal;
}

/** What the holder of the lock may do while holding it. */
export interface IndexLock {
  /** Writes a new index atomically: into index.lock, then renamed over index. Ends the lock. */
  commit(content: Buffer): Promise<void>;
}

/**
 * Runs `work` while holding `.git/index.lock`. Waits (bounded) while another process holds
 * it, then throws `locked`. The lock is always released, whether `work` succeeds or throws.
 */
export async function withIndexLock<Result>(gitdir: string, work: (lock: IndexLock) => Promise<Result>, options: LockOptions = {}): Promise<Result> {
  const lockPath = path.join(gitdir, "index.lock");
  const handle = await acquire(lockPath, options);
  let committed = false;
  const lock: IndexLock = {
    async commit(content) {
      await handle.writeFile(content);
      await handle.sync();
      await handle.close();
      await fs.rename(lockPath, path.join(gitdir, "index"));
      committed = true;
    },
  };
  try {
    return await work(lock);
  } finally {
    if (!committed) {
      await handle.close().catch(() => undefined);
      await fs.rm(lockPath, { force: true });
    }
  }
}

async function acquire(lockPath: string, options: LockOptions): Promise<fs.FileHandle> {
  const timeoutMs = options.timeoutMs ?? 3000;
  const retryMs = options.retryMs ?? 25;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fs.open(lockPath, "wx");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    if (options.signal?.aborted) throw new ToolError("cancelled", "Cancelled while waiting for the git index lock.");
    if (Date.now() >= deadline) {
      throw new ToolError(
        "locked",
        `Another git process holds ${lockPath} (waited ${timeoutMs} ms); nothing was changed.`,
        "Retry when the other git command has finished. If no git process is running, the lock is stale: delete .git/index.lock.",
      );
    }
    await new Promise((resolve) => setTimeout(resolve, retryMs));
  }
}
