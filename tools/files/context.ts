/**
 * What every file operation works with: the workspace (confinement) and the file-system seam.
 */
import { constants } from "node:fs";
import path from "node:path";
import type { FileHandle } from "node:fs/promises";
import type { Stats } from "node:fs";
import { ToolError } from "../errors.js";
import { descriptorPath, type CheckedPaths, type PathIntent, type ResolvedPath, type Workspace } from "../workspace.js";
import { errorCode, type FileSystem, type SyncReads } from "./file-system.js";

export interface FileContext {
  workspace: Workspace;
  fs: FileSystem;
  syncReads: SyncReads;
  /** The command's paths as its permission check resolved them: used instead of resolving again. */
  checked?: CheckedPaths;
}

/** Flags every open of a checked path adds: a link put in place of its last name is refused. */
const CHECKED_OPEN = constants.O_NOFOLLOW;

/**
 * `input` confined to the workspace for `intent`: the resolution the permission check made when
 * there was one (its error, when it failed), else a fresh one. Never resolves a checked path again.
 */
export function confine(context: FileContext, input: string | ResolvedPath, intent: PathIntent): Promise<ResolvedPath> {
  return context.workspace.resolve(input, intent, context.checked);
}

/** `confine` without the file system, when the command's check (or the input itself) holds the resolution; undefined when it must be resolved afresh. */
export function confineKnown(context: FileContext, input: string | ResolvedPath, intent: PathIntent): ResolvedPath | undefined {
  return context.workspace.resolveKnown(input, intent, context.checked);
}

/** Throws unless the open descriptor still refers to the checked real path (see `Workspace.confirmOpened`). */
function confirmOpened(context: FileContext, descriptor: number, real: string, relative: string): boolean {
  return context.workspace.confirmOpened(descriptor, real, relative, context.syncReads.readlinkSync);
}

/** A checked folder held open: names joined to `path` land in that very folder. */
export interface OpenFolder {
  path: string;
  close(): Promise<void>;
}

/**
 * Opens the folder at the checked real path `real` and confirms it is still that folder; names
 * are then reached through its descriptor, so a folder or link swapped on its way after the check
 * cannot send a write elsewhere. Where descriptors cannot be confirmed (no /proc) the path is used.
 * `through` is the path to open when it is not `real` itself: a name inside a held folder.
 */
export async function openCheckedFolder(context: FileContext, real: string, relative: string, through = real): Promise<OpenFolder> {
  const { handle, confirmed } = await openChecked(context, real, relative, constants.O_RDONLY | constants.O_DIRECTORY, through);
  return { path: confirmed ? descriptorPath(handle.fd) : real, close: () => handle.close() };
}

/**
 * One entry of the workspace reached through its folder held open and confirmed: `path` names
 * that very entry (the name looked up in the held folder), `realOf` turns a path under it back
 * into the checked real path it stands for.
 */
export interface HeldEntry {
  path: string;
  realOf(held: string): string;
  close(): Promise<void>;
}

/** Holds the folder of the entry at the checked real path `real` open, confirmed (see `openCheckedFolder`). */
export async function holdEntry(context: FileContext, real: string): Promise<HeldEntry> {
  const folderReal = path.dirname(real);
  const folder = await openCheckedFolder(context, folderReal, context.workspace.relativeOf(folderReal));
  return {
    path: path.join(folder.path, path.basename(real)),
    realOf: (held) => path.join(folderReal, path.relative(folder.path, held)),
    close: folder.close,
  };
}

/** Opens the checked real path `real` (never through a link in its place) and confirms what it opened. */
async function openChecked(context: FileContext, real: string, relative: string, flags: number, through = real): Promise<{ handle: FileHandle; confirmed: boolean }> {
  let handle: FileHandle;
  try {
    handle = await context.fs.open(through, flags | CHECKED_OPEN);
  } catch (error) {
    // A folder opened without following a link fails with ENOTDIR, not ELOOP, on a link.
    if (errorCode(error) === "ENOTDIR" && (await lstatOrNothing(context, through))?.isSymbolicLink()) throw linkFound(context, relative);
    throw openFailure(context, error, relative);
  }
  try {
    return { handle, confirmed: confirmOpened(context, handle.fd, real, relative) };
  } catch (error) {
    await handle.close();
    throw error;
  }
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
 * Opens the regular file at the checked real path `real` for reading. Non-blocking open, then
 * checks on the open descriptor: that it is still the checked file (no link swapped in on the way)
 * and a regular one, so a FIFO or device swapped in never blocks or gets read.
 */
export async function openRegularFile(context: FileContext, real: string, relative: string): Promise<{ handle: FileHandle; stat: Stats; path: string }> {
  const { handle, confirmed } = await openChecked(context, real, relative, constants.O_RDONLY | constants.O_NONBLOCK);
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw notAFile(relative, stat);
  }
  // `path` reopens this very file (its descriptor's link) when it was confirmed.
  return { handle, stat, path: confirmed ? descriptorPath(handle.fd) : real };
}

