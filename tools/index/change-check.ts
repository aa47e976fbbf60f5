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
 *
 * The stats are the check's cost (one a path, about 14,500 for a 13,000-file tree). A check can
 * begin on another thread while this one works (opens the index, answers a query from what is
 * stored) and is finished here: this thread then takes its share of the paths not yet stat'd.
 */
import { statSync } from "node:fs";
import path from "node:path";
import type { RecentChanges } from "./recent-changes.js";
import { STAT_BATCH, type StatThread, statClaimed } from "./stat-thread.js";
import type { SkippedFile, WalkedFile } from "./walk.js";

/** Mtimes this close to (or after) the start of the check that saw them are not trusted. */
export const RACY_MS = 2000;
/** Fewer paths than this are stat'd on this thread alone (handing a list to the other thread costs a few ms). */
export const THREAD_MIN_PATHS = 2000;

/** How long this thread waits for the other's last batches before stat'ing what is left itself. */
const WAIT_MS = 2000;

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

/** What a stat found of a path, the first of its three numbers (kind, size, mtime) in the results; `statClaimed` writes them as literals. */
const FOUND_FILE = 1;
/** A folder. */
const FOUND_FOLDER = 2;
/** Missing, or not reachable (a stat that failed). */
const FOUND_GONE = 4;

/** The stats of a list of paths, taken here and, when given a thread, there as well from when they begin. */
class PathStats {
  private readonly counters: Int32Array;
  readonly results: Float64Array;
  /** Paths this thread stat'd. */
  takenHere = 0;

  constructor(
    private readonly paths: string[],
    thread: StatThread | undefined,
  ) {
    this.counters = new Int32Array(thread ? new SharedArrayBuffer(8) : new ArrayBuffer(8));
    this.results = new Float64Array(thread ? new SharedArrayBuffer(24 * paths.length) : new ArrayBuffer(24 * paths.length));
    thread?.share(paths, this.counters, this.results);
  }

  /** Paths stat'd so far, on either thread. */
  get done(): number {
    return Atomics.load(this.counters, 1);
  }

  /** Takes what is left here, waits for the other thread's last batches, and returns kind, size and mtime per path. */
  finish(): Float64Array {
    this.takenHere += statClaimed(this.paths, this.counters, this.results, STAT_BATCH, statSync);
    const waitUntil = Date.now() + WAIT_MS;
    for (let done = Atomics.load(this.counters, 1); done < this.paths.length; done = Atomics.load(this.counters, 1)) {
      const left = waitUntil - Date.now();
      if (left <= 0) {
        // The other thread stopped within a batch: its paths are stat'd again here.
        for (let index = 0; index < this.paths.length; index++)
          if (this.results[3 * index] === 0) statClaimed([this.paths[index]!], new Int32Array(2), this.results.subarray(3 * index), 1, statSync);
        break;
      }
      Atomics.wait(this.counters, 1, done, left);
    }
    return this.results;
  }

  /** Leaves the other thread nothing more to claim (it stops after the batch it holds). */
  cancel(): void {
    Atomics.store(this.counters, 0, this.paths.length);
  }
}

/**
 * A change check: which indexed files may have changed since the last walk. `begin` plans it
 * and starts the stats; `finish` completes them here and judges.
 */
export class ChangeCheck {
  private constructor(
    private readonly times: ListingTimes,
    private readonly skipped: readonly SkippedFile[],
    private readonly known: { paths: string[]; sizes: number[]; mtimes: number[] },
    private readonly absolute: string[],
    private readonly stats: PathStats,
    private readonly recent: RecentChanges | undefined,
  ) {}

