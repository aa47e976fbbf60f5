/**
 * Where the workspace's folders really lie, remembered while a run of read-only commands lasts, so
 * that resolving a path in a folder met before costs no system call (a `realpath` walks every
 * folder on the way, about as much as the read itself). Remembering a folder means listing it, so
 * a folder is listed only once the run has met enough of its paths for its size (see
 * `ENTRIES_PER_MEETING`); until then its paths are walked.
 *
 * What stays true without a fresh walk: every open of a resolved path refuses a link in place of
 * its last name (`O_NOFOLLOW`) and confirms through `/proc/self/fd` that the descriptor is the
 * resolved path, so a folder or link swapped after it was remembered gives `outside_workspace` or
 * `stale_file`, and nothing outside is read. What a remembered folder can miss: a link put in
 * after it was listed (the open refuses it as changed, and everything is forgotten), and a link
 * on the way turned to another folder inside (the read shows the file where the path led when the
 * folder was remembered: the one its permission check judged).
 * A path resolved through a remembered folder is remembered with its answer, so the same path read
 * again is not split and looked up again (the answer could only change with the folder's memory).
 * The run also remembers each file it opened and confirmed, by its stat (`noteConfirmed`): the
 * same file opened again, unchanged, is not looked up under /proc a second time (a swap on the
 * way would have led the open to another file, which is confirmed in full).
 * Whoever runs commands forgets all of it before and after anything that changes state
 * (`Workspace.stateChanging`) and when the run of reads ends. Only a command's path whose action
 * opens it confirmed (`opensConfirmed`, via `Workspace.resolveCommandPath`) uses it; every other
 * resolution (listings, other protocols, kept outputs, attachments, undo snapshots) walks afresh.
 */
import { opendirSync, realpathSync, type Stats } from "node:fs";
import path from "node:path";

/** A folder met in this run: its real path, and the names in it that are symbolic links. */
interface KnownFolder {
  real: string;
  links: ReadonlySet<string>;
}

/** A folder met but not listed yet: how often this run met it, and at which meeting its listing is tried again. */
interface UnlistedFolder {
  met: number;
  retryAt: number;
}

/**
 * What tells a file from any other, and one version of it from the next: a file with the same
 * device, inode and birth time is the same file (an inode number freed and given to a new file
 * gets a new birth time), and one with the same change time and size is unchanged (a write, a
 * rename of the file, a new link or a change of mode sets its change time).
 */
interface FileIdentity {
  dev: number;
  ino: number;
  birthtimeMs: number;
  ctimeMs: number;
  size: number;
}

/** Folders remembered at most; past this the memory starts again. */
const MAX_FOLDERS = 4096;
/** Real paths given remembered at most; past this that memory starts again. */
const MAX_REALS = 65_536;
/** Confirmed files remembered at most; past this that memory starts again. */
const MAX_CONFIRMED_FILES = 65_536;
/** A folder holding more entries than this is not remembered (listing it would cost more than it saves). */
const MAX_ENTRIES = 4096;
/**
 * Entries a folder's listing may read per meeting of the folder in this run: a folder is listed
 * once it holds at most this many times the paths met in it, so a run that reads a few files of a
 * big folder walks their paths instead of listing it (listing an entry costs about a tenth of a
 * walk). Tries come at the 1st, 2nd, 4th, 8th… meeting, so the tries cost at most 2 × this many
 * entries per meeting.
 */
const ENTRIES_PER_MEETING = 8;

export class KnownFolders {
  private runs = 0;
  /** By the folder's absolute path as written (links in it not expanded); null: resolve in full. */
  private readonly folders = new Map<string, KnownFolder | UnlistedFolder | null>();
  /** By real path: the files this run opened there and confirmed through `/proc/self/fd`, as their descriptor's stat showed them. */
  private readonly confirmed = new Map<string, FileIdentity>();
  /**
   * By the path as the command wrote it: the real paths `realOf` gave in this run. A remembered
   * folder's answer does not change until it is forgotten, and the same path is often read again;
   * the real path given again is the very string the confirmed files and the ledger already hold
   * (found by its kept hash, not made and hashed anew). The written path is the key rather than
   * the absolute one made from it: that one is two strings joined, which a lookup must first copy
   * into one (about 0.2 µs for a path of 70 characters, against a few hundredths).
   */
  private readonly reals = new Map<string, string>();

  /** A run of read-only commands began (runs may overlap: memory lasts until the last one ends). */
  runStarted(): void {
    this.runs++;
  }