/**
 * Reads a regular file whole with synchronous calls when it holds at most `limit` bytes (the
 * same non-blocking open and descriptor check as `openRegularFile`, except that a file this run
 * of reads confirmed before is known again by its stat: `Workspace.confirmOpenedFile`); undefined
 * for a larger file, which is then read in windows.
 */
export function readSmallRegularFile(context: FileContext, real: string, relative: string, limit: number): { content: Buffer; stat: Stats } | undefined {
  const sync = context.syncReads;
  let descriptor: number;
  try {
    descriptor = sync.openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | CHECKED_OPEN);
  } catch (error) {
    throw openFailure(context, error, relative);
  }
  try {
    const stat = sync.fstatSync(descriptor);
    // Confirmed before anything is said of the file: a swapped path gives its own error first.
    context.workspace.confirmOpenedFile(descriptor, real, relative, stat, sync.readlinkSync);
    if (!stat.isFile()) throw notAFile(relative, stat);
    if (stat.size > limit) return undefined;
    const content = Buffer.allocUnsafe(stat.size);
    let filled = 0;
    while (filled < content.length) {
      const bytesRead = sync.readSync(descriptor, content, filled, content.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    // A file that shrank while it was read is cut to what was read (one view more only then).
    return { content: filled === content.length ? content : content.subarray(0, filled), stat };
  } finally {
    sync.closeSync(descriptor);
  }
}

/** A failed open as an error a model can act on. */
function openFailure(context: FileContext, error: unknown, relative: string): unknown {
  const code = errorCode(error);
  if (code === "ENOENT" || code === "ENOTDIR") return notFound(relative);
  if (code === "EACCES" || code === "EPERM") return new ToolError("permission_denied", `${relative} cannot be read: permission denied.`);
  if (code === "ELOOP") return linkFound(context, relative);
  return error;
}

/** A link found where the checked path had none: the workspace changed, so what was remembered of it is dropped. */
function linkFound(context: FileContext, relative: string): ToolError {
  context.workspace.stateChanging();
  return linkPutInPlace(relative);
}

/** The error for a checked path (which had no link in it) found to be a link: swapped after the check. */
export function linkPutInPlace(relative: string): ToolError {
  return new ToolError(
    "stale_file",
    `${relative} changed while it was being used: a link was put in its place. Nothing was read or written.`,
    "Run the command again on the path as it is now.",
  );
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
    throw explained(input, error);
  }
}

/** What `explainFailure` turns `error` into: a ToolError as it is, a system error as a ToolError a model can act on. */
export function explained(input: string, error: unknown): ToolError {
  if (ToolError.isInstance(error)) return error;
  const reason = (error as Error).message ?? String(error);
  switch (errorCode(error)) {
    case "ENOENT":
    case "ENOTDIR":
      return new ToolError("not_found", `${input}: a path involved does not exist (${reason}).`, ["Check the paths with ", { action: "list" }, "."]);
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return new ToolError("permission_denied", `${input}: the file system refused access (${reason}).`, "Choose a path you may write, or fix its permissions with EXEC.");
    case "EEXIST":
      return new ToolError("already_exists", `${input}: the target already exists (${reason}).`, "Choose another target, or pass overwrite=true where offered.");
    case "ENOTEMPTY":
      return new ToolError("directory_not_empty", `${input}: the folder is not empty (${reason}).`);
    case "EISDIR":
      return new ToolError("not_a_file", `${input} is a directory (${reason}).`);
    case "ENOSPC":
    case "EDQUOT":
      return new ToolError("limit_reached", `${input}: the disk is full (${reason}); nothing was changed.`);
    default:
      return new ToolError("internal_error", `${input}: ${reason}`);
  }
}
