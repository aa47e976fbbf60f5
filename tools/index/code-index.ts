/**
 * A persistent, incremental code index of one workspace: files, chunks, BM25 postings, the
 * symbol table and (optionally) chunk vectors for hybrid ranking. Stored under
 * `<workspace>/.clio/index/` as segments read on demand (segment.ts); writes nothing else. An
 * update analyses the changed files and writes them, a batch at a time, as new segments; past
 * `MAX_SEGMENTS` the newer ones are merged into one (merge-policy.ts).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import type { FileToAnalyse } from "./file-record.js";
import type { FileQueue } from "./file-queue.js";
import type { AnalysedOutcome } from "./parallel.js";
import { IndexStore } from "./index-store.js";
import type { SegmentBatch } from "./segment-batch.js";
import { mergeStart } from "./merge-policy.js";
import type { LiveFiles } from "./live-files.js";
import { SegmentSet, type ChunkView, type QueryTerms } from "./segment-set.js";
import type { SegmentReader } from "./segment.js";
import { SegmentDamage } from "./segment-bytes.js";
import { INDEX_DIRECTORY, INDEX_FORMAT_VERSION, type IndexManifest, type VectorRecord } from "./store.js";
import { ChangeCheck, CheckInAdvance } from "./change-check.js";
import { CheckHelpers } from "./check-helpers.js";
import { scanForChanges } from "./update-scan.js";
import type { CodeIndexOptions, IndexReport, SymbolLocation } from "./index-types.js";
import { exclusionOf, type SkippedFile } from "./walk.js";

export type { CodeIndexOptions, Embedder, IndexProgress, IndexReport, SymbolLocation } from "./index-types.js";

/**
 * When find reports this many paths and none changed, the update records its check anyway: the
 * manifest's write (a few ms) is less than the stats those paths cost every later fresh process
 * (about 6 µs each: 91 ms for a 13,000-file tree copied with `cp -a` before it was indexed).
 */
export const RESTAMP_REPORTED = 500;

/** Past this many segments, an update merges the newer ones into one. */
const MAX_SEGMENTS = 8;
const SEGMENT_POSTINGS = 1_000_000;

/** What analysing the changed files came to. */
interface Analysed {
  indexed: number;
  sameContent: number;
  invalidUtf8: string[];
  skipped: SkippedFile[];
  skippedPaths: Set<string>;
  workers: number;
}

const nothingAnalysed = (): Analysed => ({ indexed: 0, sameContent: 0, invalidUtf8: [], skipped: [], skippedPaths: new Set(), workers: 0 });

export class CodeIndex {
  private segments: SegmentSet;
  private vectors = new Map<string, VectorRecord>();
  private manifest: IndexManifest = { version: INDEX_FORMAT_VERSION, updatedAt: 0, files: 0, skipped: [], segments: [] };
  private readonly store: IndexStore;
  /** The segment list differs from the manifest's (plan mode kept it from being written). */
  private uncommitted = false;
  /** A change check of the whole workspace begun before its update (`beginCheck`). */
  private readonly advance = new CheckInAdvance();
  /** find or the stat thread, shared by the change checks. */
  private readonly helpers: CheckHelpers;

  private constructor(
    /** The workspace root (absolute). */
    readonly root: string,
    readonly options: CodeIndexOptions,
  ) {
    this.store = new IndexStore(path.join(root, INDEX_DIRECTORY));
    this.segments = new SegmentSet(options.hidden);
    this.helpers = options.helpers ?? new CheckHelpers(root, options);
  }

  /** The indexed files by path. */
  get files(): LiveFiles {
    return this.segments.files;
  }

  /** Live chunks in the index. */
  get chunkCount(): number {
    return this.segments.chunkCount;
  }

  /** The open segments, oldest first (for checks of what is stored). */
  get segmentReaders(): readonly SegmentReader[] {
    return this.segments.readers;
  }

  /** A vocabulary for one query: terms and postings are read as it asks for them. */
  queryTerms(): QueryTerms {
    return this.segments.queryTerms();
  }

  chunk(id: number): ChunkView {
    return this.segments.chunk(id);
  }

  /** A chunk's file path (cheaper than `chunkPlace`). */
  chunkPath(id: number): string {
    return this.segments.pathOf(id);
  }

  /** A chunk's path and lines (cheaper than `chunk`). */
  chunkPlace(id: number): { path: string; startLine: number; endLine: number } {
    return this.segments.place(id);
  }

  /** The first chunk, in file order, of the file whose lines hold `line` (cheaper than a `chunkPlace` for each of its chunks). */
  chunkAtLine(filePath: string, line: number): number | undefined {
    return this.segments.chunkHolding(filePath, line);
  }

