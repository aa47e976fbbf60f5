/**
 * Text the model reads for git results, and parsing of the `files` parameter.
 */
import { ToolError } from "../errors.js";
import type { StatusEntry } from "./status.js";

/** A path as git's porcelain shows it: C-quoted when it holds spaces, quotes, backslashes or control characters. */
export function quotePath(file: string): string {
  return /[\s"\\\x00-\x1f\x7f]/.test(file) ? cQuote(file) : file;
}

const C_ESCAPES: Record<string, string> = { "\x07": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\" };

/** git's C-style quoting: `"…"` with \t, \n, \", \\ and octal escapes for other control characters; UTF-8 as is (core.quotePath=false). */
export function cQuote(text: string): string {
  return `"${text.replace(/["\\\x00-\x1f\x7f]/g, (character) => C_ESCAPES[character] ?? `\\${character.charCodeAt(0).toString(8).padStart(3, "0")}`)}"`;
}

/** One `git status --porcelain` line. */
export function porcelainLine(entry: StatusEntry): string {
  const target = entry.from ? `${quotePath(entry.from)} -> ${quotePath(entry.path)}` : quotePath(entry.path);
  return `${entry.index}${entry.worktree} ${target}`;
}

/** Status entries grouped the way a person reads them. */
export function groupStatus(entries: readonly StatusEntry[]) {
  const names: Record<string, string> = { M: "modified", A: "added", D: "deleted", R: "renamed", T: "typechange", U: "unmerged" };
  const conflicted = entries.filter((entry) => entry.unmerged).map((entry) => entry.path);
  const staged = entries
    .filter((entry) => !entry.unmerged && entry.index !== " " && entry.index !== "?")
    .map((entry) => ({ path: entry.path, change: names[entry.index]!, ...(entry.from ? { from: entry.from } : {}) }));
  const unstaged = entries
    .filter((entry) => !entry.unmerged && entry.worktree !== " " && entry.worktree !== "?")
    .map((entry) => ({ path: entry.path, change: names[entry.worktree]! }));
  const untracked = entries.filter((entry) => entry.index === "?").map((entry) => entry.path);
  return { conflicted, staged, unstaged, untracked };
}

/**
 * The `files` parameter: one path per line, or a JSON array of strings. Blank lines are
 * skipped and each line is trimmed (a path with leading or trailing spaces needs the JSON form).
 */
export function parseFileList(text: string): string[] {
  const trimmed = text.trim();
  let files: string[];
  if (trimmed.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      throw new ToolError(
        "invalid_argument",
        "files starts with [ but is not a valid JSON list.",
        'Write files="a.txt" (one path per line) or files="[\\"a.txt\\", \\"b c.txt\\"]".',
      );
    }
    if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === "string")) {
      throw new ToolError("invalid_argument", "files as JSON must be a list of path strings.", 'e.g. files="[\\"src/a.ts\\", \\"README.md\\"]".');
    }
    files = parsed;
  } else {
    files = trimmed.split(/\r?\n/).map((line) => line.trim());
  }
  files = files.filter((file) => file !== "");
  if (files.length === 0) {
    throw new ToolError("invalid_argument", "files names no path.", 'Give one or more paths, one per line: files="src/a.ts".');
  }
  return files;
}

/** A test for "equal to or inside one of `roots`" (repository-relative; "." is everything). */
export function pathFilter(roots: readonly string[]): (file: string) => boolean {
  const cleaned = roots.map((root) => root.replace(/\/+$/, ""));
  return (file) => cleaned.some((root) => root === "." || root === "" || file === root || file.startsWith(`${root}/`));
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

export function shortOid(oid: string): string {
  return oid.slice(0, 7);
}
