/** Whole-file replacement that a reader never sees half done, and that leaves nothing behind when it fails. */
import nodeFileSystem, { promises as fs } from "node:fs";
import path from "node:path";
import { isProcessAlive, type WriteFileSystem } from "./lock-file.js";
import { randomHex } from "./node-crypto.js";

export type { WriteFileSystem } from "./lock-file.js";

/** The temporary names `writeAtomically` uses: `<file>.tmp-<pid>-<random>`. */
const TEMPORARY = /^(.*)\.tmp-(\d+)-[0-9a-f]{8}$/;

function temporaryFor(file: string): string {
  return `${file}.tmp-${process.pid}-${randomHex(4)}`;
}

/** Writes `content` to `file` atomically: a unique temporary file in the same folder, then rename. */
export async function writeAtomically(file: string, content: string | Uint8Array, fileSystem: Pick<typeof fs, "writeFile" | "rename" | "rm"> = fs): Promise<void> {
  const temporary = temporaryFor(file);
  try {
    await fileSystem.writeFile(temporary, content);
    await fileSystem.rename(temporary, file);
  } catch (error) {
    await fileSystem.rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * `writeAtomically` in synchronous calls, for a short critical section under a lock (a MEMORY
 * store): a few milliseconds of blocking instead of a thread-pool round trip per call.
 */
export function writeAtomicallySync(file: string, content: string | Uint8Array, fileSystem: WriteFileSystem = nodeFileSystem): void {
  const temporary = temporaryFor(file);
  try {
    fileSystem.writeFileSync(temporary, content);
    fileSystem.renameSync(temporary, file);
  } catch (error) {
    try {
      fileSystem.rmSync(temporary, { force: true });
    } catch {
      // The write's own error is the one to report.
    }
    throw error;
  }
}

/**
 * Removes temporary files that an earlier process left beside `file` when it died mid-write
 * (its pid is no longer running). Another live process's temporaries are left alone.
 */
export function removeStaleTemporaries(file: string, fileSystem: WriteFileSystem = nodeFileSystem): string[] {
  const folder = path.dirname(file);
  const names = readNames(fileSystem, folder);
  const removed: string[] = [];
  for (const name of names as string[]) {
    const match = TEMPORARY.exec(name);
    if (match === null || match[1] !== path.basename(file)) continue;
    const pid = Number(match[2]);
    if (pid === process.pid || isProcessAlive(pid)) continue;
    try {
      fileSystem.rmSync(path.join(folder, name), { force: true });
      removed.push(name);
    } catch {
      // Left for the next start.
    }
  }
  return removed;
}

function readNames(fileSystem: WriteFileSystem, folder: string): string[] {
  try {
    return fileSystem.readdirSync(folder);
  } catch {
    return [];
  }
}
