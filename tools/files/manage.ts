/**
 * Deleting, moving and copying paths, and describing one (info). Git's internals and clio's
 * state are never touched, not even as part of a folder being deleted or moved.
 */
import path from "node:path";
import { constants } from "node:fs";
import type { Stats } from "node:fs";
import { ToolError } from "../errors.js";
import { confine, kindOf, lstatOrNothing, notFound, openRegularFile, type FileContext } from "./context.js";
import { errorCode } from "./file-system.js";
import { countLines } from "./lines.js";
import { COUNT_LINES_UP_TO_BYTES } from "./read.js";
import { binaryType, SNIFF_BYTES } from "./text.js";
import { makeParents } from "./write.js";

export interface RemoveResult {
  relative: string;
  kind: string;
  /** Files removed (1 for a file or link). */
  files: number;
}

export interface TransferResult {
  from: string;
  to: string;
  kind: string;
  /** True when an existing target was replaced. */
  overwritten: boolean;
}

export interface InfoResult {
  relative: string;
  type: string;
  size: number;
  /** Last modification, ISO 8601. */
  modified: string;
  /** Permission bits as octal, e.g. `0644`. */
  mode: string;
  /** Lines of a text file (up to the counting limit). */
  lines?: number;
  /** A binary file's guessed type. */
  binary?: string;
  /** Where a symlink points, as written in the link. */
  linkTarget?: string;
}

/** Counts the files in a tree and throws if any entry in it is protected (`.git` below a folder being deleted or moved). */
async function surveyTree(context: FileContext, absolute: string): Promise<number> {
  let files = 0;
  const pending = [absolute];
  while (pending.length > 0) {
    const directory = pending.pop()!;
    for (const entry of await context.fs.readdir(directory, { withFileTypes: true })) {
      const child = path.join(directory, entry.name);
      if (context.workspace.isProtected(context.workspace.relativeOf(child))) {
        throw new ToolError(
          "protected_path",
          `${context.workspace.relativeOf(absolute)} contains ${context.workspace.relativeOf(child)}, which file commands never delete or move.`,
          "Leave repositories and clio's state alone, or use EXEC if you really mean it.",
        );
      }
      if (entry.isDirectory()) pending.push(child);
      else files++;
    }
  }
  return files;
}

/**
 * Throws if a folder about to be copied holds a FIFO, socket or device (git internals aside,
 * which are not copied): copying one would block, fill the disk or fail half-way.
 */
async function refuseSpecialFiles(context: FileContext, absolute: string): Promise<void> {
  const pending = [absolute];
  while (pending.length > 0) {
    const directory = pending.pop()!;
    for (const entry of await context.fs.readdir(directory, { withFileTypes: true })) {
      const child = path.join(directory, entry.name);
      if (context.workspace.isProtected(context.workspace.relativeOf(child))) continue;
      if (entry.isDirectory()) pending.push(child);
      else if (!entry.isFile() && !entry.isSymbolicLink()) {
        const what = kindOf(await context.fs.lstat(child));
        throw new ToolError(
          "not_a_file",
          `${context.workspace.relativeOf(absolute)} contains ${context.workspace.relativeOf(child)}, a ${what}; only folders of files, folders and links can be copied.`,
          "Copy the files you need one by one, or use EXEC if you really mean to copy it.",
        );
      }
    }
  }
}

function refuseRoot(relative: string, what: string): void {
  if (relative === ".") throw new ToolError("invalid_argument", `The workspace root itself cannot be ${what}.`, "Name a file or folder inside it.");
}

async function existing(context: FileContext, absolute: string, relative: string): Promise<Stats> {
  const stat = await lstatOrNothing(context, absolute);
  if (stat === undefined) throw notFound(relative);
  return stat;
}

export async function removePath(context: FileContext, input: string, recursive = false): Promise<RemoveResult> {
  const { absolute, relative } = await confine(context, input, "write");
  refuseRoot(relative, "deleted");
  const stat = await existing(context, absolute, relative);
  if (!stat.isDirectory()) {
    await context.fs.unlink(absolute);
    return { relative, kind: kindOf(stat), files: 1 };
  }
  if (!recursive) {
    throw new ToolError("not_a_file", `${relative} is a directory; deleting it takes recursive=true.`, [
      "Write ",
      { action: "delete", arguments: { path: relative, recursive: "true" } },
      " to delete it with everything inside.",
    ]);
  }
  const files = await surveyTree(context, absolute);
  await context.fs.rm(absolute, { recursive: true });
  return { relative, kind: "directory", files };
}

