/**
 * A persistent, incremental code index of one workspace: files, chunks, BM25 postings, the
 * symbol table and (optionally) chunk vectors for hybrid ranking. Stored under
 * `<workspace>/.clio/index/`; writes nothing else.
 */
import { promises as fs, readFileSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import { decodeText, type FileOutcome } from "./file-record.js";
import { analyseFiles, FileQueue } from "./parallel.js";
import { Postings } from "./postings.js";
import { IndexStore, INDEX_FORMAT_VERSION, shardOf, TermDictionary, type IndexedFile, type IndexManifest, type VectorRecord } from "./store.js";
import type { SymbolDefinition } from "./symbols.js";
import { TermCounter } from "./term-counter.js";
import { exclusionOf, walkFiles, type SkippedFile, type WalkedFile } from "./walk.js";

/** Turns texts into vectors (one per text, all of one length) for semantic ranking. */
export type Embedder = (texts: string[]) => Promise<number[][]>;

export interface IndexProgress {
  phase: "scanning" | "reading" | "embedding" | "writing";
  done: number;
  total: number;
}

export interface CodeIndexOptions {
  /** Files larger than this are skipped (default 1 MiB). */
  maxFileBytes?: number;
  /** Longest chunk in lines (default 60). */
  maxChunkLines?: number;
  /** Called as the work goes on (the terminal shows it). */
  onProgress?: (progress: IndexProgress) => void;
  /** Enables hybrid ranking: chunk vectors are stored beside the index. Off by default. */
  embed?: Embedder;
  /** Share of the semantic score in hybrid ranking, 0..1 (default 0.5). */
  semanticWeight?: number;
  /** Worker threads beside this one for large updates (default: the machine's parallelism less one, at most 3; 0 keeps the work in this thread). */
  workers?: number;
  /** Updates that read fewer bytes than this stay in this thread (default 8 MiB). */
  parallelMinBytes?: number;
  /**
   * Root-relative paths the person's deny rules keep from being read: never indexed, and
   * dropped from a stored index on open, so no search, explanation or overview shows them.
   */
  hidden?: (relative: string) => boolean;
  /**
   * False while nothing may be written in the workspace (plan mode): the index is then built
   * and kept in memory only, and written at the first update after it turns true again.
   */
  persist?: () => boolean;
}

export interface IndexReport {
  /** Files the index holds after the update. */
  files: number;
  /** Files read and analysed in this update (new or changed content). */
  indexed: number;
  unchanged: number;
  removed: number;
  skipped: SkippedFile[];
  /** Indexed files whose bytes were not valid UTF-8 (read with replacement characters). */
  invalidUtf8: string[];
  chunks: number;
  symbols: number;
  /** Worker threads that analysed files (0: all in this thread). */
  workers: number;
  durationMs: number;
}

export interface SymbolLocation {
  path: string;
  symbol: SymbolDefinition;
}

export const INDEX_DIRECTORY = path.join(".clio", "index");
const EMBED_BATCH = 64;

export class CodeIndex {
  readonly files = new Map<string, IndexedFile>();
  readonly postings = new Postings();
  readonly dictionary = new TermDictionary();
  private readonly counter = new TermCounter(this.dictionary);
  private readonly symbolTable = new Map<string, SymbolLocation[]>();
  private vectors = new Map<string, VectorRecord>();
  private manifest: IndexManifest = { version: INDEX_FORMAT_VERSION, updatedAt: 0, files: 0, skipped: [] };
  private readonly store: IndexStore;
  /** Shards changed while the index could not be written (plan mode), written at the next chance. */
  private readonly unsaved = new Set<number>();

  private constructor(
    /** The workspace root (absolute). */
    readonly root: string,
    readonly options: CodeIndexOptions,
  ) {
    this.store = new IndexStore(path.join(root, INDEX_DIRECTORY));
  }

  /** Opens the index of `root`, loading what is stored (nothing is walked until `update`). */
  static async open(root: string, options: CodeIndexOptions = {}): Promise<CodeIndex> {
    const index = new CodeIndex(root, options);
    const stored = await index.store.load(index.dictionary);
    if (stored !== undefined) {
      index.manifest = stored.manifest;
      for (const file of stored.files) if (!options.hidden?.(file.path)) index.put(file);
      index.postings.finishStaging(index.dictionary.size);
    }
    if (options.embed !== undefined) index.vectors = await index.store.loadVectors();
    return index;
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
    const all = this.symbolTable.get(name.toLowerCase()) ?? [];
    return [...all.filter((entry) => entry.symbol.name === name), ...all.filter((entry) => entry.symbol.name !== name)];
  }

  /** Names in the symbol table (lower-cased). */
  symbolNames(): IterableIterator<string> {
    return this.symbolTable.keys();
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
   * root): reads only files whose size or mtime changed (and re-analyses only those whose
   * hash changed), drops deleted files, and writes the changed shards.
   */
  async update(start: string = this.root, signal?: AbortSignal): Promise<IndexReport> {
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
    const dirty = new Set<number>();
    const invalidUtf8: string[] = [];
    const { queue, walking, carriedBinary } = this.walkIntoQueue(start);
    let indexed = 0;
    const analysisSkipped: SkippedFile[] = [];
    const apply = (file: WalkedFile, outcome: FileOutcome) => {
      if (outcome.kind === "unreadable") {
        analysisSkipped.push({ path: file.path, reason: "unreadable", detail: outcome.message });
        return;
      }
      dirty.add(shardOf(file.path));
      if (outcome.kind === "binary") {
        if (this.files.has(file.path)) this.drop(file.path);
        analysisSkipped.push({ path: file.path, reason: "binary", detail: "contains NUL bytes", size: file.size, mtimeMs: file.mtimeMs });
        return;
      }
      if (outcome.kind === "unchanged") {
        const known = this.files.get(file.path)!;
        known.size = file.size;
        known.mtimeMs = file.mtimeMs;
        return;
      }
      if (outcome.record.invalidUtf8) invalidUtf8.push(file.path);
      this.put(outcome.record);
      indexed++;
    };
    let done = 0;
    let workers = 0;
    try {
      const context = {
        counter: this.counter,
        dictionary: this.dictionary,
        maxChunkLines: this.options.maxChunkLines,
        workers: this.options.workers,
        parallelMinBytes: this.options.parallelMinBytes,
        signal,
      };
      for await (const batch of analyseFiles(queue, context)) {
        workers = Math.max(workers, batch.workers);
        for (const outcome of batch.outcomes) apply(queue.files[done++]!, outcome);
        progress?.({ phase: "reading", done, total: queue.files.length });
      }
    } finally {
      this.postings.finishStaging(this.dictionary.size);
    }
    const walked = await walking;
    const present = new Set(walked.files.map((file) => file.path));
    let removed = 0;
    for (const filePath of [...this.files.keys()]) {
      if (inScope(filePath) && !present.has(filePath)) {
        this.drop(filePath);
        dirty.add(shardOf(filePath));
        removed++;
      }
    }
    const skipped = [...walked.skipped, ...carriedBinary, ...analysisSkipped];
    const changed = queue.files;
    progress?.({ phase: "reading", done: changed.length, total: changed.length });
    if (this.options.embed !== undefined) await this.embedMissing(this.options.embed, signal);
    this.manifest = {
      version: INDEX_FORMAT_VERSION,
      updatedAt: Date.now(),
      files: this.files.size,
      skipped: [...this.manifest.skipped.filter((entry) => !inScope(entry.path)), ...skipped],
    };
    if (this.options.persist?.() === false) {
      for (const shard of dirty) this.unsaved.add(shard);
    } else {
      for (const shard of this.unsaved) dirty.add(shard);
      this.unsaved.clear();
      progress?.({ phase: "writing", done: 0, total: dirty.size });
      await this.store.save(this.files, dirty, this.manifest, this.dictionary);
    }
    let chunks = 0;
    let symbols = 0;
    for (const file of this.files.values()) {
      chunks += file.chunks.length;
      symbols += file.symbols.length;
    }
    return {
      files: this.files.size,
      indexed,
      unchanged: walked.files.length - changed.length - carriedBinary.length,
      removed,
      skipped,
      invalidUtf8,
      chunks,
      symbols,
      workers,
      durationMs: performance.now() - began,
    };
  }

  /**
   * Starts walking `start`; as files are found, queues those to analyse (new ones, and those whose
   * size or mtime moved) and carries over binary files skipped last time and unchanged since.
   */
  private walkIntoQueue(start: string): { queue: FileQueue; walking: Promise<{ files: WalkedFile[]; skipped: SkippedFile[] }>; carriedBinary: SkippedFile[] } {
    const knownBinary = new Map(this.manifest.skipped.filter((entry) => entry.reason === "binary").map((entry) => [entry.path, entry]));
    const carriedBinary: SkippedFile[] = [];
    const queue = new FileQueue();
    const walking = walkFiles(this.root, start, {
      maxFileBytes: this.options.maxFileBytes,
      ...(this.options.hidden ? { hidden: this.options.hidden } : {}),
      onFiles: (found) => {
        for (const file of found) {
          const binary = knownBinary.get(file.path);
          if (binary !== undefined && binary.size === file.size && binary.mtimeMs === file.mtimeMs) {
            carriedBinary.push({ ...binary, detail: "contains NUL bytes (unchanged since the last index)" });
            continue;
          }
          const known = this.files.get(file.path);
          if (known === undefined || known.size !== file.size || known.mtimeMs !== file.mtimeMs) queue.push({ ...file, knownHash: known?.hash });
        }
      },
    });
    walking.then(
      () => queue.end(),
      () => queue.end(),
    );
    return { queue, walking, carriedBinary };
  }

  /** Adds a file; into an empty index its postings are staged, and laid out in one pass by `finishStaging`. */
  private put(file: IndexedFile): void {
    if (this.files.has(file.path)) this.drop(file.path);
    this.files.set(file.path, file);
    this.postings.stage(file);
    for (const symbol of file.symbols) {
      const key = symbol.name.toLowerCase();
      let list = this.symbolTable.get(key);
      if (list === undefined) this.symbolTable.set(key, (list = []));
      list.push({ path: file.path, symbol });
    }
  }

  private drop(filePath: string): void {
    const file = this.files.get(filePath);
    if (file === undefined) return;
    this.files.delete(filePath);
    this.postings.remove(filePath);
    for (const symbol of file.symbols) {
      const key = symbol.name.toLowerCase();
      const list = this.symbolTable.get(key)?.filter((entry) => entry.path !== filePath);
      if (list === undefined || list.length === 0) this.symbolTable.delete(key);
      else this.symbolTable.set(key, list);
    }
  }

  /** Embeds the chunks of files whose vectors are missing or stale, and stores them. */
  private async embedMissing(embed: Embedder, signal?: AbortSignal): Promise<void> {
    for (const filePath of [...this.vectors.keys()]) if (!this.files.has(filePath)) this.vectors.delete(filePath);
    const stale = [...this.files.values()].filter((file) => this.vectors.get(file.path)?.hash !== file.hash && file.chunks.length > 0);
    if (stale.length === 0) return;
    const pending: Array<{ file: IndexedFile; text: string }> = [];
    for (const file of stale) {
      const { text } = decodeText(await fs.readFile(path.join(this.root, file.path)));
      const lines = text.split("\n");
      for (const chunk of file.chunks) pending.push({ file, text: lines.slice(chunk.startLine - 1, chunk.endLine).join("\n") });
    }
    const results: number[][] = [];
    for (let start = 0; start < pending.length; start += EMBED_BATCH) {
      if (signal?.aborted) throw new ToolError("cancelled", "Embedding was cancelled.", "Run the index action again to finish it.");
      this.options.onProgress?.({ phase: "embedding", done: start, total: pending.length });
      const batch = pending.slice(start, start + EMBED_BATCH);
      const vectors = await embed(batch.map((entry) => entry.text));
      if (vectors.length !== batch.length) {
        throw new ToolError("internal_error", `The embedder returned ${vectors.length} vectors for ${batch.length} texts.`, "An embedder must return one vector per text.");
      }
      results.push(...vectors);
    }
    let position = 0;
    for (const file of stale) {
      this.vectors.set(file.path, { hash: file.hash, vectors: results.slice(position, position + file.chunks.length) });
      position += file.chunks.length;
    }
    if (this.options.persist?.() !== false) await this.store.saveVectors(this.vectors);
  }
}
