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
 * The stats are the check's cost (one a path, about 14,500 for a 13,000-file tree). Where find(1)
 * can say which paths' ctime moved since the last check (recent-changes.ts), only those are
 * stat'd here. Otherwise a check can begin on another thread while this one works (opens the
 * index, answers a query from what is stored) and is finished here: this thread then takes its
 * share of the paths not yet stat'd.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { holdsTheSameNames } from "./folder-names.js";
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
  /**
   * The entries' names, as listed, of each folder whose mtime was too recent to trust against
   * `checkedAt` (`isRacy`): a check lists such a folder again, once its mtime is old enough,
   * and trusts it if the names are the same (creating `.clio/` in the root makes the root one).
   */
  names?: Record<string, string[]>;
}

/** A file the index holds, as its last check saw it. */
export interface KnownFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** The files the index holds, visited without an object per file. */
export interface KnownFiles {
  /** How many files. */
  readonly size: number;
  /** One file's size and mtime as its last check saw them. */
  recorded(path: string): { size: number; mtimeMs: number } | undefined;
  /** At least the largest size and the latest mtime of any file. */
  bounds(): { size: number; mtimeMs: number };
  /** Calls `visit` with each file's path, size and mtime as its last check saw them; stops when `visit` returns false. */
  each(visit: (path: string, size: number, mtimeMs: number) => boolean): void;
  /** `each` for the files larger than `size` or with a mtime at or after `mtimeMs` only. */
  eachBeyond(size: number, mtimeMs: number, visit: (path: string, size: number, mtimeMs: number) => boolean): void;
}

/** True when a mtime seen by a check that began at `checkedAt` cannot be trusted to change with the content. */
export function isRacy(mtimeMs: number, checkedAt: number): boolean {
  return mtimeMs >= checkedAt - RACY_MS;
}

/**
 * True when a ctime after `times.checkedAt` (less `RACY_MS`) can tell what changed since that
 * check: not when the clock reads earlier than the check began (set back since, a later change
 * could carry an older ctime).
 */
function trustsCtimes(times: ListingTimes): boolean {
  return typeof times.checkedAt === "number" && Date.now() >= times.checkedAt;
}

/**
 * Whether a check of `paths` paths against `times` asks find(1) what changed: enough paths to be
 * worth another process, and ctimes that can tell. The one rule for a check and for the find
 * started early, as the manifest is read (check-helpers.ts).
 */
export function asksFind(times: ListingTimes, paths: number, threadMinPaths = THREAD_MIN_PATHS): boolean {
  return paths >= threadMinPaths && trustsCtimes(times);
}

/** What a stat found of a path, the first of its three numbers (kind, size, mtime) in the results; `statClaimed` writes them as literals. */
const FOUND_FILE = 1;
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

/** Every path of a check planned for stats here (and on the thread): listings, skipped files, indexed files. */
interface AllPaths {
  files: { paths: string[]; sizes: number[]; mtimes: number[] };
  absolute: string[];
  stats: PathStats;
}

/**
 * A change check: which indexed files may have changed since the last walk. `begin` plans it
 * and starts the stats; `ready` waits for find's answer, if find was asked; `finish` completes
 * the stats here and judges.
 */
export class ChangeCheck {
  /** The paths find reported (`ready`); undefined before, or when find could not answer. */
  private reported: Set<string> | undefined;

  private constructor(
    private readonly times: ListingTimes,
    /** The listed folders (the keys of `times.mtimes`). */
    private readonly listed: readonly string[],
    private readonly skipped: readonly SkippedFile[],
    private readonly known: KnownFiles,
    private readonly absoluteOf: (relative: string) => string,
    private readonly recent: RecentChanges | undefined,
    /** Planned at once without find, and only if find cannot answer with it. */
    private all: AllPaths | undefined,
  ) {}

