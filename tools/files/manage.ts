/**
 * Deleting, moving and copying paths, and describing one (info). Git's internals and clio's
 * state are never touched, not even as part of a folder being deleted or moved.
 */
import path from "node:path";
import { constants } from "node:fs";
import type { Stats } from "node:fs";
import { ToolError } from "../errors.js";
import type { ResolvedPath } from "../workspace.js";
import { confine, type HeldEntry, holdEntry, kindOf, lstatOrNothing, notFound, openCheckedFolder, openRegularFile, type FileContext } from "./context.js";
import { errorCode } from "./file-system.js";
import { countLines } from "./lines.js";
import { COUNT_LINES_UP_TO_BYTES } from "./read.js";
import { binaryType, SNIFF_BYTES } from "./text.js";
import { makeParents, replaceThroughTemporary } from "./write.js";

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
async function surveyTree(context: FileContext, held: HeldEntry): Promise<number> {
  let files = 0;
  const pending = [held.path];
  while (pending.length > 0) {
    const directory = pending.pop()!;
    for (const entry of await context.fs.readdir(directory, { withFileTypes: true })) {
      const child = path.join(directory, entry.name);
      const relative = context.workspace.relativeOf(held.realOf(child));
      if (context.workspace.isProtected(relative)) {
        throw new ToolError(
          "protected_path",
          `${context.workspace.relativeOf(held.realOf(held.path))} contains ${relative}, which file commands never delete or move.`,
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
async function refuseSpecialFiles(context: FileContext, held: HeldEntry): Promise<void> {
  const pending = [held.path];
  while (pending.length > 0) {
    const directory = pending.pop()!;
    for (const entry of await context.fs.readdir(directory, { withFileTypes: true })) {
      const child = path.join(directory, entry.name);
      const relative = context.workspace.relativeOf(held.realOf(child));
      if (context.workspace.isProtected(relative)) continue;
      if (entry.isDirectory()) pending.push(child);
      else if (!entry.isFile() && !entry.isSymbolicLink()) {
        const what = kindOf(await context.fs.lstat(child));
        throw new ToolError(
          "not_a_file",
          `${context.workspace.relativeOf(held.realOf(held.path))} contains ${relative}, a ${what}; only folders of files, folders and links can be copied.`,
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

/**
 * The checked real path of the entry `resolved` names itself, a link at its end not followed:
 * its own real path, or for a link the real path of the folder holding it plus its name.
 */
async function entryReal(context: FileContext, resolved: ResolvedPath, stat: Stats | undefined): Promise<string> {
  if (stat === undefined || !stat.isSymbolicLink()) return resolved.real;
  const folder = await context.fs.realpath(path.dirname(resolved.absolute));
  if (!context.workspace.contains(folder)) {
    throw new ToolError(
      "outside_workspace",
      `${resolved.relative} is a link in ${folder}, which is outside the workspace ${context.workspace.root}.`,
      "Only paths whose real location is inside the workspace can be used.",
    );
  }
  return path.join(folder, path.basename(resolved.absolute));
}

/** Runs `operation` on `real` reached through its folder held open and confirmed (see `holdEntry`). */
async function throughHeld<Value>(context: FileContext, real: string, operation: (held: HeldEntry) => Promise<Value>): Promise<Value> {
  const held = await holdEntry(context, real);
  try {
    return await operation(held);
  } finally {
    await held.close();
  }
}

export async function removePath(context: FileContext, input: string, recursive = false): Promise<RemoveResult> {
  const resolved = await confine(context, input, "write");
  const { absolute, relative } = resolved;
  refuseRoot(relative, "deleted");
  const stat = await existing(context, absolute, relative);
  if (!stat.isDirectory()) {
    await throughHeld(context, await entryReal(context, resolved, stat), (held) => context.fs.unlink(held.path));
    return { relative, kind: kindOf(stat), files: 1 };
  }
  if (!recursive) {
    throw new ToolError("not_a_file", `${relative} is a directory; deleting it takes recursive=true.`, [
      "Write ",
      { action: "delete", arguments: { path: relative, recursive: "true" } },
      " to delete it with everything inside.",
    ]);
  }
  const files = await throughHeld(context, resolved.real, async (held) => {
    const count = await surveyTree(context, held);
    await context.fs.rm(held.path, { recursive: true });
    return count;
  });
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
  await makeParents(context, target.real, target.relative);
  return { source, sourceStat, target, targetStat, overwritten: targetStat !== undefined };
}

export async function movePath(context: FileContext, input: string, to: string, overwrite = false): Promise<TransferResult> {
  const { source, sourceStat, target, targetStat, overwritten } = await prepareTransfer(context, input, to, overwrite, "moved");
  const targetReal = await entryReal(context, target, targetStat);
  await throughHeld(context, await entryReal(context, source, sourceStat), async (from) => {
    if (sourceStat.isDirectory()) await surveyTree(context, from);
    await throughHeld(context, targetReal, async (into) => {
      try {
        await context.fs.rename(from.path, into.path);
      } catch (error) {
        if (errorCode(error) !== "EXDEV") throw error;
        await context.fs.cp(from.path, into.path, { recursive: true, force: overwrite, errorOnExist: !overwrite, verbatimSymlinks: true });
        await context.fs.rm(from.path, { recursive: true });
      }
    });
  });
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
    await throughHeld(context, source.real, async (from) => {
      await refuseSpecialFiles(context, from);
      await throughHeld(context, target.real, async (into) => {
        // The target folder is made here and confirmed, so the copy lands in it even if a link is put in its place.
        await context.fs.mkdir(into.path);
        const made = await openCheckedFolder(context, target.real, target.relative, into.path);
        try {
          // Entry by entry, so each lands under the confirmed folder's descriptor (cp refuses a link as its target).
          for (const name of await context.fs.readdir(from.path)) {
            await context.fs.cp(path.join(from.path, name), path.join(made.path, name), {
              recursive: true,
              errorOnExist: true,
              force: false,
              verbatimSymlinks: true,
              // Git internals and clio's state are not duplicated.
              filter: (source) => !context.workspace.isProtected(context.workspace.relativeOf(from.realOf(source))),
            });
          }
          await context.fs.chmod(made.path, sourceStat.mode & 0o7777);
        } finally {
          await made.close();
        }
      });
    });
  } else if (sourceStat.isFile() || sourceStat.isSymbolicLink()) {
    // Copied from the open, confirmed file, so no link swapped in its place is followed.
    const opened = await openRegularFile(context, source.real, source.relative);
    try {
      if (overwrite) await replaceThroughTemporary(context, target.real, (temporary) => context.fs.copyFile(opened.path, temporary, constants.COPYFILE_EXCL));
      else await throughHeld(context, target.real, (into) => context.fs.copyFile(opened.path, into.path, constants.COPYFILE_EXCL));
    } finally {
      await opened.handle.close();
    }
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
