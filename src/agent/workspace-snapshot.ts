/**
 * What the files of the workspace hold, cheaply enough to take before and after every shell
 * command: each file's size, times and text. A file whose size, times and inode match the
 * previous snapshot keeps its text without being read again, so only the first snapshot of a
 * session reads the whole workspace, within the caps below; the texts stay in memory (at most
 * MAX_TOTAL_BYTES) and only those of files that changed are written to the checkpoints.
 *
 * Left out: folders .gitignore ignores (node_modules, build output), `.git`, `.clio`, symbolic
 * links. A file over MAX_FILE_BYTES, or met after MAX_FILES files or MAX_TOTAL_BYTES read in one
 * snapshot, is known by its stats only: its change is noticed but its text not kept.
 */
import { type BigIntStats, lstatSync, promises as fs, readFileSync } from "node:fs";
import path from "node:path";
import { IgnoreRules } from "../../tools/files/ignore-rules.js";
import { nodeFileSystem } from "../../tools/files/file-system.js";
import { binaryType, SNIFF_BYTES } from "../../tools/files/text.js";

/** Files larger than this are not kept for undo. */
export const MAX_FILE_BYTES = 1024 * 1024;
/** Files and folders one snapshot looks at; the rest of the workspace is not watched. */
export const MAX_FILES = 20_000;
/** Bytes of text a snapshot holds. */
export const MAX_TOTAL_BYTES = 32 * 1024 * 1024;

export interface SnapshotFile {
  /** Size, modification and change time (ns), inode: equal stamps mean the same content. */
  stamp: string;
  /** Its text, or why the text is not held. */
  content: string | { unknown: string };
}

export interface Snapshot {
  files: Map<string, SnapshotFile>;
  /** True when MAX_FILES cut the walk short: files beyond it are not watched. */
  incomplete: boolean;
}

/** A file a command changed: its text before and after (null: absent). */
export interface SnapshotChange {
  path: string;
  before: string | null;
  after: string | null;
  unknown?: string;
}

export class WorkspaceSnapshots {
  private last: Snapshot | undefined;

  /**
   * @param exclude folders never looked into (where the checkpoints themselves are kept)
   * @param maxFiles files and folders one walk visits (MAX_FILES; smaller in tests)
   */
  constructor(
    private readonly root: string,
    private readonly exclude: readonly string[] = [],
    private readonly maxFiles = MAX_FILES,
  ) {}

  /** The workspace's files now. */
  async take(): Promise<Snapshot> {
    const previous = this.last?.files;
    const snapshot: Snapshot = { files: new Map(), incomplete: false };
    const budget = { bytes: MAX_TOTAL_BYTES };
    const ignore = new IgnoreRules(this.root, nodeFileSystem);
    const folders = [this.root];
    // Folders count with files, so a tree of folders alone cannot make the walk endless either.
    let visited = 0;
    while (folders.length && !snapshot.incomplete) {
      if (++visited + snapshot.files.size > this.maxFiles) {
        snapshot.incomplete = true;
        break;
      }
      const folder = folders.pop()!;
      const entries = await fs.readdir(folder, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const absolute = path.join(folder, entry.name);
        if (!entry.isDirectory() && !entry.isFile()) continue;
        if (this.exclude.includes(absolute) || (await ignore.isIgnored(absolute, entry.isDirectory()))) continue;
        if (entry.isDirectory()) {
          folders.push(absolute);
          continue;
        }
        if (visited + snapshot.files.size >= this.maxFiles) {
          snapshot.incomplete = true;
          break;
        }
        const relative = path.relative(this.root, absolute).split(path.sep).join("/");
        const file = this.describe(absolute, previous?.get(relative), budget);
        if (file) snapshot.files.set(relative, file);
      }
    }
    this.last = snapshot;
    return snapshot;
  }

  private describe(absolute: string, known: SnapshotFile | undefined, budget: { bytes: number }): SnapshotFile | undefined {
    // Synchronous on purpose: thousands of small awaited calls cost far more than the I/O itself.
    const stat = lstatOrNothing(absolute);
    if (!stat?.isFile()) return undefined;
    const stamp = `${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.ino}`;
    const size = Number(stat.size);
    if (known?.stamp === stamp) {
      if (typeof known.content === "string") budget.bytes -= size;
      return known;
    }
    if (size > MAX_FILE_BYTES) return { stamp, content: { unknown: `over ${MAX_FILE_BYTES / 1024 / 1024} MB` } };
    if (size > budget.bytes) return { stamp, content: { unknown: `past the ${MAX_TOTAL_BYTES / 1024 / 1024} MB clio holds for undo` } };
    const bytes = readOrNothing(absolute);
    if (bytes === undefined) return undefined;
    if (binaryType(bytes.subarray(0, SNIFF_BYTES)) !== undefined) return { stamp, content: { unknown: "binary" } };
    budget.bytes -= size;
    return { stamp, content: bytes.toString("utf8") };
  }
}

/** The files that differ between two snapshots, in path order. */
export function snapshotChanges(before: Snapshot, after: Snapshot): SnapshotChange[] {
  const changes: SnapshotChange[] = [];
  const paths = new Set([...before.files.keys(), ...after.files.keys()]);
  for (const relative of [...paths].sort()) {
    const old = before.files.get(relative);
    const now = after.files.get(relative);
    // A walk cut short cannot tell a file beyond the cut from a deleted (or a new) one: such files are not watched.
    if ((!now && after.incomplete) || (!old && before.incomplete)) continue;
    if (old?.stamp === now?.stamp || (old && now && old.content === now.content)) continue;
    const unknown = [old?.content, now?.content].find((content): content is { unknown: string } => typeof content === "object")?.unknown;
    if (unknown !== undefined) changes.push({ path: relative, before: null, after: null, unknown });
    else changes.push({ path: relative, before: (old?.content as string | undefined) ?? null, after: (now?.content as string | undefined) ?? null });
  }
  return changes;
}

function lstatOrNothing(file: string): BigIntStats | undefined {
  try {
    return lstatSync(file, { bigint: true });
  } catch {
    return undefined;
  }
}

function readOrNothing(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