  /**
   * Plans the check of `root` against the listings in `times`, the indexed files and the
   * skipped ones, and starts the stats: by `recentFor` (a find, in the listed folders, of what
   * changed since the last check) when it gives one, else shared with the thread `threadFor`
   * gives (both asked only when there are `threadMinPaths` paths or more). Undefined when a full
   * walk is needed anyway.
   */
  static begin(
    root: string,
    times: ListingTimes,
    known: KnownFiles,
    skipped: readonly SkippedFile[],
    threadFor: () => StatThread | undefined,
    threadMinPaths = THREAD_MIN_PATHS,
    recentFor: (listed: readonly string[], checkedAt: number) => RecentChanges | undefined = () => undefined,
  ): ChangeCheck | undefined {
    // The manifest is read as it is found on disk: a listing of another shape is not trusted.
    if (typeof times.checkedAt !== "number" || typeof times.mtimes !== "object" || times.mtimes === null || !Array.isArray(skipped)) return undefined;
    if (skipped.some((entry) => entry.reason === "unreadable")) return undefined;
    const looked = skipped.filter((entry) => entry.reason !== "symlink");
    // Walked paths are normalised and root-relative ("." for the root; walk.ts), so plain joining is path.join without its normalising pass.
    const prefix = root.endsWith(path.sep) ? root : root + path.sep;
    const separator = path.sep === "/" ? undefined : /\//g;
    const absoluteOf = (relative: string) => (relative === "." ? root : prefix + (separator === undefined ? relative : relative.replace(separator, path.sep)));
    const listed = Object.keys(times.mtimes);
    const paths = listed.length + looked.length + known.size;
    const recent = asksFind(times, paths, threadMinPaths) ? recentFor(listed, times.checkedAt) : undefined;
    const check = new ChangeCheck(times, listed, looked, known, absoluteOf, recent, undefined);
    if (recent === undefined) check.all = check.planAll(paths >= threadMinPaths ? threadFor() : undefined);
    return check;
  }

  /** Lists every path for stats here, and on `thread` from now on. */
  private planAll(thread: StatThread | undefined): AllPaths {
    const absolute = this.listed.map(this.absoluteOf);
    for (const entry of this.skipped) absolute.push(this.absoluteOf(entry.path));
    const files = { paths: [] as string[], sizes: [] as number[], mtimes: [] as number[] };
    this.known.each((relative, size, mtimeMs) => {
      files.paths.push(relative);
      files.sizes.push(size);
      files.mtimes.push(mtimeMs);
      absolute.push(this.absoluteOf(relative));
      return true;
    });
    return { files, absolute, stats: new PathStats(absolute, thread) };
  }

  /** Stops the stats of a check that will not be finished. */
  cancel(): void {
    this.all?.stats.cancel();
  }

  /** When the find this check uses began (undefined without one). */
  get findStartedAt(): number | undefined {
    return this.recent?.startedAt;
  }

  /** How many paths find reported (undefined before it answered, or without it). */
  get reportedCount(): number | undefined {
    return this.reported?.size;
  }

  /** Resolves once find has answered, when it was asked: `finish` does not wait for it. */
  async ready(): Promise<void> {
    this.reported = await this.recent?.reported;
  }

  /** The indexed files that may have changed (size or mtime moved, or a racy mtime); undefined when a full walk is needed. */
  finish(maxFileBytes: number): WalkedFile[] | undefined {
    if (this.reported !== undefined) return this.judgeReported(this.reported, maxFileBytes);
    this.all ??= this.planAll(undefined);
    const results = this.all.stats.finish();
    const kind = (index: number) => results[3 * index]!;
    const size = (index: number) => results[3 * index + 1]!;
    const mtime = (index: number) => results[3 * index + 2]!;
    const { checkedAt, mtimes } = this.times;
    let index = 0;
    for (const [relative, mtimeMs] of Object.entries(mtimes)) {
      if (kind(index) === FOUND_GONE || mtime(index) !== mtimeMs || !this.trusted(relative, mtimeMs)) return undefined;
      index++;
    }
    for (const entry of this.skipped) {
      if (!this.skippedUnchanged(entry, kind(index), size(index), mtime(index), maxFileBytes)) return undefined;
      index++;
    }
    const changed: WalkedFile[] = [];
    const { paths, sizes, mtimes: knownMtimes } = this.all.files;
    for (let file = 0; file < paths.length; file++, index++) {
      if (kind(index) !== FOUND_FILE || size(index) > maxFileBytes) return undefined;
      if (size(index) !== sizes[file] || mtime(index) !== knownMtimes[file] || isRacy(mtime(index), checkedAt)) {
        changed.push({ path: paths[file]!, absolute: this.all.absolute[index]!, size: size(index), mtimeMs: mtime(index) });
      }
    }
    return changed;
  }