  /**
   * Plans the check of `root` against the listings in `times`, the indexed files and the
   * skipped ones, and starts the stats: by `recentFor` (a find of the paths changed since the
   * last check) when it gives one, else shared with the thread `threadFor` gives (both asked
   * only when there are `threadMinPaths` or more). Undefined when a full walk is needed anyway.
   */
  static begin(
    root: string,
    times: ListingTimes,
    known: KnownFiles,
    skipped: readonly SkippedFile[],
    threadFor: () => StatThread | undefined,
    threadMinPaths = THREAD_MIN_PATHS,
    recentFor: (paths: readonly string[], checkedAt: number) => RecentChanges | undefined = () => undefined,
  ): ChangeCheck | undefined {
    // The manifest is read as it is found on disk: a listing of another shape is not trusted.
    if (typeof times.checkedAt !== "number" || typeof times.mtimes !== "object" || times.mtimes === null || !Array.isArray(skipped)) return undefined;
    if (skipped.some((entry) => entry.reason === "unreadable")) return undefined;
    const looked = skipped.filter((entry) => entry.reason !== "symlink");
    // Walked paths are normalised and root-relative ("." for the root; walk.ts), so plain joining is path.join without its normalising pass.
    const prefix = root.endsWith(path.sep) ? root : root + path.sep;
    const separator = path.sep === "/" ? undefined : /\//g;
    const absoluteOf = (relative: string) => (relative === "." ? root : prefix + (separator === undefined ? relative : relative.replace(separator, path.sep)));
    const absolute = Object.keys(times.mtimes).map(absoluteOf);
    for (const entry of looked) absolute.push(absoluteOf(entry.path));
    const files = { paths: [] as string[], sizes: [] as number[], mtimes: [] as number[] };
    known.each((relative, size, mtimeMs) => {
      files.paths.push(relative);
      files.sizes.push(size);
      files.mtimes.push(mtimeMs);
      absolute.push(absoluteOf(relative));
      return true;
    });
    const many = absolute.length >= threadMinPaths;
    // A clock set back since the last check could give a later change an older ctime.
    const recent = many && Date.now() >= times.checkedAt ? recentFor(absolute, times.checkedAt) : undefined;
    return new ChangeCheck(times, looked, files, absolute, new PathStats(absolute, many && recent === undefined ? threadFor() : undefined), recent);
  }

  /** Stops the stats of a check that will not be finished. */
  cancel(): void {
    this.stats.cancel();
  }

  /** Resolves once the stats begun elsewhere (find's) are in: `finish` does not wait for them. */
  async ready(): Promise<void> {
    this.reported = await this.recent?.reported;
  }

  /** The paths find reported (`ready`); undefined before, or when find could not answer. */
  private reported: Set<string> | undefined;

  /**
   * Kind, size and mtime per path: stat'd here for the paths find reported and the skipped
   * files, and as the last check saw them for the others (whose ctime says nothing moved).
   */
  private resultsWithReport(reported: Set<string>): Float64Array {
    this.stats.cancel();
    const results = new Float64Array(3 * this.absolute.length);
    const statHere = (index: number) => {
      statClaimed([this.absolute[index]!], new Int32Array(2), results.subarray(3 * index), 1, statSync);
      this.stats.takenHere++;
    };
    let index = 0;
    for (const mtimeMs of Object.values(this.times.mtimes)) {
      if (reported.has(this.absolute[index]!)) statHere(index);
      else results.set([FOUND_FOLDER, 0, mtimeMs], 3 * index);
      index++;
    }
    for (let skipped = 0; skipped < this.skipped.length; skipped++) statHere(index++);
    const { sizes, mtimes } = this.known;
    for (let file = 0; file < sizes.length; file++, index++) {
      if (reported.has(this.absolute[index]!)) statHere(index);
      else {
        results[3 * index] = FOUND_FILE;
        results[3 * index + 1] = sizes[file]!;
        results[3 * index + 2] = mtimes[file]!;
      }
    }
    return results;
  }

