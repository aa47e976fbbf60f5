/**
 * One scope's memory file, read and written with lowdb through an adapter that replaces the
 * file atomically (a temporary file renamed over it) and re-encodes only changed entries. Every
 * write takes `<file>.lock`, re-reads the file if another process changed it, applies the change
 * and writes — so concurrent clio processes lose nothing. Reads use an in-process copy that is re-read only when the file's
 * identity (inode, size, mtime) changes. A damaged file is never overwritten: it is moved aside
 * as `<file>.corrupt-<timestamp>` and the error names it.
 */
import { promises as fs, statSync } from "node:fs";
import path from "node:path";
import { Low, type Adapter } from "lowdb";
import { removeStaleTemporaries, writeAtomicallySync, type WriteFileSystem } from "../atomic-file.js";
import { makeFolder } from "../clio-folder.js";
import { ToolError } from "../errors.js";
import { withFileLock, type FileLockOptions } from "../lock-file.js";
import { MemoryFileBytes } from "./file-bytes.js";

export const MEMORY_FORMAT_VERSION = 1;

/** A memory as stored (the scope is the file it is in). */
export interface StoredMemory {
  key: string;
  value: string;
  tags: string[];
  metadata: Record<string, unknown>;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
}

export interface MemoryFileData {
  version: number;
  entries: Record<string, StoredMemory>;
}

class DamagedFile extends Error {}

function parseMemoryFile(text: string): MemoryFileData {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DamagedFile(text.length === 0 ? "the file is empty" : `it is not valid JSON (${(error as Error).message})`);
  }
  const data = value as Partial<MemoryFileData> | null;
  if (typeof data !== "object" || data === null || typeof data.entries !== "object" || data.entries === null || Array.isArray(data.entries)) {
    throw new DamagedFile("it does not hold an entries object");
  }
  if (typeof data.version !== "number") throw new DamagedFile("it has no format version");
  if (data.version > MEMORY_FORMAT_VERSION) {
    throw new ToolError(
      "corrupt_file",
      `The memory file has format version ${String(data.version)}, newer than this clio understands (${MEMORY_FORMAT_VERSION}).`,
      "Update clio to use this memory file.",
    );
  }
  for (const [key, entry] of Object.entries(data.entries)) {
    if (!isStoredMemory(entry)) throw new DamagedFile(`entry ${JSON.stringify(key).slice(0, 80)} is not a memory (key, value, tags, metadata, createdAt, updatedAt)`);
  }
  // Keys are names a model chose: "__proto__" or "constructor" must be entries like any other.
  return { ...(data as MemoryFileData), entries: Object.assign(Object.create(null) as Record<string, StoredMemory>, data.entries) };
}

function isStoredMemory(entry: unknown): entry is StoredMemory {
  if (typeof entry !== "object" || entry === null) return false;
  const { key, value, tags, metadata, createdAt, updatedAt } = entry as Partial<StoredMemory>;
  return (
    typeof key === "string" &&
    typeof value === "string" &&
    Array.isArray(tags) &&
    tags.every((tag) => typeof tag === "string") &&
    typeof metadata === "object" &&
    metadata !== null &&
    !Array.isArray(metadata) &&
    typeof createdAt === "string" &&
    typeof updatedAt === "string"
  );
}

/** The same bytes as JSON.stringify(data) in UTF-8, encoded whole. */
export function encodeMemoryFile(data: MemoryFileData): Buffer {
  return new MemoryFileBytes().encode(data);
}

/** lowdb's storage for a memory file: parsed and checked on read, written whole and atomically. */
class MemoryFileAdapter implements Adapter<MemoryFileData> {
  /** The last written file's bytes, into which a change with named keys is spliced. */
  private readonly bytes = new MemoryFileBytes();

  constructor(
    private readonly file: string,
    private readonly fileSystem?: WriteFileSystem,
  ) {}

