/**
 * Listing a folder (or its whole tree) the way git sees it: .gitignore respected, `.git`
 * hidden, folders marked with a trailing `/`, symlinks shown with their target, capped.
 */
import path from "node:path";
import type { Dirent } from "node:fs";
import fastGlob from "fast-glob";
import { ToolError } from "../errors.js";
import { confine, type FileContext } from "./context.js";
import { errorCode } from "./file-system.js";
import { IgnoreRules } from "./ignore-rules.js";

export const LIST_LIMIT = 1000;

export interface ListEntry {
  /** Workspace-relative path; folders end with `/`. */
  path: string;
  kind: "file" | "directory" | "symlink" | "other";
  /** Where a symlink points, as written in the link. */
  linkTarget?: string;
}

export interface ListResult {
  relative: string;
  entries: ListEntry[];
  /** True when more entries existed than the limit. */
  truncated: boolean;
  /** True when the folder itself is ignored by .gitignore, so its contents were listed without rules. */
  ignoredFolder: boolean;
}

/** A folder resolved for walking, with the rules that apply inside it. */
export async function openFolder(context: FileContext, input: string): Promise<{ absolute: string; relative: string; rules: IgnoreRules; ignoredFolder: boolean }> {
  const { absolute, relative } = await confine(context, input, "read");
  let stat;
  try {
    stat = await context.fs.stat(absolute);
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") {
      throw new ToolError("not_found", `${relative} does not exist.`, ["List the workspace root with ", { action: "list", arguments: { path: "." } }, " to see what is there."]);
    }
    throw error;
  }
  if (!stat.isDirectory()) {
    throw new ToolError("not_a_directory", `${relative} is a file, not a folder.`, [
      "Use ",
      { action: "read", arguments: { path: relative } },
      " or ",
      { action: "info", arguments: { path: relative } },
      ".",
    ]);
  }
  const root = context.workspace.root;
  const ignoredFolder = relative !== "." && (await new IgnoreRules(root, context.fs).isIgnored(absolute, true));
  return { absolute, relative, rules: new IgnoreRules(root, context.fs, !ignoredFolder), ignoredFolder };
}

/** Joins a folder's workspace-relative path and a path below it. */
export function joinRelative(folder: string, below: string): string {
  return folder === "." ? below : `${folder}/${below}`;
}

export async function listFolder(context: FileContext, input = ".", options: { recursive?: boolean; limit?: number } = {}): Promise<ListResult> {
  const limit = options.limit ?? LIST_LIMIT;
  const folder = await openFolder(context, input);
  const found: Array<{ path: string; dirent: Dirent }> = [];
  let truncated = false;
  const stream = fastGlob.stream(options.recursive ? "**" : "*", {
    cwd: folder.absolute,
    dot: true,
    onlyFiles: false,
    markDirectories: true,
    followSymbolicLinks: false,
    objectMode: true,
    suppressErrors: true,
    fs: folder.rules.fastGlobAdapter(),
  });
  for await (const entry of stream as AsyncIterable<{ path: string; dirent: Dirent }>) {
    if (context.workspace.isHidden(joinRelative(folder.relative, entry.path))) continue;
    if (found.length >= limit) {
      truncated = true;
      break;
    }
    found.push(entry);
  }
  found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const entries = await Promise.all(
    found.map(async ({ path: below, dirent }): Promise<ListEntry> => {
      const entryPath = joinRelative(folder.relative, below);
      if (dirent.isDirectory()) return { path: entryPath, kind: "directory" };
      if (dirent.isFile()) return { path: entryPath, kind: "file" };
      if (dirent.isSymbolicLink()) {
        const linkTarget = await context.fs.readlink(path.join(folder.absolute, below)).catch(() => "?");
        return { path: entryPath, kind: "symlink", linkTarget };
      }
      return { path: entryPath, kind: "other" };
    }),
  );
  return { relative: folder.relative, entries, truncated, ignoredFolder: folder.ignoredFolder };
}
