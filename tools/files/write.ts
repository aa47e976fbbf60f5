/**
 * Writing files atomically (temp file in the same folder, then rename) and reporting what
 * changed as added and removed lines.
 */
import path from "node:path";
import { ToolError } from "../errors.js";
import { countLineChanges } from "../line-diff.js";
import type { ResolvedPath } from "../workspace.js";
import type { Stats } from "node:fs";
import { confine, holdEntry, linkPutInPlace, lstatOrNothing, notAFile, openCheckedFolder, openRegularFile, type FileContext } from "./context.js";
import { errorCode } from "./file-system.js";
import { countLines } from "./lines.js";
import { COUNT_LINES_UP_TO_BYTES } from "./read.js";
import { formatBytes, splitLines } from "./text.js";
import { randomHex } from "../node-crypto.js";

/** The largest content one write accepts. */
export const WRITE_MAX_BYTES = 16 * 1024 * 1024;
/** Old contents up to this size are read to count changed lines. */
const DIFF_MAX_BYTES = 2 * 1024 * 1024;
/** Longest file name Linux file systems accept, for the temp file beside a target. */
const TEMP_NAME_MAX_BYTES = 255;

export interface WriteResult {
  relative: string;
  created: boolean;
  /** Lines added and removed compared with the old content (all lines when created). */
  added: number;
  removed: number;
  lines: number;
  bytes: number;
}

/**
 * Writes `data` to `target` (a checked real path) atomically: a temp file beside it is written,
 * synced and renamed over it (see `replaceThroughTemporary`). On any failure the temp file is
 * removed and the old file is untouched. `mode` is applied to the new file (the old file's mode, to keep it).
 */
export async function atomicWrite(context: FileContext, target: string, data: string | Buffer, mode?: number): Promise<void> {
  await replaceThroughTemporary(context, target, async (temporary) => {
    const handle = await context.fs.open(temporary, "wx", mode ?? 0o666);
    try {
      await handle.writeFile(data);
      if (mode !== undefined) await handle.chmod(mode);
      await handle.datasync();
    } finally {
      await handle.close();
    }
  });
}

/**
 * Replaces the entry at `target` (a checked real path) with a new file: `fill` makes it under a
 * fresh temp name beside the target (created exclusively: never through a link), which is then
 * renamed over the target's name. Both are reached through the folder held open and confirmed
 * (see `holdEntry`), so a link swapped in on the way or in the target's place is never followed.
 * On any failure the temp file is removed and the old entry is untouched.
 */
export async function replaceThroughTemporary(context: FileContext, target: string, fill: (temporary: string) => Promise<void>): Promise<void> {
  const suffix = `.clio-${randomHex(6)}.tmp`;
  const name = `.${path.basename(target)}${suffix}`;
  const entry = await holdEntry(context, target);
  try {
    // A name near the 255-byte limit leaves no room for the temp file's additions.
    const temporary = path.join(path.dirname(entry.path), Buffer.byteLength(name) <= TEMP_NAME_MAX_BYTES ? name : suffix);
    try {
      await fill(temporary);
      await context.fs.rename(temporary, entry.path);
    } catch (error) {
      await context.fs.unlink(temporary).catch(() => undefined);
      throw error;
    }
  } finally {
    await entry.close();
  }
}

/** Checks a write target and returns where to write (symlinks inside followed) and its old state. */
export async function prepareWrite(context: FileContext, input: string | ResolvedPath): Promise<{ relative: string; target: string; oldMode?: number; oldSize?: number }> {
  const { relative, real } = await confine(context, input, "write");
  if (relative === ".") throw new ToolError("not_a_file", "The workspace root is a directory, not a file.", 'Give a file path, e.g. path="notes.md".');
  const stat = await lstatOrNothing(context, real);
  if (stat !== undefined && !stat.isFile()) throw notAFile(relative, stat);
  await makeParents(context, real, relative);
  return { relative, target: real, oldMode: stat?.mode, oldSize: stat?.size };
}

/**
 * Creates the folders above `target` (a checked real path) one at a time: each name is made
 * inside its parent held open and confirmed, then opened without following a link and confirmed
 * in turn, so a folder swapped on the way makes nothing outside. A file in the way is a clear error.
 */
export async function makeParents(context: FileContext, target: string, relative: string): Promise<void> {
  const missing: string[] = [];
  let existing = path.dirname(target);
  for (let stat = await lstatOrNothing(context, existing); !stat?.isDirectory(); stat = await lstatOrNothing(context, existing)) {
    if (stat !== undefined) throw parentInTheWay(relative, stat);
    missing.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  if (missing.length === 0) return;
  let real = existing;
  let folder = await openCheckedFolder(context, real, context.workspace.relativeOf(real));
  try {
    for (const name of missing) {
      const child = path.join(folder.path, name);
      try {
        await context.fs.mkdir(child);
      } catch (error) {
        if (errorCode(error) !== "EEXIST") throw error;
        const stat = await context.fs.lstat(child);
        if (!stat.isDirectory()) throw parentInTheWay(relative, stat);
      }
      real = path.join(real, name);
      const next = await openCheckedFolder(context, real, context.workspace.relativeOf(real), child);
      await folder.close();
      folder = next;
    }
  } finally {
    await folder.close();
  }
}

/** The error for a file (or, swapped in after the check, a link) where a parent folder of `relative` belongs. */
function parentInTheWay(relative: string, stat: Stats): ToolError {
  if (stat.isSymbolicLink()) return linkPutInPlace(relative);
  return new ToolError("not_a_directory", `A parent of ${relative} is a file, so ${relative} cannot be created.`, "Choose a path whose folders are folders.");
}

/** Writes text content to a file (creating folders), atomically, keeping an existing file's mode. */
export async function writeTextFile(context: FileContext, input: string | ResolvedPath, content: string): Promise<WriteResult> {
  const bytes = Buffer.byteLength(content);
  if (bytes > WRITE_MAX_BYTES) {
    throw new ToolError(
      "too_large",
      `The content is ${formatBytes(bytes)}; one write takes at most ${formatBytes(WRITE_MAX_BYTES)}.`,
      "Write the file in smaller pieces or generate it with EXEC.",
    );
  }
  const { relative, target, oldMode, oldSize } = await prepareWrite(context, input);
  const lines = splitLines(content).length;
  let changes = { added: lines, removed: 0 };
  if (oldSize !== undefined && oldSize <= DIFF_MAX_BYTES) changes = countLineChanges(await readWhole(context, target, relative), content);
  else if (oldSize !== undefined) changes.removed = (await lineCount(context, target, relative)) ?? 0;
  await atomicWrite(context, target, content, oldMode === undefined ? undefined : oldMode & 0o7777);
  const { added, removed } = changes;
  return { relative, created: oldSize === undefined, added, removed, lines, bytes };
}

/** Reads a regular file whole as UTF-8 (callers bound its size first). */
export async function readWhole(context: FileContext, absolute: string, relative: string): Promise<string> {
  const { handle } = await openRegularFile(context, absolute, relative);
  try {
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

/** The line count of a regular file (undefined past the counting limit). */
export async function lineCount(context: FileContext, absolute: string, relative: string): Promise<number | undefined> {
  const { handle } = await openRegularFile(context, absolute, relative);
  try {
    return await countLines(handle, COUNT_LINES_UP_TO_BYTES);
  } finally {
    await handle.close();
  }
}
