/** Whole-file replacement that a reader never sees half done, and that leaves nothing behind when it fails. */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { isProcessAlive, type WriteFileSystem } from "./lock-file.js";

export type { WriteFileSystem } from "./lock-file.js";

/** The temporary names `writeAtomically` uses: `<file>.tmp-<pid>-<random>`. */
const TEMPORARY = /^(.*)\.tmp-(\d+)-[0-9a-f]{8}$/;

/** Writes `content` to `file` atomically: a unique temporary file in the same folder, then rename. */
export async function writeAtomically(file: string, content: string | Uint8Array, fileSystem: WriteFileSystem = fs): Promise<void> {
  const temporary = `${file}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    await fileSystem.writeFile(temporary, content);
    await fileSystem.rename(temporary, file);
  } catch (error) {
    await fileSystem.rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * Removes temporary files that an earlier process left beside `file` when it died mid-write
 * (its pid is no longer running). Another live process's temporaries are left alone.
 */
export async function removeStaleTemporaries(file: string, fileSystem: WriteFileSystem = fs): Promise<string[]> {
  const folder = path.dirname(file);
  const names = await fileSystem.readdir(folder).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names as string[]) {
    const match = TEMPORARY.exec(name);
    if (match === null || match[1] !== path.basename(file)) continue;
    const pid = Number(match[2]);
    if (pid === process.pid || isProcessAlive(pid)) continue;
    await fileSystem.rm(path.join(folder, name), { force: true }).catch(() => undefined);
    removed.push(name);
  }
  return removed;
}
