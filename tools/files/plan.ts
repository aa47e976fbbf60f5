/**
 * What a file action would change, worked out without changing anything: the old and new text
 * of every file involved, for the permission question's diff and for undo checkpoints.
 */
import path from "node:path";
import { confine, lstatOrNothing, notAFile, notFound, openRegularFile, type FileContext } from "./context.js";
import { planReplacement } from "./replace.js";
import { binaryType, SNIFF_BYTES } from "./text.js";

/** One file's text before and after (null: absent); `unknown` says why the text is not given. */
export interface FileChangePlan {
  path: string;
  before: string | null;
  after: string | null;
  unknown?: string;
}

/** Files larger than this are named in a preview but their text is not read. */
export const PREVIEW_MAX_BYTES = 4 * 1024 * 1024;
/** Files of a folder being deleted or moved that a preview lists. */
const PREVIEW_MAX_FILES = 200;

type FileText = { text: string } | { unknown: string };

/** A regular file's text, or why it cannot be shown; undefined when it does not exist. */
export async function currentText(context: FileContext, real: string, relative: string): Promise<FileText | undefined> {
  const stat = await lstatOrNothing(context, real);
  if (stat === undefined) return undefined;
  if (!stat.isFile()) return { unknown: stat.isDirectory() ? "a folder" : "not a regular file" };
  if (stat.size > PREVIEW_MAX_BYTES) return { unknown: "too large" };
  const { handle } = await openRegularFile(context, real, relative);
  try {
    const bytes = await handle.readFile();
    if (binaryType(bytes.subarray(0, SNIFF_BYTES)) !== undefined) return { unknown: "binary" };
    return { text: bytes.toString("utf8") };
  } finally {
    await handle.close();
  }
}

function change(relative: string, before: FileText | undefined, after: FileText | undefined): FileChangePlan {
  const unknown = (before && "unknown" in before ? before.unknown : undefined) ?? (after && "unknown" in after ? after.unknown : undefined);
  if (unknown !== undefined) return { path: relative, before: null, after: null, unknown };
  const text = (side: FileText | undefined) => (side && "text" in side ? side.text : null);
  return { path: relative, before: text(before), after: text(after) };
}

export async function planWrite(context: FileContext, input: string, content: string): Promise<FileChangePlan[]> {
  const { relative, real } = await confine(context, input, "write");
  const before = await currentText(context, real, relative);
  return [change(relative, before, { text: content })];
}

export async function planReplace(context: FileContext, input: string, old: string, replacement: string, all: boolean): Promise<FileChangePlan[]> {
  const planned = await planReplacement(context, input, old, replacement, all);
  return [{ path: planned.relative, before: planned.text, after: planned.updated }];
}

export async function planRemove(context: FileContext, input: string): Promise<FileChangePlan[]> {
  const { relative, real } = await confine(context, input, "write");
  const files = await filesUnder(context, real, relative);
  return Promise.all(files.map(async (file) => change(file.relative, await currentText(context, file.real, file.relative), undefined)));
}

/** A move (or, with `keepSource`, a copy): the source files go, the target files get their text. */
export async function planMove(context: FileContext, input: string, to: string, keepSource = false): Promise<FileChangePlan[]> {
  const source = await confine(context, input, "write");
  const target = await confine(context, to, "write");
  const files = await filesUnder(context, source.real, source.relative);
  const changes: FileChangePlan[] = [];
  for (const file of files) {
    const moved = await currentText(context, file.real, file.relative);
    const inside = path.relative(source.real, file.real);
    const destination = inside ? path.posix.join(target.relative, inside.split(path.sep).join("/")) : target.relative;
    const destinationReal = inside ? path.join(target.real, inside) : target.real;
    if (!keepSource) changes.push(change(file.relative, moved, undefined));
    changes.push(change(destination, await currentText(context, destinationReal, destination), moved));
  }
  return changes;
}

/** The regular files at `real` (itself, or those in the folder), up to the preview's limit. */
async function filesUnder(context: FileContext, real: string, relative: string): Promise<{ real: string; relative: string }[]> {
  const stat = await lstatOrNothing(context, real);
  if (stat === undefined) throw notFound(relative);
  if (!stat.isDirectory()) {
    if (stat.isSymbolicLink() || stat.isFile()) return [{ real, relative }];
    throw notAFile(relative, stat);
  }
  const files: { real: string; relative: string }[] = [];
  const pending = [real];
  while (pending.length > 0 && files.length < PREVIEW_MAX_FILES) {
    const directory = pending.pop()!;
    for (const entry of await context.fs.readdir(directory, { withFileTypes: true })) {
      const child = path.join(directory, entry.name);
      if (entry.isDirectory()) pending.push(child);
      else files.push({ real: child, relative: context.workspace.relativeOf(child) });
      if (files.length >= PREVIEW_MAX_FILES) break;
    }
  }
  return files.sort((left, right) => left.relative.localeCompare(right.relative));
}
