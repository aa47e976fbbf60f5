/**
 * Finding what changed since the last walk without walking again, in the manner of git's
 * untracked cache. A walk records the mtime of every folder it lists and of every .gitignore it
 * reads: while none of those moved, no file was added, removed or renamed and the ignore rules
 * are the same, so the files to look at are the indexed ones, and a stat of each says which
 * changed. Anything else (a folder or .gitignore that moved or is gone, a skipped file that
 * changed, an unreadable one) sends the update back to a full walk.
 *
 * Timestamps have a coarse grain (a file written twice within one tick keeps its mtime), so a
 * path whose mtime lies within `RACY_MS` of the moment the last check began is not trusted: a
 * folder is listed again (by a full walk), an indexed file is read again and its hash compared
 * (a binary file is carried over on its size and mtime alone, as before).
 */
import { statSync } from "node:fs";
import path from "node:path";
import type { SkippedFile, WalkedFile } from "./walk.js";

/** Mtimes this close to (or after) the start of the check that saw them are not trusted. */
export const RACY_MS = 2000;

/** What a full walk saw of the listings: when its check began, and the mtime of each folder and .gitignore by root-relative path ("." for the root). */
export interface ListingTimes {
  checkedAt: number;
  mtimes: Record<string, number>;
}

/** A file the index holds, as its last check saw it. */
export interface KnownFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** The files the index holds, visited without an object per file. */
export interface KnownFiles {
  /** Calls `visit` with each file's path, size and mtime as its last check saw them; stops when `visit` returns false. */
  each(visit: (path: string, size: number, mtimeMs: number) => boolean): void;
}

/** True when a mtime seen by a check that began at `checkedAt` cannot be trusted to change with the content. */
export function isRacy(mtimeMs: number, checkedAt: number): boolean {
  return mtimeMs >= checkedAt - RACY_MS;
}

/**
 * The indexed files that may have changed (size or mtime moved, or a racy mtime), when the
 * listings are as `times` recorded; undefined when a full walk is needed.
 */
export function changedKnownFiles(root: string, times: ListingTimes, known: KnownFiles, skipped: readonly SkippedFile[], maxFileBytes: number): WalkedFile[] | undefined {
  // The manifest is read as it is found on disk: a listing of another shape is not trusted.
  if (typeof times.checkedAt !== "number" || typeof times.mtimes !== "object" || times.mtimes === null || !Array.isArray(skipped)) return undefined;
  for (const [relative, mtimeMs] of Object.entries(times.mtimes)) {
    const seen = statSync(path.join(root, relative), { throwIfNoEntry: false });
    if (seen === undefined || seen.mtimeMs !== mtimeMs || isRacy(mtimeMs, times.checkedAt)) return undefined;
  }
  for (const entry of skipped) {
    if (entry.reason === "symlink") continue;
    if (entry.reason === "unreadable") return undefined;
    const seen = statSync(path.join(root, entry.path), { throwIfNoEntry: false });
    if (seen === undefined) return undefined;
    if (entry.reason === "too_large" && seen.size <= maxFileBytes) return undefined;
    if (entry.reason === "binary" && (seen.size !== entry.size || seen.mtimeMs !== entry.mtimeMs)) return undefined;
  }
  const changed: WalkedFile[] = [];
  // Indexed paths are normalised and root-relative (walk.ts), so plain joining is path.join without its normalising pass.
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  const separator = path.sep === "/" ? undefined : /\//g;
  let walkNeeded = false;
  known.each((relative, size, mtimeMs) => {
    const absolute = prefix + (separator === undefined ? relative : relative.replace(separator, path.sep));
    const seen = statSync(absolute, { throwIfNoEntry: false });
    if (seen === undefined || !seen.isFile() || seen.size > maxFileBytes) {
      walkNeeded = true;
      return false;
    }
    if (seen.size !== size || seen.mtimeMs !== mtimeMs || isRacy(seen.mtimeMs, times.checkedAt)) changed.push({ path: relative, absolute, size: seen.size, mtimeMs: seen.mtimeMs });
    return true;
  });
  return walkNeeded ? undefined : changed;
}
