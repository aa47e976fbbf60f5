/**
 * What every file operation works with: the workspace (confinement) and the file-system seam.
 */
import { constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { Stats } from "node:fs";
import { ToolError } from "../errors.js";
import type { Workspace } from "../workspace.js";
import { errorCode, type FileSystem, type SyncReads } from "./file-system.js";

export interface FileContext {
  workspace: Workspace;
  fs: FileSystem;
  syncReads: SyncReads;
}

/** What kind of thing a stat describes, in words a model reads. */
export function kindOf(stat: Stats): string {
  if (stat.isFile()) return "file";
  if (stat.isDirectory()) return "directory";
  if (stat.isSymbolicLink()) return "symbolic link";
  if (stat.isFIFO()) return "named pipe (FIFO)";
  if (stat.isCharacterDevice()) return "character device";
  if (stat.isBlockDevice()) return "block device";
  if (stat.isSocket()) return "socket";
  return "special file";
}

/** The error for a path that is not a regular file. */
export function notAFile(relative: string, stat: Stats): ToolError {
  if (stat.isDirectory()) {
    return new ToolError("not_a_file", `${relative} is a directory, not a file.`, ["Use ", { action: "list", arguments: { path: relative } }, " to see what it holds."]);
  }
  return new ToolError("not_a_file", `${relative} is a ${kindOf(stat)}, not a regular file; file commands only read and write regular files.`, "Choose a regular file.");
}

/** The error for a path that does not exist. */
export function notFound(relative: string): ToolError {
  return new ToolError("not_found", `${relative} does not exist.`, ["Check the path with ", { action: "list" }, " or ", { action: "search", arguments: { pattern: "NAME" } }, "."]);
}

/**
 * Opens a regular file for reading. Non-blocking open, then a check on the open descriptor, so a
 * FIFO or device swapped in never blocks or gets read.
 */
export async function openRegularFile(context: FileContext, absolute: string, relative: string): Promise<{ handle: FileHandle; stat: Stats }> {
  let handle: FileHandle;
  try {
    handle = await context.fs.open(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw openFailure(error, relative);
  }
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw notAFile(relative, stat);
  }
  return { handle, stat };
}

/**
 * Reads a regular file whole with synchronous calls when it holds at most `limit` bytes (the
 * same non-blocking open and descriptor check as `openRegularFile`); undefined for a larger file,
 * which is then read in windows.
 */
export function readSmallRegularFile(context: FileContext, absolute: string, relative: string, limit: number): { content: Buffer; stat: Stats } | undefined {
  const sync = context.syncReads;
  let descriptor: number;
  try {
    descriptor = sync.openSync(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw openFailure(error, relative);
  }
  try {
    const stat = sync.fstatSync(descriptor);
    if (!stat.isFile()) throw notAFile(relative, stat);
    if (stat.size > limit) return undefined;
    const content = Buffer.allocUnsafe(stat.size);
    let filled = 0;
    while (filled < content.length) {
      const bytesRead = sync.readSync(descriptor, content, filled, content.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { content: content.subarray(0, filled), stat };
  } finally {
    sync.closeSync(descriptor);
  }
}

/** A failed open as an error a model can act on. */
function openFailure(error: unknown, relative: string): unknown {
  const code = errorCode(error);
  if (code === "ENOENT" || code === "ENOTDIR") return notFound(relative);
  if (code === "EACCES" || code === "EPERM") return new ToolError("permission_denied", `${relative} cannot be read: permission denied.`);
  return error;
}

/** lstat that yields undefined for a missing path. */
export async function lstatOrNothing(context: FileContext, absolute: string): Promise<Stats | undefined> {
  try {
    return await context.fs.lstat(absolute);
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return undefined;
    throw error;
  }
}

/**
 * Turns a stray system error from `operation` into a ToolError a model can act on
 * (missing path, permission, full disk ...). ClioErrors pass through unchanged.
 */
export async function explainFailure<Value>(input: string, operation: Promise<Value>): Promise<Value> {
  try {
    return await operation;
  } catch (error) {
    if (ToolError.isInstance(error)) throw error;
    const reason = (error as Error).message ?? String(error);
    switch (errorCode(error)) {
      case "ENOENT":
      case "ENOTDIR":
        throw new ToolError("not_found", `${input}: a path involved does not exist (${reason}).`, ["Check the paths with ", { action: "list" }, "."]);
      case "EACCES":
      case "EPERM":
      case "EROFS":
        throw new ToolError("permission_denied", `${input}: the file system refused access (${reason}).`, "Choose a path you may write, or fix its permissions with EXEC.");
      case "EEXIST":
        throw new ToolError("already_exists", `${input}: the target already exists (${reason}).`, "Choose another target, or pass overwrite=true where offered.");
      case "ENOTEMPTY":
        throw new ToolError("directory_not_empty", `${input}: the folder is not empty (${reason}).`);
      case "EISDIR":
        throw new ToolError("not_a_file", `${input} is a directory (${reason}).`);
      case "ENOSPC":
      case "EDQUOT":
        throw new ToolError("limit_reached", `${input}: the disk is full (${reason}); nothing was changed.`);
      default:
        throw new ToolError("internal_error", `${input}: ${reason}`);
    }
  }
}
