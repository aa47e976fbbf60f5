/**
 * The index on disk, under `<workspace>/.clio/index/`: `manifest.json` naming the segment files
 * (`segments/<name>.seg`, oldest first) and `vectors.json`. A segment is written once under a
 * new name and never changed; the manifest is replaced atomically, under a lock file, after the
 * segments it names are in place, so a crash leaves the old index whole. The index is a cache:
 * a missing, foreign-version or damaged store is rebuilt, never trusted.
 */
import { closeSync, existsSync, promises as fs, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { writeAtomically } from "../atomic-file.js";
import { makeFolder } from "../clio-folder.js";
import { ToolError } from "../errors.js";
import { withFileLock } from "../lock-file.js";
import { SegmentReader } from "./segment.js";
import { FileSink, FileSource, MemorySink, MemorySource, type SegmentSink } from "./segment-bytes.js";
import { INDEX_FORMAT_VERSION, type IndexManifest, usableManifest, type VectorRecord } from "./store.js";
import { randomHex } from "../node-crypto.js";

/** Segment files not named by the manifest and older than this are left from a crash: removed at the next save. */
const ORPHAN_AGE_MS = 10 * 60 * 1000;

/** A segment this process made, with its bytes while it is kept in memory only (plan mode). */
export interface MadeSegment {
  reader: SegmentReader;
  bytes?: Uint8Array;
}

export class IndexStore {
  /** The segment list as this process last read or wrote it; another list on disk means another process wrote since. */
  private known: string[] | undefined;
  /** Segments this process made that are only in memory, by name. */
  private readonly unsaved = new Map<string, Uint8Array>();

  constructor(readonly directory: string) {}

  private get segmentFolder(): string {
    return path.join(this.directory, "segments");
  }

  private segmentFile(name: string): string {
    return path.join(this.segmentFolder, `${name}.seg`);
  }

  private get manifestFile(): string {
    return path.join(this.directory, "manifest.json");
  }

  /** The manifest as stored, read at once: it is small, and an asynchronous read cost a fresh process's search several ms of round trips. */
  private readManifest(): IndexManifest | undefined {
    try {
      return JSON.parse(readFileSync(this.manifestFile, "utf8")) as IndexManifest;
    } catch {
      return undefined;
    }
  }

  /**
   * The manifest and open segments, or undefined when there is no usable index (missing, other
   * version, damaged). Opens under the index lock, so a save by another process is never half seen.
   * `onManifest` sees the manifest before the segments are opened.
   */
  async load(onManifest?: (manifest: IndexManifest) => void): Promise<{ manifest: IndexManifest; readers: SegmentReader[] } | undefined> {
    // No lock taken where there is no index; the manifest is read once, under the lock.
    if (!existsSync(this.manifestFile)) return undefined;
    return withFileLock(path.join(this.directory, "lock"), async () => {
      const manifest = usableManifest(this.readManifest());
      if (manifest === undefined) return undefined;
      onManifest?.(manifest);
      const readers: SegmentReader[] = [];
      try {
        for (const name of manifest.segments) readers.push(new SegmentReader(name, new FileSource(this.segmentFile(name))));
      } catch {
        for (const reader of readers) reader.close();
        return undefined;
      }
      this.known = [...manifest.segments];
      return { manifest, readers };
    });
  }

  /** Makes a segment with `write`: into a new file, or into memory when `persist` is false. */
  async makeSegment(persist: boolean, write: (sink: SegmentSink) => Uint8Array | undefined): Promise<MadeSegment> {
    const name = `${Date.now().toString(36)}-${randomHex(6)}`;
    if (!persist) {
      const bytes = write(new MemorySink())!;
      this.unsaved.set(name, bytes);
      return { reader: new SegmentReader(name, new MemorySource(bytes)), bytes };
    }
    await this.makeFolders();
    const file = this.segmentFile(name);
    const temporary = `${file}.${process.pid}.tmp`;
    const descriptor = openSync(temporary, "w");
    try {
      write(new FileSink(descriptor));
    } catch (error) {
      closeSync(descriptor);
      rmSync(temporary, { force: true });
      throw error;
    }
    closeSync(descriptor);
    renameSync(temporary, file);
    return { reader: new SegmentReader(name, new FileSource(file)) };
  }

  /** Creates the index's folders (before a walk, so creating them moves no folder mtime the walk records). */
  async makeFolders(): Promise<void> {
    await makeFolder(this.segmentFolder).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOTDIR" && error.code !== "EEXIST") throw error;
      throw new ToolError(
        "corrupt_file",
        `The code index cannot be saved: something that is not a folder stands in the way of ${this.directory} (${error.code}).`,
        `Move away the file at ${this.directory} or at ${path.dirname(this.directory)} (the index is a cache and is rebuilt), then index again.`,
      );
    });
  }

  /**
   * Names `segments` in the manifest (writing any kept in memory first) and removes the segment
   * files no longer named. When another process wrote the index since this one read it, the
   * segments are first merged into one by `mergeAll` (this process's view replaces the other's).
   * Returns the segments named.
   */
  async commit(manifest: Omit<IndexManifest, "segments">, segments: readonly string[], mergeAll: () => Promise<string>): Promise<string[]> {
    await this.makeFolders();
    return withFileLock(path.join(this.directory, "lock"), async () => {
      const onDisk = this.readManifest();
      let names = [...segments];
      const foreign = onDisk?.version === INDEX_FORMAT_VERSION && JSON.stringify(onDisk.segments ?? null) !== JSON.stringify(this.known ?? null);
      if (foreign) names = [await mergeAll()];
      for (const name of names) {
        const bytes = this.unsaved.get(name);
        if (bytes === undefined) continue;
        const file = this.segmentFile(name);
        writeFileSync(`${file}.${process.pid}.tmp`, bytes);
        renameSync(`${file}.${process.pid}.tmp`, file);
        this.unsaved.delete(name);
      }
      await writeAtomically(this.manifestFile, JSON.stringify({ ...manifest, segments: names }));
      this.known = names;
      await this.removeUnnamed(new Set(names), new Set([...(onDisk?.segments ?? []), ...segments]));
      return names;
    });
  }

  /** Removes segment files the manifest does not name: those this process knew of at once, others once they are old (a crash's). */
  private async removeUnnamed(named: ReadonlySet<string>, replaced: ReadonlySet<string>): Promise<void> {
    const entries = await fs.readdir(this.segmentFolder).catch(() => [] as string[]);
    const now = Date.now();
    for (const entry of entries) {
      const name = entry.replace(/\.seg$/, "");
      if (named.has(name)) continue;
      const file = path.join(this.segmentFolder, entry);
      const old = await fs.stat(file).then(
        (stats) => now - stats.mtimeMs > ORPHAN_AGE_MS,
        () => false,
      );
      if (replaced.has(name) || old) await fs.rm(file, { force: true });
    }
  }

  /** Drops a segment a merge replaced: from memory, and from disk when no manifest named it yet. */
  forget(name: string): void {
    this.unsaved.delete(name);
    if (!this.known?.includes(name)) rmSync(this.segmentFile(name), { force: true });
  }

  async loadVectors(): Promise<Map<string, VectorRecord>> {
    try {
      const entries = JSON.parse(await fs.readFile(path.join(this.directory, "vectors.json"), "utf8")) as Record<string, VectorRecord>;
      return new Map(Object.entries(entries));
    } catch {
      return new Map();
    }
  }

  async saveVectors(vectors: ReadonlyMap<string, VectorRecord>): Promise<void> {
    await makeFolder(this.directory);
    await writeAtomically(path.join(this.directory, "vectors.json"), JSON.stringify(Object.fromEntries(vectors)));
  }
}