  /** The chunk ids of a file, in file order. */
  chunkIdsOf(filePath: string): number[] {
    return this.segments.idsOf(filePath);
  }

  /** Opens the index of `root`, loading what is stored (nothing is walked until `update`). */
  static async open(root: string, options: CodeIndexOptions = {}): Promise<CodeIndex> {
    const index = new CodeIndex(root, options);
    const stored = await index.store.load(options.checkAfterOpen ? (manifest) => index.helpers.startEarly(manifest) : undefined);
    if (stored !== undefined) {
      index.manifest = stored.manifest;
      for (const reader of stored.readers) index.segments.add(reader);
    }
    if (options.embed !== undefined) index.vectors = await index.store.loadVectors();
    return index;
  }

  /**
   * Runs `work`, which reads the index; when a segment turns out damaged (segments are read on
   * demand, so damage shows when a part is first read), drops the stored index, rebuilds it,
   * and runs `work` once more.
   */
  async reading<Result>(work: () => Result | Promise<Result>): Promise<Result> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof SegmentDamage)) throw error;
      this.dropStored();
      await this.update();
      return work();
    }
  }

  /** Forgets what is stored (a damaged segment was found): the next update walks the workspace and writes the index afresh. */
  private dropStored(): void {
    this.segments.close();
    this.segments = new SegmentSet(this.options.hidden);
    this.manifest = { version: INDEX_FORMAT_VERSION, updatedAt: 0, files: 0, skipped: [], segments: [] };
  }

  /**
   * Runs `read` on what is stored while a change check of the whole workspace begins (its stats
   * on the stat thread, when there is one), then `update` (the caller's update of the whole
   * workspace, which finishes the check). When the update changed the index, `read` runs again,
   * also when it failed the first time (what is stored may lack what the files now hold).
   */
  async readWhileChecking<Result>(read: () => Result | Promise<Result>, update: () => Promise<unknown>): Promise<Result> {
    const stamp = this.stamp;
    this.beginCheck();
    const first = await this.reading(read).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    await update();
    if (this.stamp !== stamp) return this.reading(read);
    if ("error" in first) throw first.error;
    return first.result;
  }

  /** Changes whenever the indexed files do: results read before may be out of date. */
  get stamp(): number {
    return this.segments.stamp;
  }

  /**
   * Begins the stats of the next update's change check of the whole workspace, on another
   * thread while this one goes on (a fresh process answers from what is stored meanwhile). The
   * next update of the whole workspace finishes it; `cancelCheck` drops it.
   */
  beginCheck(): void {
    this.advance.begin(() => this.planCheck(), this.segments.stamp);
  }

  /** Drops a check `beginCheck` began (its results would be out of date later). */
  cancelCheck(): void {
    this.advance.cancel();
  }

  private planCheck(): ChangeCheck | undefined {
    const listing = this.manifest.listing;
    return listing === undefined
      ? undefined
      : ChangeCheck.begin(this.root, listing, this.files, this.manifest.skipped, this.helpers.threadFor, this.options.threadMinPaths, this.helpers.findFor(listing));
  }

  /** True once an update has run here or in an earlier process. */
  get built(): boolean {
    return this.manifest.updatedAt > 0;
  }

  get updatedAt(): number {
    return this.manifest.updatedAt;
  }

  /** The skipped files the last update reported. */
  get skipped(): readonly SkippedFile[] {
    return this.manifest.skipped;
  }

  /** Definitions named `name`; case-sensitive matches first, then other cases. */
  definitions(name: string): SymbolLocation[] {
    const all = this.segments.definitions(name.toLowerCase());
    return [...all.filter((entry) => entry.symbol.name === name), ...all.filter((entry) => entry.symbol.name !== name)];
  }

  /** Reads an indexed file as JSON (package manifests); undefined when it cannot be read or parsed. */
  readJson(filePath: string): unknown {
    try {
      return JSON.parse(readFileSync(path.join(this.root, filePath), "utf8")) as unknown;
    } catch {
      return undefined;
    }
  }

  vectorOf(filePath: string, chunkIndex: number): number[] | undefined {
    const record = this.vectors.get(filePath);
    const file = this.files.get(filePath);
    if (record === undefined || file === undefined || record.hash !== file.hash) return undefined;
    return record.vectors[chunkIndex];
  }

  /**
   * Brings the index up to date for `start` (an absolute path inside the root; default the
   * root): reads only files whose size or mtime changed or whose mtime is too recent to trust
   * (and re-analyses only those whose hash changed), drops deleted files, and writes the
   * changes as a new segment. For the whole workspace, when no folder or .gitignore moved since
   * the last walk, only the indexed files are stat'd (update-scan.ts); when nothing changed,
   * nothing is written.
   */
  async update(start: string = this.root, signal?: AbortSignal): Promise<IndexReport> {
    try {
      return await this.updateOnce(start, signal);
    } catch (error) {
      // Segments are read on demand: a merge reads every section, and may be the first to meet a damaged one.
      if (!(error instanceof SegmentDamage)) throw error;
      this.dropStored();
      return this.updateOnce(start, signal);
    }
  }

  private async updateOnce(start: string, signal: AbortSignal | undefined): Promise<IndexReport> {
    const began = performance.now();
    const progress = this.options.onProgress;
    progress?.({ phase: "scanning", done: 0, total: 0 });
    const excluded = await exclusionOf(this.root, start);
    if (excluded !== undefined) {
      throw new ToolError(
        "invalid_argument",
        `${path.relative(this.root, start).split(path.sep).join("/")} is not indexed: ${excluded}.`,
        "Index the workspace or a folder of source files; the index always leaves out .git, .clio, node_modules and what .gitignore ignores.",
      );
    }
    const prefix = path.relative(this.root, start).split(path.sep).join("/");
    const inScope = (filePath: string) => prefix === "" || filePath === prefix || filePath.startsWith(`${prefix}/`);
    const persist = this.options.persist?.() !== false;
    if (persist) await this.store.makeFolders();
    const begun = start === this.root ? (this.advance.take(this.segments.stamp) ?? CheckInAdvance.now(() => this.planCheck())) : this.advance.cancel();
    const checkedAt = begun?.checkedAt ?? Date.now();
    await begun?.check.ready();
    const scan = scanForChanges(this.root, start, this.files, this.manifest, checkedAt, {
      ...(this.options.maxFileBytes !== undefined ? { maxFileBytes: this.options.maxFileBytes } : {}),
      ...(this.options.hidden ? { hidden: this.options.hidden } : {}),
      ...(begun !== undefined ? { begun: begun.check } : {}),
    });
    // The writer and the analysis are loaded only when something changed: most checks find nothing.
    let batch: SegmentBatch | undefined;
    const writer = async () => (batch ??= await this.segmentBatch(persist));
    const analysed = (await scan.queue.holdsAny()) ? await this.analyse(scan.queue, await writer(), signal) : nothingAnalysed();
    const { present, skipped: scanSkipped, listing } = await scan.finished;
    let removed = 0;
    if (present !== undefined) {
      const presentPaths = new Set(present.map((file) => file.path));
      const gone = [...this.files.keys()].filter((filePath) => inScope(filePath) && !presentPaths.has(filePath));
      for (const filePath of gone) (await writer()).change({ path: filePath, state: "removed", size: 0, mtimeMs: 0 });
      removed = gone.length;
    }
    const changed = scan.queue.files.length;
    const unchanged = (present?.length ?? this.files.size) - changed - scan.carriedBinary.length + analysed.sameContent;
    const skipped =
      present === undefined
        ? [...scanSkipped.filter((entry) => !analysed.skippedPaths.has(entry.path)), ...analysed.skipped]
        : [...scanSkipped, ...scan.carriedBinary, ...analysed.skipped];
    const report = (): IndexReport => {
      const files = this.files;
      return {
        files: files.size,
        indexed: analysed.indexed,
        unchanged,
        removed,
        skipped,
        invalidUtf8: analysed.invalidUtf8,
        chunks: this.segments.chunkCount,
        // A pass over every live file (a few ms in a fresh process), made when the report is read: a search's update never reads it.
        get symbols() {
          return files.symbolCount();
        },
        workers: analysed.workers,
        durationMs: performance.now() - began,
      };
    };
    // Nothing moved and nothing is waiting to be written: the stored index stays as it is, unless
    // find reported many paths that had not changed (a copy, a chmod or a touch moves ctimes
    // alone): the manifest then records this check, or every later process stats them again.
    const restamp = (begun?.check.reportedCount ?? 0) >= RESTAMP_REPORTED;
    if (present === undefined && (batch?.empty ?? true) && changed === 0 && !this.uncommitted && this.options.embed === undefined && !restamp) return report();
    progress?.({ phase: "writing", done: 0, total: 1 });
    const written = await writer();
    await written.flush();
    progress?.({ phase: "reading", done: changed, total: changed });
    if (this.options.embed !== undefined) {
      const persistVectors = this.options.persist?.() !== false ? (vectors: Map<string, VectorRecord>) => this.store.saveVectors(vectors) : undefined;
      const { embedMissing } = await import("./embed-missing.js");
      await embedMissing(this, this.vectors, this.options.embed, { onProgress: this.options.onProgress, save: persistVectors, signal });
    }
    this.manifest = {
      version: INDEX_FORMAT_VERSION,
      updatedAt: Date.now(),
      files: this.files.size,
      skipped: present === undefined ? skipped : [...this.manifest.skipped.filter((entry) => !inScope(entry.path)), ...skipped],
      segments: [],
      ...(listing !== undefined ? { listing } : {}),
    };
    await this.save(persist, written.made);
    return report();
  }

  /** A writer of this index's next segments (its module loaded on first use). */
  private async segmentBatch(persist: boolean): Promise<SegmentBatch> {
    const { SegmentBatch } = await import("./segment-batch.js");
    return new SegmentBatch(this.store, this.segments, persist, this.options.segmentPostings ?? SEGMENT_POSTINGS);
  }

  /** Reads and analyses the queued files into `writer`, writing a segment whenever it is full. */
  private async analyse(queue: FileQueue, writer: SegmentBatch, signal: AbortSignal | undefined): Promise<Analysed> {
    const invalidUtf8: string[] = [];
    const skipped: SkippedFile[] = [];
    let indexed = 0;
    let sameContent = 0;
    const apply = (file: FileToAnalyse, outcome: AnalysedOutcome) => {
      const known = this.files.get(file.path);
      if (outcome.kind === "unreadable") {
        skipped.push({ path: file.path, reason: "unreadable", detail: outcome.message });
      } else if (outcome.kind === "binary") {
        if (known !== undefined) writer.change({ path: file.path, state: "removed", size: 0, mtimeMs: 0 });
        skipped.push({ path: file.path, reason: "binary", detail: "contains NUL bytes", size: file.size, mtimeMs: file.mtimeMs });
      } else if (outcome.kind === "unchanged") {
        // Read again only because its mtime was too recent to trust: nothing to write, and it counts as unchanged.
        if (known?.size === file.size && known.mtimeMs === file.mtimeMs) sameContent++;
        else writer.change({ path: file.path, state: "touched", size: file.size, mtimeMs: file.mtimeMs });
      } else {
        if (outcome.record.header.invalidUtf8) invalidUtf8.push(file.path);
        writer.record(outcome.record, outcome.terms);
        indexed++;
      }
    };
    let done = 0;
    let workers = 0;
    const context = { maxChunkLines: this.options.maxChunkLines, workers: this.options.workers, parallelMinBytes: this.options.parallelMinBytes, signal };
    const { analyseFiles } = await import("./parallel.js");
    for await (const batch of analyseFiles(queue, context)) {
      workers = Math.max(workers, batch.workers);
      for (const outcome of batch.outcomes) apply(queue.files[done++]!, outcome);
      this.options.onProgress?.({ phase: "reading", done, total: queue.files.length });
      if (writer.full) await writer.flush();
    }
    return { indexed, sameContent, invalidUtf8, skipped, skippedPaths: new Set(skipped.map((entry) => entry.path)), workers };
  }

  /** Merges the segments when there are too many, and names them in the manifest (unless nothing may be written now). */
  private async save(persist: boolean, madeSegments: number): Promise<void> {
    if (this.segments.readers.length > MAX_SEGMENTS) await this.mergeFrom(mergeStart(this.segments.sizes()), persist);
    if (!persist) {
      this.uncommitted ||= madeSegments > 0;
      return;
    }
    const { segments: _segments, ...manifest } = this.manifest;
    this.manifest.segments = await this.store.commit(
      manifest,
      this.segments.readers.map((reader) => reader.name),
      () => this.mergeFrom(0, true),
    );
    this.uncommitted = false;
  }

  /** Replaces the segments from place `from` on (oldest first) with one holding their live files and what they said of older files; returns its name. */
  private async mergeFrom(from: number, persist: boolean): Promise<string> {
    const inputs = this.segments.liveBySegment(from);
    const changes = this.segments.statesBefore(from);
    const { mergeSegments } = await import("./segment-build.js");
    const made = await this.store.makeSegment(persist, (sink) => mergeSegments(sink, inputs, changes));
    const old = this.segments.readers;
    this.segments = new SegmentSet(this.options.hidden);
    for (const reader of old.slice(0, from)) this.segments.add(reader);
    this.segments.add(made.reader);
    for (const reader of old.slice(from)) {
      this.store.forget(reader.name);
      reader.close();
    }
    return made.reader.name;
  }
}