  async read(): Promise<MemoryFileData | null> {
    let text: string;
    try {
      text = await fs.readFile(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    return parseMemoryFile(text);
  }

  async write(data: MemoryFileData): Promise<void> {
    this.writeChange(data);
  }

  /**
   * Writes `data`; `changedKeys`, when given, are all the keys changed since the last write. In
   * synchronous calls: this runs under the lock, and a 2.5 MB file is written in about a millisecond.
   */
  writeChange(data: MemoryFileData, changedKeys?: readonly string[]): void {
    try {
      writeAtomicallySync(this.file, this.bytes.encode(data, changedKeys), this.fileSystem);
    } catch (error) {
      this.bytes.reset();
      throw error;
    }
  }
}

interface Stamp {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
}

export class MemoryFile {
  private readonly db: Low<MemoryFileData>;
  private readonly adapter: MemoryFileAdapter;
  private stamp: Stamp | undefined;
  private loaded = false;
  private swept = false;
  /** Called with the new data whenever it was (re-)read or changed, so callers can keep indexes. */
  onReload?: (data: MemoryFileData) => void;

  constructor(
    readonly file: string,
    private readonly lockOptions: FileLockOptions = {},
  ) {
    this.adapter = new MemoryFileAdapter(file, lockOptions.fileSystem);
    this.db = new Low<MemoryFileData>(this.adapter, emptyData());
  }

  /** The current data, re-read only if another process changed the file. */
  async read(): Promise<MemoryFileData> {
    await this.refresh().catch((error: unknown) => this.explain(error));
    return this.db.data;
  }

  /**
   * Applies `change` under the lock to fresh data and writes the file atomically. `change`
   * returns whether it changed something (nothing is written otherwise) and, best, `keys`: every
   * entry key it set or deleted (each once; see MemoryFileBytes.encode), so only those entries
   * are encoded again. A failed write leaves the change out of the data too (it is read again
   * from the file).
   */
  async update<Result>(change: (data: MemoryFileData) => { changed: boolean; keys?: readonly string[]; result: Result }): Promise<Result> {
    // The folder is there when the file was at the last look (no mkdir per store); if it has gone
    // since, taking the lock fails with ENOENT and the folder is made before one more try.
    const folderSeen = this.stamp !== undefined;
    if (!folderSeen) await this.makeFolder();
    return this.locked(change).catch(async (error: unknown) => {
      if (!folderSeen || (error as NodeJS.ErrnoException).code !== "ENOENT") return this.explain(error);
      await this.makeFolder();
      return this.locked(change).catch((again: unknown) => this.explain(again));
    });
  }

  private makeFolder(): Promise<void> {
    return makeFolder(path.dirname(this.file)).catch((error: unknown) => this.explain(error));
  }

  private locked<Result>(change: (data: MemoryFileData) => { changed: boolean; keys?: readonly string[]; result: Result }): Promise<Result> {
    return withFileLock(
      `${this.file}.lock`,
      async () => {
        if (!this.swept) {
          // Temporaries of a process that died mid-write (a full disk, a kill) go at the first write.
          this.swept = true;
          removeStaleTemporaries(this.file, this.lockOptions.fileSystem);
        }
        await this.refresh(true);
        const { changed, keys, result } = change(this.db.data);
        if (changed) {
          try {
            this.adapter.writeChange(this.db.data, keys);
          } catch (error) {
            this.loaded = false;
            throw error;
          }
          this.stamp = stampOf(this.file);
        }
        return result;
      },
      this.lockOptions,
    );
  }

  /** Turns "something else stands where the file or its folder goes" into an error that names it. */
  private explain(error: unknown): never {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EISDIR") {
      throw new ToolError("not_a_file", `The memory file ${this.file} is a folder.`, `Move that folder away; clio keeps its memories in a file there.`);
    }
    if (code === "ENOTDIR" || code === "EEXIST") {
      const folder = path.dirname(this.file);
      throw new ToolError("not_a_directory", `The memory folder ${folder} (or a folder above it) is a file.`, `Move that file away; clio keeps its memories in ${this.file}.`);
    }
    throw error;
  }

  private async refresh(locked = false): Promise<void> {
    const current = stampOf(this.file);
    if (this.loaded && sameStamp(current, this.stamp)) return;
    if (current === undefined) {
      this.db.data = emptyData();
    } else {
      try {
        await this.db.read();
      } catch (error) {
        if (!(error instanceof DamagedFile)) throw error;
        if (!locked) {
          // Move it aside under the lock, after checking again that it is still the damaged one.
          return this.update(() => ({ changed: false, result: undefined }));
        }
        throw await this.moveAside(error.message);
      }
      this.db.data ??= emptyData();
    }
    this.stamp = current;
    this.loaded = true;
    this.onReload?.(this.db.data);
  }

  private async moveAside(reason: string): Promise<ToolError> {
    const aside = `${this.file}.corrupt-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    await fs.rename(this.file, aside);
    this.db.data = emptyData();
    this.stamp = undefined;
    this.loaded = false;
    return new ToolError(
      "corrupt_file",
      `The memory file ${this.file} was damaged (${reason}); it was moved to ${aside} and nothing was written over it.`,
      `Retry the command to start a fresh memory file; recover entries by hand from ${aside} if they matter.`,
    );
  }
}

/** Entries have no prototype, so every key (`__proto__`, `toString`) is only ever an entry. */
function emptyData(): MemoryFileData {
  return { version: MEMORY_FORMAT_VERSION, entries: Object.create(null) as Record<string, StoredMemory> };
}

/** The file's identity, read synchronously: a stat takes microseconds, a thread-pool round trip more. */
function stampOf(file: string): Stamp | undefined {
  try {
    const stats = statSync(file, { bigint: true });
    return { ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function sameStamp(left: Stamp | undefined, right: Stamp | undefined): boolean {
  if (left === undefined || right === undefined) return left === right;
  return left.ino === right.ino && left.size === right.size && left.mtimeNs === right.mtimeNs;
}
