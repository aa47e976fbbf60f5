/**
 * Where the workspace's folders really lie, remembered while a run of read-only commands lasts, so
 * that resolving a path in a folder met before costs no system call (a `realpath` walks every
 * folder on the way, about as much as the read itself).
 *
 * What stays true without a fresh walk: every open of a resolved path refuses a link in place of
 * its last name (`O_NOFOLLOW`) and confirms through `/proc/self/fd` that the descriptor is the
 * resolved path, so a folder or link swapped after it was remembered gives `outside_workspace` or
 * `stale_file`, and nothing outside is read. What a remembered folder can miss: a link put in
 * after it was listed (the open refuses it as changed, and everything is forgotten), and a link
 * on the way turned to another folder inside (the read shows the file where the path led when the
 * folder was remembered: the one its permission check judged).
 * Whoever runs commands forgets all of it before and after anything that changes state
 * (`Workspace.stateChanging`) and when the run of reads ends. Only a command's path whose action
 * opens it confirmed (`opensConfirmed`, via `Workspace.resolveCommandPath`) uses it; every other
 * resolution (listings, other protocols, kept outputs, attachments, undo snapshots) walks afresh.
 */
import { readdirSync, realpathSync } from "node:fs";
import path from "node:path";

/** A folder met in this run: its real path, and the names in it that are symbolic links. */
interface KnownFolder {
  real: string;
  links: ReadonlySet<string>;
}

/** Folders remembered at most; past this the memory starts again. */
const MAX_FOLDERS = 4096;
/** A folder holding more entries than this is not remembered (listing it would cost more than it saves). */
const MAX_ENTRIES = 4096;

export class KnownFolders {
  private runs = 0;
  /** By the folder's absolute path as written (links in it not expanded); null: resolve in full. */
  private readonly folders = new Map<string, KnownFolder | null>();

  /** A run of read-only commands began (runs may overlap: memory lasts until the last one ends). */
  runStarted(): void {
    this.runs++;
  }

  /** A run of read-only commands ended; with none left, everything is forgotten. */
  runEnded(): void {
    this.runs = Math.max(0, this.runs - 1);
    if (this.runs === 0) this.folders.clear();
  }

  /** Forgets every folder: state changed, or a path was found changed under a command. */
  forget(): void {
    this.folders.clear();
  }

  /**
   * The real path of the normal absolute path `absolute` when a run of reads is on, its folder
   * lies (really) inside the workspace (`inside`) and its last name is no link; undefined when it
   * must be resolved in full.
   */
  realOf(absolute: string, inside: (real: string) => boolean): string | undefined {
    if (this.runs === 0) return undefined;
    const folder = path.dirname(absolute);
    let known = this.folders.get(folder);
    if (known === undefined) {
      if (this.folders.size >= MAX_FOLDERS) this.folders.clear();
      known = learn(folder, inside);
      this.folders.set(folder, known);
    }
    const name = path.basename(absolute);
    if (known === null || known.links.has(name)) return undefined;
    return path.join(known.real, name);
  }
}

/** Where `folder` really lies and which of its names are links; null when it is not worth remembering. */
function learn(folder: string, inside: (real: string) => boolean): KnownFolder | null {
  try {
    const real = realpathSync.native(folder);
    // A folder outside (through a link) is resolved in full each time, which words the refusal.
    if (!inside(real)) return null;
    const entries = readdirSync(real, { withFileTypes: true });
    if (entries.length > MAX_ENTRIES) return null;
    const links = new Set<string>();
    for (const entry of entries) if (entry.isSymbolicLink()) links.add(entry.name);
    return { real, links };
  } catch {
    return null;
  }
}