  /** A run of read-only commands ended; with none left, everything is forgotten. */
  runEnded(): void {
    this.runs = Math.max(0, this.runs - 1);
    if (this.runs === 0) this.forget();
  }

  /** Forgets every folder and confirmed file: state changed, or a path was found changed under a command. */
  forget(): void {
    this.folders.clear();
    this.confirmed.clear();
    this.reals.clear();
  }

  /**
   * Notes that the file `stat` describes was opened at `real` and its descriptor confirmed to be
   * `real` (see `Workspace.confirmOpened`); remembered only while a run of reads is on.
   */
  noteConfirmed(real: string, stat: Stats): void {
    if (this.runs === 0) return;
    if (this.confirmed.size >= MAX_CONFIRMED_FILES) this.confirmed.clear();
    const { dev, ino, birthtimeMs, ctimeMs, size } = stat;
    this.confirmed.set(real, { dev, ino, birthtimeMs, ctimeMs, size });
  }

  /**
   * True when this run confirmed, at `real`, the very file `stat` describes, unchanged since.
   * Whatever a link swapped in on the way now leads to, a descriptor with this stat is that file.
   */
  confirmedBefore(real: string, stat: Stats): boolean {
    if (this.runs === 0) return false;
    const known = this.confirmed.get(real);
    return (
      known !== undefined &&
      known.ino === stat.ino &&
      known.dev === stat.dev &&
      known.ctimeMs === stat.ctimeMs &&
      known.size === stat.size &&
      known.birthtimeMs === stat.birthtimeMs
    );
  }

  /**
   * The real path of the normal absolute path `absolute` when a run of reads is on, its folder
   * lies (really) inside the workspace (`inside`) and its last name is no link; undefined when it
   * must be resolved in full. `written` is the path as the command wrote it, which names
   * `absolute` and nothing else (the key its answer is remembered by).
   */
  realOf(absolute: string, written: string, inside: (real: string) => boolean): string | undefined {
    if (this.runs === 0) return undefined;
    const given = this.reals.get(written);
    if (given !== undefined) return given;
    // `absolute` is normal: its folder and name are the text around its last separator.
    const separator = absolute.lastIndexOf(path.sep);
    const folder = separator === 0 ? path.sep : absolute.slice(0, separator);
    let known = this.folders.get(folder);
    if (known === undefined || (known !== null && "met" in known)) {
      if (known === undefined && this.folders.size >= MAX_FOLDERS) this.forgetFolders();
      known = meet(folder, known, inside);
      this.folders.set(folder, known);
    }
    const name = absolute.slice(separator + 1);
    if (known === null || "met" in known || name === "" || known.links.has(name)) return undefined;
    const real = known.real === path.sep ? `${path.sep}${name}` : `${known.real}${path.sep}${name}`;
    if (this.reals.size >= MAX_REALS) this.reals.clear();
    this.reals.set(written, real);
    return real;
  }

  /** Forgets the folders and the real paths found through them (the memory starts again when it is full). */
  private forgetFolders(): void {
    this.folders.clear();
    this.reals.clear();
  }
}

/** `folder` met once more in this run (`before`: how it stood): listed when it is small enough for the meetings so far. */
function meet(folder: string, before: UnlistedFolder | undefined, inside: (real: string) => boolean): KnownFolder | UnlistedFolder | null {
  const met = (before?.met ?? 0) + 1;
  if (before !== undefined && met < before.retryAt) {
    before.met = met;
    return before;
  }
  const limit = Math.min(MAX_ENTRIES, met * ENTRIES_PER_MEETING);
  const learned = learn(folder, inside, limit);
  if (learned !== "too big") return learned;
  return limit === MAX_ENTRIES ? null : { met, retryAt: met * 2 };
}

/**
 * Where `folder` really lies and which of its names are links, reading at most `limit` of its
 * entries; "too big" past them, null when it is not worth remembering.
 */
function learn(folder: string, inside: (real: string) => boolean, limit: number): KnownFolder | "too big" | null {
  try {
    const real = realpathSync.native(folder);
    // A folder outside (through a link) is resolved in full each time, which words the refusal.
    if (!inside(real)) return null;
    const listing = opendirSync(real);
    try {
      const links = new Set<string>();
      let entries = 0;
      for (let entry = listing.readSync(); entry !== null; entry = listing.readSync()) {
        if (++entries > limit) return "too big";
        if (entry.isSymbolicLink()) links.add(entry.name);
      }
      return { real, links };
    } finally {
      listing.closeSync();
    }
  } catch {
    return null;
  }
}