  /** The indexed files that may have changed (size or mtime moved, or a racy mtime); undefined when a full walk is needed. */
  finish(maxFileBytes: number): WalkedFile[] | undefined {
    const results = this.reported === undefined ? this.stats.finish() : this.resultsWithReport(this.reported);
    const kind = (index: number) => results[3 * index]!;
    const size = (index: number) => results[3 * index + 1]!;
    const mtime = (index: number) => results[3 * index + 2]!;
    const { checkedAt, mtimes } = this.times;
    let index = 0;
    for (const mtimeMs of Object.values(mtimes)) {
      if (kind(index) === FOUND_GONE || mtime(index) !== mtimeMs || isRacy(mtimeMs, checkedAt)) return undefined;
      index++;
    }
    for (const entry of this.skipped) {
      if (kind(index) === FOUND_GONE) return undefined;
      if (entry.reason === "too_large" && size(index) <= maxFileBytes) return undefined;
      if (entry.reason === "binary" && (size(index) !== entry.size || mtime(index) !== entry.mtimeMs)) return undefined;
      index++;
    }
    const changed: WalkedFile[] = [];
    const { paths, sizes, mtimes: knownMtimes } = this.known;
    for (let file = 0; file < paths.length; file++, index++) {
      if (kind(index) !== FOUND_FILE || size(index) > maxFileBytes) return undefined;
      if (size(index) !== sizes[file] || mtime(index) !== knownMtimes[file] || isRacy(mtime(index), checkedAt)) {
        changed.push({ path: paths[file]!, absolute: this.absolute[index]!, size: size(index), mtimeMs: mtime(index) });
      }
    }
    return changed;
  }

  /** How many paths the check stats (listings, skipped files, indexed files). */
  get pathCount(): number {
    return this.absolute.length;
  }

  /** How many of them are stat'd so far, on either thread. */
  get statted(): number {
    return this.stats.done;
  }

  /** How many of them this thread stat'd (in `finish`). */
  get stattedHere(): number {
    return this.stats.takenHere;
  }
}

/** A check with the moment it began (mtimes after it are too recent to trust). */
export interface BegunCheck {
  check: ChangeCheck;
  checkedAt: number;
}

/**
 * A check of the whole workspace begun before the update that finishes it (a fresh process
 * answers from what is stored meanwhile), kept with the stamp of the index it was planned
 * against: an index changed since makes it worthless.
 */
export class CheckInAdvance {
  private begun: (BegunCheck & { stamp: number }) | undefined;

  /** A check planned by `plan` now, or undefined when `plan` finds a walk needed anyway. */
  static now(plan: () => ChangeCheck | undefined): BegunCheck | undefined {
    const checkedAt = Date.now();
    const check = plan();
    return check === undefined ? undefined : { check, checkedAt };
  }

  /** Begins a check (dropping one begun before); `stamp` marks the index as it is now. */
  begin(plan: () => ChangeCheck | undefined, stamp: number): void {
    this.cancel();
    const begun = CheckInAdvance.now(plan);
    this.begun = begun === undefined ? undefined : { ...begun, stamp };
  }

  /** Drops the begun check; returns undefined. */
  cancel(): undefined {
    this.begun?.check.cancel();
    this.begun = undefined;
    return undefined;
  }

  /** Takes the begun check when the index is still as `stamp` marks it; otherwise drops it. */
  take(stamp: number): BegunCheck | undefined {
    const begun = this.begun;
    this.begun = undefined;
    if (begun?.stamp === stamp) return begun;
    begun?.check.cancel();
    return undefined;
  }
}

/**
 * The indexed files that may have changed (size or mtime moved, or a racy mtime), when the
 * listings are as `times` recorded; undefined when a full walk is needed. Stats on this thread.
 */
export function changedKnownFiles(root: string, times: ListingTimes, known: KnownFiles, skipped: readonly SkippedFile[], maxFileBytes: number): WalkedFile[] | undefined {
  return ChangeCheck.begin(root, times, known, skipped, () => undefined)?.finish(maxFileBytes);
}
