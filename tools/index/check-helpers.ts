/**
 * What a code index's change checks share across a process: find(1), while it works here
 * (recent-changes.ts), or else the stat thread when a core is idle (stat-thread.ts); and the one
 * started as the manifest is read, before the first check, so that it is under way by then.
 */
import { spawn } from "node:child_process";
import { asksFind, type ListingTimes, RACY_MS, THREAD_MIN_PATHS } from "./change-check.js";
import { RecentChanges, type SpawnProcess } from "./recent-changes.js";
import { coreToSpare, StatThread } from "./stat-thread.js";
import type { IndexManifest } from "./store.js";

export interface CheckHelperOptions {
  /** Change checks of this many paths or more use find, or else stat on another thread as well when a core is idle (default 2,000). */
  threadMinPaths?: number;
  /** Whether a core is idle for that thread (default: the load average leaves one free). */
  coreToSpare?: () => boolean;
  /**
   * Starts find(1) for those checks, which then stat only the paths find reports changed since
   * the last check (recent-changes.ts). Default: node's spawn on Linux; false (or another
   * system) leaves the stats to this thread and the stat thread.
   */
  spawnFind?: SpawnProcess | false;
}

/**
 * A find started early serves a check that begins within this long: it saw the files as they
 * were when it started, so a check begun later (a session's later command) would miss an edit made
 * in between.
 */
export const EARLY_FIND_MS = 1000;

/** Starts a find for a check against a listing: its listed paths and the moment it began. */
export type FindStart = (listed: readonly string[], checkedAt: number) => RecentChanges | undefined;

export class CheckHelpers {
  /** The thread checks share their stats with, once there is one. */
  private statThread: StatThread | undefined;
  /** A find started with the manifest's listing before the first check (`startEarly`). */
  private earlyFind: { listing: ListingTimes; recent: RecentChanges } | undefined;
  /** find cannot answer in this process (none, or not GNU find 4.9 or later): later checks do without. */
  private findFailed = false;

  constructor(
    private readonly root: string,
    private readonly options: CheckHelperOptions,
  ) {}

  /**
   * Starts find, or the stat thread, for the first check when the manifest says it will use it
   * (a find begun for that listing already, before the index opened, is kept: early-check.ts).
   */
  startEarly(manifest: IndexManifest): void {
    // Read as found on disk: a field of another shape counts nothing (and ChangeCheck.begin refuses it).
    const listing = manifest.listing;
    const folders = listing?.mtimes;
    const listed = typeof folders === "object" && folders !== null ? Object.keys(folders) : [];
    const paths = (Number(manifest.files) || 0) + listed.length;
    const threadMinPaths = this.options.threadMinPaths ?? THREAD_MIN_PATHS;
    if (paths < threadMinPaths) return;
    const recent = listing !== undefined && asksFind(listing, paths, threadMinPaths) ? this.findFor(listing)?.(listed, listing.checkedAt) : undefined;
    if (recent !== undefined) this.earlyFind = { listing: listing!, recent };
    else if (this.spawnFind === undefined && this.coreIdle()) this.statThread ??= StatThread.start();
  }

  /** The stat thread for a check, started when a core is idle. */
  readonly threadFor = (): StatThread | undefined => (this.statThread ??= this.coreIdle() ? StatThread.start() : undefined);

  /** Starts find for a check against `listing` (the one started early when it was for this listing); undefined when find is off. */
  findFor(listing: ListingTimes): FindStart | undefined {
    const spawnFind = this.spawnFind;
    if (spawnFind === undefined) return undefined;
    return (listed, checkedAt) => {
      const early = this.earlyFind;
      this.earlyFind = undefined;
      if (early !== undefined && sameListing(early.listing, listing) && Date.now() - early.recent.startedAt <= EARLY_FIND_MS) return early.recent;
      const recent = RecentChanges.start(this.root, listed, checkedAt - RACY_MS, spawnFind);
      recent?.reported.then(() => {
        if (recent.unusable) this.findFailed = true;
      });
      return recent;
    };
  }

  private get spawnFind(): SpawnProcess | undefined {
    if (this.findFailed || this.options.spawnFind === false) return undefined;
    return this.options.spawnFind ?? (process.platform === "linux" ? spawn : undefined);
  }

  private coreIdle(): boolean {
    return (this.options.coreToSpare ?? coreToSpare)();
  }
}

/**
 * Whether two reads of a manifest hold the same listing: each check writes its own moment, so
 * a listing read again (the manifest is read before the index opens and again as it opens) is
 * the same when that moment and its folders are.
 */
function sameListing(left: ListingTimes, right: ListingTimes): boolean {
  if (left === right) return true;
  if (left.checkedAt !== right.checkedAt || typeof left.mtimes !== "object" || typeof right.mtimes !== "object" || left.mtimes === null || right.mtimes === null) return false;
  const folders = Object.keys(left.mtimes);
  return folders.length === Object.keys(right.mtimes).length && folders.every((folder) => right.mtimes[folder] === left.mtimes[folder]);
}
