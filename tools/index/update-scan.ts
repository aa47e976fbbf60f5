/**
 * The first step of an index update: which files to read. When the listings are as the last walk
 * of the whole workspace left them (change-check.ts), only the indexed files are looked at (a stat
 * each); otherwise the folder is walked, and files are queued for analysis as the walk finds them
 * (new ones, those whose size or mtime moved, and those whose mtime is too recent to trust).
 */
import type { Dirent } from "node:fs";
import { ChangeCheck, isRacy, type KnownFile, type KnownFiles, type ListingTimes } from "./change-check.js";
import { FileQueue } from "./file-queue.js";
import type { IndexManifest } from "./store.js";
import { DEFAULT_MAX_FILE_BYTES, walkFiles, type SkippedFile, type WalkedFile } from "./walk.js";

/** A known file, with the hash the index holds for it. */
export interface KnownEntry extends KnownFile {
  hash: string;
}

/** The files the index holds: by path, or all of them without an object per file. */
export interface KnownIndex extends KnownFiles {
  get(path: string): KnownEntry | undefined;
}

export interface ScanOptions {
  maxFileBytes?: number;
  hidden?: (relative: string) => boolean;
  /** A check of the whole workspace begun earlier (`ChangeCheck.begin` with the same index and manifest), finished here instead of a new one. */
  begun?: ChangeCheck;
}

export interface Scan {
  /** Files to read and analyse (filled as a walk finds them). */
  queue: FileQueue;
  /**
   * Resolves when the scan is over: the files present in its scope (undefined when the listings
   * had not moved, so none was removed), the files it skipped, and the listings to remember
   * (undefined when the scan did not walk the whole workspace).
   */
  finished: Promise<{ present: WalkedFile[] | undefined; skipped: SkippedFile[]; listing: ListingTimes | undefined }>;
  /** Binary files skipped last time and unchanged since (not read again). */
  carriedBinary: SkippedFile[];
}

/**
 * Scans `start` (absolute, inside `root`) against what the index holds (`known`, and the
 * manifest's skipped files and listings); `checkedAt` is when the update (or the check it
 * finishes) began.
 */
export function scanForChanges(root: string, start: string, known: KnownIndex, manifest: IndexManifest, checkedAt: number, options: ScanOptions): Scan {
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const listing = manifest.listing;
  if (start === root && listing !== undefined) {
    const changed = (options.begun ?? ChangeCheck.begin(root, listing, known, manifest.skipped, () => undefined))?.finish(maxFileBytes);
    if (changed !== undefined) {
      const queue = FileQueue.of(changed.map((file) => ({ ...file, knownHash: known.get(file.path)?.hash })));
      const finished = Promise.resolve({ present: undefined, skipped: manifest.skipped, listing: listingOf(checkedAt, listing.mtimes, listing.names ?? {}) });
      return { queue, finished, carriedBinary: [] };
    }
  }
  return walkIntoQueue(root, start, known, manifest, checkedAt, options);
}

/** Walks `start`, queuing the files to analyse as they are found, and carrying over binary files skipped last time and unchanged since. */
function walkIntoQueue(root: string, start: string, known: KnownIndex, manifest: IndexManifest, checkedAt: number, options: ScanOptions): Scan {
  const knownBinary = new Map(manifest.skipped.filter((entry) => entry.reason === "binary").map((entry) => [entry.path, entry]));
  const lastCheck = manifest.listing?.checkedAt ?? manifest.updatedAt;
  const carriedBinary: SkippedFile[] = [];
  const queue = new FileQueue();
  const mtimes: Record<string, number> = {};
  const names: Record<string, string[]> = {};
  const walking = walkFiles(root, start, {
    ...options,
    ...(start === root
      ? {
          onListing: (relative: string, mtimeMs: number) => (mtimes[relative] = mtimeMs),
          // A folder whose mtime cannot be trusted yet: the next check lists it again and compares (change-check.ts).
          onEntries: (relative: string, entries: readonly Dirent[]) => {
            if (isRacy(mtimes[relative]!, checkedAt)) names[relative] = entries.map((entry) => entry.name);
          },
        }
      : {}),
    onFiles: (found) => {
      for (const file of found) {
        const binary = knownBinary.get(file.path);
        if (binary !== undefined && binary.size === file.size && binary.mtimeMs === file.mtimeMs) {
          carriedBinary.push({ ...binary, detail: "contains NUL bytes (unchanged since the last index)" });
          continue;
        }
        const entry = known.get(file.path);
        if (entry === undefined || entry.size !== file.size || entry.mtimeMs !== file.mtimeMs || isRacy(file.mtimeMs, lastCheck)) queue.push({ ...file, knownHash: entry?.hash });
      }
    },
  });
  walking.then(
    () => queue.end(),
    () => queue.end(),
  );
  const finished = walking.then(({ files, skipped }) => ({ present: files, skipped, listing: start === root ? listingOf(checkedAt, mtimes, names) : undefined }));
  return { queue, finished, carriedBinary };
}

/** A listing as of `checkedAt`, with the names of the folders whose mtime is too recent to trust against it. */
function listingOf(checkedAt: number, mtimes: Record<string, number>, names: Record<string, string[]>): ListingTimes {
  const racy = Object.entries(names).filter(([relative]) => isRacy(mtimes[relative]!, checkedAt));
  return racy.length === 0 ? { checkedAt, mtimes } : { checkedAt, mtimes, names: Object.fromEntries(racy) };
}