/** Checks a move or copy and returns both ends; `overwrite` allows replacing an existing file. */
async function prepareTransfer(context: FileContext, input: string, to: string, overwrite: boolean, verb: "moved" | "copied") {
  const source = await confine(context, input, verb === "moved" ? "write" : "read");
  refuseRoot(source.relative, verb);
  const sourceStat = await existing(context, source.absolute, source.relative);
  const target = await confine(context, to, "write");
  refuseRoot(target.relative, "overwritten");
  if (source.real === target.real) throw new ToolError("invalid_argument", `${source.relative} and ${target.relative} are the same path.`, "Give a different target in to.");
  if (sourceStat.isDirectory() && (target.real + path.sep).startsWith(source.real + path.sep)) {
    throw new ToolError("invalid_argument", `${target.relative} is inside ${source.relative}; a folder cannot be ${verb} into itself.`, "Choose a target outside the folder.");
  }
  const targetStat = await lstatOrNothing(context, target.absolute);
  if (targetStat !== undefined && (!overwrite || targetStat.isDirectory())) {
    throw new ToolError(
      "already_exists",
      `${target.relative} already exists (${kindOf(targetStat)}).`,
      targetStat.isDirectory()
        ? `Give the full new path, e.g. to="${target.relative}/${path.basename(source.relative)}".`
        : "Pass overwrite=true to replace it, or choose another target.",
    );
  }
  // overwrite replaces files only: opening a FIFO to copy onto it would block forever.
  const realTargetStat = targetStat === undefined ? undefined : await lstatOrNothing(context, target.real);
  if (realTargetStat !== undefined && !realTargetStat.isFile() && !realTargetStat.isSymbolicLink()) {
    throw new ToolError("not_a_file", `${target.relative} is a ${kindOf(realTargetStat)}; overwrite=true replaces files only.`, "Choose another target, or delete it first.");
  }
  await makeParents(context, target.absolute, target.relative);
  return { source, sourceStat, target, overwritten: targetStat !== undefined };
}

export async function movePath(context: FileContext, input: string, to: string, overwrite = false): Promise<TransferResult> {
  const { source, sourceStat, target, overwritten } = await prepareTransfer(context, input, to, overwrite, "moved");
  if (sourceStat.isDirectory()) await surveyTree(context, source.absolute);
  try {
    await context.fs.rename(source.absolute, target.absolute);
  } catch (error) {
    if (errorCode(error) !== "EXDEV") throw error;
    await context.fs.cp(source.absolute, target.absolute, { recursive: true, force: overwrite, errorOnExist: !overwrite, verbatimSymlinks: true });
    await context.fs.rm(source.absolute, { recursive: true });
  }
  return { from: source.relative, to: target.relative, kind: kindOf(sourceStat), overwritten };
}

export async function copyPath(context: FileContext, input: string, to: string, options: { recursive?: boolean; overwrite?: boolean } = {}): Promise<TransferResult> {
  const overwrite = options.overwrite ?? false;
  const { source, sourceStat, target, overwritten } = await prepareTransfer(context, input, to, overwrite, "copied");
  if (sourceStat.isDirectory()) {
    if (!options.recursive) {
      throw new ToolError("not_a_file", `${source.relative} is a directory; copying it takes recursive=true.`, [
        "Write ",
        { action: "copy", arguments: { path: source.relative, to: target.relative, recursive: "true" } },
        ".",
      ]);
    }
    await refuseSpecialFiles(context, source.absolute);
    await context.fs.cp(source.absolute, target.absolute, {
      recursive: true,
      errorOnExist: true,
      force: false,
      verbatimSymlinks: true,
      // Git internals and clio's state are not duplicated.
      filter: (from) => !context.workspace.isProtected(context.workspace.relativeOf(from)),
    });
  } else if (sourceStat.isFile() || sourceStat.isSymbolicLink()) {
    const { handle } = await openRegularFile(context, source.real, source.relative);
    await handle.close();
    await context.fs.copyFile(source.real, target.real, overwrite ? 0 : constants.COPYFILE_EXCL);
  } else {
    throw new ToolError("not_a_file", `${source.relative} is a ${kindOf(sourceStat)}; only files and folders can be copied.`);
  }
  return { from: source.relative, to: target.relative, kind: kindOf(sourceStat), overwritten };
}

export async function pathInfo(context: FileContext, input: string): Promise<InfoResult> {
  const { absolute, relative, real } = await confine(context, input, "read");
  const linkStat = await existing(context, absolute, relative);
  const linkTarget = linkStat.isSymbolicLink() ? await context.fs.readlink(absolute) : undefined;
  const pointedAt = linkStat.isSymbolicLink() ? await lstatOrNothing(context, real) : linkStat;
  const stat = pointedAt ?? linkStat;
  const info: InfoResult = {
    relative,
    type: linkTarget === undefined ? kindOf(stat) : pointedAt === undefined ? "symbolic link to a missing path" : `symbolic link to a ${kindOf(stat)}`,
    size: stat.size,
    modified: stat.mtime.toISOString(),
    mode: (stat.mode & 0o7777).toString(8).padStart(4, "0"),
    linkTarget,
  };
  if (!stat.isFile()) return info;
  const { handle } = await openRegularFile(context, real, relative);
  try {
    const head = Buffer.alloc(Math.min(SNIFF_BYTES, stat.size));
    await handle.read(head, 0, head.length, 0);
    info.binary = binaryType(head);
    if (info.binary === undefined) info.lines = await countLines(handle, COUNT_LINES_UP_TO_BYTES);
  } finally {
    await handle.close();
  }
  return info;
}