  /**
   * Whether the listing of a folder whose mtime is as the last check saw it can be trusted: its
   * mtime is older than that check (less `RACY_MS`), or, for one that was too recent then, it is
   * old enough now and the folder holds the very names it held.
   */
  private trusted(relative: string, mtimeMs: number): boolean {
    return !isRacy(mtimeMs, this.times.checkedAt) || (!isRacy(mtimeMs, Date.now()) && holdsTheSameNames(this.absoluteOf(relative), mtimeMs, this.times.names?.[relative]));
  }

  /** True when a skipped file is still to be skipped as it was. */
  private skippedUnchanged(entry: SkippedFile, kind: number, size: number, mtimeMs: number, maxFileBytes: number): boolean {
    if (kind === FOUND_GONE) return false;
    if (entry.reason === "too_large" && size <= maxFileBytes) return false;
    return entry.reason !== "binary" || (size === entry.size && mtimeMs === entry.mtimeMs);
  }

  /**
   * `finish` with find's answer: the paths it reported (the listed folders and .gitignore files
   * whose ctime moved, and the entries of listed folders whose ctime moved) are stat'd here, and
   * the skipped files; every other path has the size and mtime the last check saw. The same
   * judgement as `finish`'s, which stats every path.
   */
  private judgeReported(reported: Set<string>, maxFileBytes: number): WalkedFile[] | undefined {
    const { checkedAt, mtimes } = this.times;
    for (const [relative, mtimeMs] of Object.entries(mtimes)) {
      if (!this.trusted(relative, mtimeMs)) return undefined;
      if (!reported.has(relative)) continue;
      const seen = this.statHere(relative);
      if (seen[0] === FOUND_GONE || seen[2] !== mtimeMs) return undefined;
    }
    for (const entry of this.skipped) {
      const [kind, size, mtimeMs] = this.statHere(entry.path);
      if (!this.skippedUnchanged(entry, kind, size, mtimeMs, maxFileBytes)) return undefined;
    }
    const changed: WalkedFile[] = [];
    /** Judges one indexed file; false when a full walk is needed. */
    const judge = (relative: string, knownSize: number, knownMtime: number): boolean => {
      const [kind, size, mtimeMs] = reported.has(relative) ? this.statHere(relative) : [FOUND_FILE, knownSize, knownMtime];
      if (kind !== FOUND_FILE || size > maxFileBytes) return false;
      if (size !== knownSize || mtimeMs !== knownMtime || isRacy(mtimeMs, checkedAt)) changed.push({ path: relative, absolute: this.absoluteOf(relative), size, mtimeMs });
      return true;
    };
    for (const relative of reported) {
      const known = this.known.recorded(relative);
      if (known !== undefined && !judge(relative, known.size, known.mtimeMs)) return undefined;
    }
    const bounds = this.known.bounds();
    // No file find passed over can be too large or too recent: those it reported are all.
    if (bounds.size <= maxFileBytes && !isRacy(bounds.mtimeMs, checkedAt)) return changed;
    // Else the ones find passed over that are too large (a walk) or too recent (read again), found in the columns.
    let walk = false;
    this.known.eachBeyond(maxFileBytes, checkedAt - RACY_MS, (relative, knownSize, knownMtime) => {
      if (reported.has(relative)) return true;
      walk = !judge(relative, knownSize, knownMtime);
      return !walk;
    });
    return walk ? undefined : changed;
  }

  /** Kind, size and mtime of one path, stat'd on this thread. */
  private statHere(relative: string): [kind: number, size: number, mtimeMs: number] {
    const seen = new Float64Array(3);
    statClaimed([this.absoluteOf(relative)], new Int32Array(2), seen, 1, statSync);
    this.takenHere++;
    return [seen[0]!, seen[1]!, seen[2]!];
  }

  /** Paths this thread stat'd with find's answer. */
  private takenHere = 0;

  /** How many paths the check stats without find (listings, skipped files, indexed files). */
  get pathCount(): number {
    return this.listed.length + this.skipped.length + this.known.size;
  }

  /** How many of them are stat'd so far, on either thread. */
  get statted(): number {
    return this.all?.stats.done ?? this.takenHere;
  }

  /** How many of them this thread stat'd (in `finish`). */
  get stattedHere(): number {
    return this.takenHere + (this.all?.stats.takenHere ?? 0);
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
    // A find started before the check (as the manifest was read) saw the files as they were then.
    return check === undefined ? undefined : { check, checkedAt: Math.min(checkedAt, check.findStartedAt ?? checkedAt) };
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
