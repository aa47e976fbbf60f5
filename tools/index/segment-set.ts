/**
 * The live view over an index's segments, oldest first: which file each path is now (a later
 * segment's file replaces an earlier one's), which chunks are live, and the figures BM25 needs.
 * Terms are looked up and their postings read per query, never loaded whole; document
 * frequencies count every segment's postings (as Lucene's do until segments merge).
 */
import { ScoreBoard } from "./score-board.js";
import { CHUNK_ROW, type DictionaryEntry, type FileMeta, type SegmentFileHeader, type SegmentReader } from "./segment.js";
import type { SymbolNames } from "./symbol-table.js";
import type { SymbolDefinition } from "./symbols.js";

const K1 = 1.2;
const B = 0.75;

/** A file of the index as searches, overviews and explanations see it; its header, symbols and imports are read on first use. */
export class IndexEntry {
  private built: SegmentFileHeader | undefined;

  constructor(
    private readonly reader: SegmentReader,
    /** Its number in its segment. */
    readonly fileIndex: number,
    /** The id of its first chunk in the whole index. */
    readonly firstChunk: number,
    public size: number,
    public mtimeMs: number,
  ) {}

  private get header(): SegmentFileHeader {
    this.built ??= this.reader.table.header(this.fileIndex);
    return this.built;
  }
  get path(): string {
    return this.reader.table.path(this.fileIndex);
  }
  get hash(): string {
    return this.header.hash;
  }
  get language(): string {
    return this.header.language;
  }
  get lines(): number {
    return this.header.lines;
  }
  get entry(): string | undefined {
    return this.header.entry;
  }
  get invalidUtf8(): boolean {
    return this.header.invalidUtf8 === true;
  }
  get chunkCount(): number {
    return this.reader.table.chunks(this.fileIndex);
  }
  get symbolCount(): number {
    return this.reader.table.symbolCount(this.fileIndex);
  }
  get segment(): SegmentReader {
    return this.reader;
  }
  private get meta(): FileMeta {
    return this.reader.meta(this.fileIndex);
  }
  get symbols(): SymbolDefinition[] {
    return this.meta.symbols;
  }
  /** Its symbol table as ranking reads it (names cut into stemmed parts, no objects made). */
  get names(): SymbolNames {
    return this.meta.names;
  }
  get imports(): string[] {
    return this.meta.imports;
  }
  /** The symbol a chunk (0-based, in this file) was cut at, if any. */
  chunkSymbol(chunk: number): string | undefined {
    const symbol = this.meta.chunkSymbols[chunk];
    return symbol === undefined || symbol === "" ? undefined : symbol;
  }
}

/** A chunk as ranking and hits see it. */
export interface ChunkView {
  path: string;
  /** Its place among its file's chunks. */
  index: number;
  startLine: number;
  endLine: number;
  /** Where its bytes start and end in its file as indexed (to read only them while the file has not changed). */
  startByte: number;
  endByte: number;
  symbol?: string;
}

interface Placed {
  reader: SegmentReader;
  base: number;
}

/** A live file's slot: its segment's place in the set times this, plus its number in the segment. */
const SLOT_SPAN = 2 ** 32;

/**
 * The live files by path. A fresh process opens the index for one search, so the view holds
 * only each path's slot; a file's `IndexEntry` is made when something asks for it, and the change
 * check reads sizes and mtimes from the segments' columns (`each`).
 */
export class LiveFiles implements ReadonlyMap<string, IndexEntry> {
  private readonly slots = new Map<string, number>();
  private readonly made = new Map<number, IndexEntry>();
  /** Size and mtime of files a later segment marked touched (content unchanged). */
  private readonly touched = new Map<number, [number, number]>();

  constructor(private readonly placed: readonly Placed[]) {}

  get size(): number {
    return this.slots.size;
  }
  has(path: string): boolean {
    return this.slots.has(path);
  }
  get(path: string): IndexEntry | undefined {
    const slot = this.slots.get(path);
    return slot === undefined ? undefined : this.entryAt(slot);
  }
  keys(): MapIterator<string> {
    return this.slots.keys();
  }
  *values(): MapIterator<IndexEntry> {
    for (const slot of this.slots.values()) yield this.entryAt(slot);
  }
  *entries(): MapIterator<[string, IndexEntry]> {
    for (const [path, slot] of this.slots) yield [path, this.entryAt(slot)];
  }
  [Symbol.iterator](): MapIterator<[string, IndexEntry]> {
    return this.entries();
  }
  forEach(visit: (value: IndexEntry, key: string, map: ReadonlyMap<string, IndexEntry>) => void, thisArg?: unknown): void {
    for (const [path, entry] of this.entries()) visit.call(thisArg, entry, path, this);
  }

  /** Calls `visit` with each live file's path, size and mtime, making no entries; stops when it returns false. */
  each(visit: (path: string, size: number, mtimeMs: number) => boolean): void {
    for (const [path, slot] of this.slots) {
      const [size, mtimeMs] = this.recordedAt(slot);
      if (!visit(path, size, mtimeMs)) return;
    }
  }

  /** A live file's size and mtime, read from the columns (no entry made). */
  recorded(path: string): { size: number; mtimeMs: number } | undefined {
    const slot = this.slots.get(path);
    if (slot === undefined) return undefined;
    const [size, mtimeMs] = this.recordedAt(slot);
    return { size, mtimeMs };
  }

  private recordedAt(slot: number): [size: number, mtimeMs: number] {
    const touched = this.touched.size === 0 ? undefined : this.touched.get(slot);
    if (touched !== undefined) return touched;
    const table = this.placed[Math.floor(slot / SLOT_SPAN)]!.reader.table;
    const file = slot % SLOT_SPAN;
    return [table.size(file), table.mtimeMs(file)];
  }

  /** At least the largest size and the latest mtime of any live file (dead ones count too), read from the columns. */
  bounds(): { size: number; mtimeMs: number } {
    let [size, mtimeMs] = [0, 0];
    for (const { reader } of this.placed) {
      const table = reader.table.bounds();
      [size, mtimeMs] = [Math.max(size, table.size), Math.max(mtimeMs, table.mtimeMs)];
    }
    for (const [touchedSize, touchedMtime] of this.touched.values()) [size, mtimeMs] = [Math.max(size, touchedSize), Math.max(mtimeMs, touchedMtime)];
    return { size, mtimeMs };
  }

  /** Symbols defined in the live files, counted from the columns. */
  symbolCount(): number {
    let symbols = 0;
    for (const slot of this.slots.values()) symbols += this.placed[Math.floor(slot / SLOT_SPAN)]!.reader.table.symbolCount(slot % SLOT_SPAN);
    return symbols;
  }

  slotOf(path: string): number | undefined {
    return this.slots.get(path);
  }
  place(path: string, slot: number): void {
    this.slots.set(path, slot);
  }
  drop(path: string, slot: number): void {
    this.slots.delete(path);
    this.made.delete(slot);
    this.touched.delete(slot);
  }
  touch(slot: number, size: number, mtimeMs: number): void {
    this.touched.set(slot, [size, mtimeMs]);
    const made = this.made.get(slot);
    if (made !== undefined) {
      made.size = size;
      made.mtimeMs = mtimeMs;
    }
  }

  private entryAt(slot: number): IndexEntry {
    let entry = this.made.get(slot);
    if (entry === undefined) {
      const { reader, base } = this.placed[Math.floor(slot / SLOT_SPAN)]!;
      const file = slot % SLOT_SPAN;
      const [size, mtimeMs] = this.recordedAt(slot);
      entry = new IndexEntry(reader, file, base + reader.table.firstChunks[file]!, size, mtimeMs);
      this.made.set(slot, entry);
    }
    return entry;
  }
}

/** Stamps given out so far: every set and every segment added gets a new one. */
let stamps = 0;

export class SegmentSet {
  private readonly placed: Placed[] = [];
  /** Changes whenever the set does (a segment added): what was read of it before may be out of date. */
  stamp = ++stamps;
  readonly files = new LiveFiles(this.placed);
  private alive = new Uint8Array(0);
  private chunkTotal = 0;
  private live = 0;
  private liveLength = 0;

  constructor(private readonly hidden?: (path: string) => boolean) {}

  get readers(): readonly SegmentReader[] {
    return this.placed.map((entry) => entry.reader);
  }

  get chunkCount(): number {
    return this.live;
  }

  /** Adds a segment newer than all before it. */
  add(reader: SegmentReader): void {
    this.stamp = ++stamps;
    const base = this.chunkTotal;
    const place = this.placed.length;
    this.placed.push({ reader, base });
    this.chunkTotal += reader.chunkCount;
    if (this.alive.length < this.chunkTotal) {
      const larger = new Uint8Array(Math.max(this.chunkTotal, 2 * this.alive.length));
      larger.set(this.alive);
      this.alive = larger;
    }
    const table = reader.table;
    const rows = reader.chunkRows;
    for (let file = 0; file < table.length; file++) {
      const path = table.path(file);
      if (this.hidden?.(path)) continue;
      const state = table.state(file);
      const known = this.files.slotOf(path);
      if (state === "touched") {
        if (known !== undefined) this.files.touch(known, table.size(file), table.mtimeMs(file));
        continue;
      }
      if (known !== undefined) this.kill(path, known);
      if (state === "removed") continue;
      this.files.place(path, place * SLOT_SPAN + file);
      const first = table.firstChunks[file]!;
      const chunks = table.chunks(file);
      for (let chunk = first; chunk < first + chunks; chunk++) {
        this.alive[base + chunk] = 1;
        this.liveLength += rows[CHUNK_ROW * chunk + 2]!;
      }
      this.live += chunks;
    }
  }

  private kill(path: string, slot: number): void {
    const { reader, base } = this.placed[Math.floor(slot / SLOT_SPAN)]!;
    const file = slot % SLOT_SPAN;
    this.files.drop(path, slot);
    const first = reader.table.firstChunks[file]!;
    const chunks = reader.table.chunks(file);
    for (let chunk = first; chunk < first + chunks; chunk++) {
      this.alive[base + chunk] = 0;
      this.liveLength -= reader.chunkRows[CHUNK_ROW * chunk + 2]!;
    }
    this.live -= chunks;
  }

  /** Closes every segment (after a merge replaced them, or when the index is dropped). */
  close(): void {
    for (const { reader } of this.placed) reader.close();
  }

  /** The live files of each segment, for a merge. */
  liveBySegment(): Array<{ reader: SegmentReader; live: Array<{ file: number; size: number; mtimeMs: number }> }> {
    const bySegment = new Map(this.placed.map(({ reader }) => [reader, [] as Array<{ file: number; size: number; mtimeMs: number }>]));
    for (const entry of this.files.values()) bySegment.get(entry.segment)!.push({ file: entry.fileIndex, size: entry.size, mtimeMs: entry.mtimeMs });
    return [...bySegment].map(([reader, live]) => ({ reader, live: live.sort((left, right) => left.file - right.file) }));
  }

  /** A chunk by id, with the symbol it was cut at (read from its file's meta). */
  chunk(id: number): ChunkView {
    const { reader, fileIndex, local } = this.locate(id);
    const first = reader.table.firstChunks[fileIndex]!;
    const row = CHUNK_ROW * local;
    const rows = reader.chunkRows;
    const view: ChunkView = {
      path: reader.table.path(fileIndex),
      index: local - first,
      startLine: rows[row]!,
      endLine: rows[row + 1]!,
      startByte: rows[row + 3]!,
      endByte: rows[row + 4]!,
    };
    const symbol = reader.meta(fileIndex).chunkSymbols[view.index];
    if (symbol !== undefined && symbol !== "") view.symbol = symbol;
    return view;
  }

  /** A chunk's path and lines, without reading meta. */
  place(id: number): { path: string; startLine: number; endLine: number } {
    const { reader, fileIndex, local } = this.locate(id);
    return { path: reader.table.path(fileIndex), startLine: reader.chunkRows[CHUNK_ROW * local]!, endLine: reader.chunkRows[CHUNK_ROW * local + 1]! };
  }

  private locate(id: number): { reader: SegmentReader; fileIndex: number; local: number } {
    const { reader, base } = this.placeOf(id);
    const local = id - base;
    const firstChunks = reader.table.firstChunks;
    // The last file starting at or before the chunk (files without chunks start where the next one does).
    let low = 0;
    let high = firstChunks.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (firstChunks[middle]! <= local) low = middle;
      else high = middle - 1;
    }
    return { reader, fileIndex: low, local };
  }

  private placeOf(id: number): Placed {
    for (let index = this.placed.length - 1; index >= 0; index--) if (this.placed[index]!.base <= id) return this.placed[index]!;
    throw new RangeError(`no chunk ${id}`);
  }

  /** The live chunk ids of a file, in file order. */
  idsOf(path: string): number[] {
    const entry = this.files.get(path);
    return entry === undefined ? [] : Array.from({ length: entry.chunkCount }, (_, chunk) => entry.firstChunk + chunk);
  }

  /** Definitions of a lower-cased name, read from each segment's symbol dictionary. */
  definitions(key: string): Array<{ path: string; symbol: SymbolDefinition }> {
    const found: Array<{ path: string; symbol: SymbolDefinition }> = [];
    this.placed.forEach(({ reader }, place) => {
      for (const fileIndex of reader.symbolFiles(key)) {
        const path = reader.table.path(fileIndex);
        if (this.files.slotOf(path) !== place * SLOT_SPAN + fileIndex) continue;
        const names = this.files.get(path)!.names;
        for (let symbol = 0; symbol < names.count; symbol++) if (names.name(symbol).toLowerCase() === key) found.push({ path, symbol: names.definition(symbol) });
      }
    });
    return found;
  }

  /** A vocabulary for one query: terms are looked up in each segment as the query asks for them. */
  queryTerms(): QueryTerms {
    return new QueryTerms(this.placed, this.alive, this.live, this.live === 0 ? 1 : this.liveLength / this.live);
  }
}

/** The terms of one query, each with its entries in the segments that hold it. */
export class QueryTerms {
  private readonly ids = new Map<string, number>();
  private readonly found: Array<{ frequency: number; entries: Array<[Placed, DictionaryEntry]> }> = [];

  constructor(
    private readonly placed: readonly Placed[],
    private readonly alive: Uint8Array,
    private readonly live: number,
    private readonly averageLength: number,
  ) {}

  /** The query-local id of a term the index holds, else undefined. */
  lookup(term: string): number | undefined {
    const known = this.ids.get(term);
    if (known !== undefined) return known < 0 ? undefined : known;
    let frequency = 0;
    const entries: Array<[Placed, DictionaryEntry]> = [];
    for (const place of this.placed) {
      const entry = place.reader.term(term);
      if (entry === undefined) continue;
      entries.push([place, entry]);
      frequency += entry.frequency;
    }
    if (entries.length === 0) {
      this.ids.set(term, -1);
      return undefined;
    }
    this.ids.set(term, this.found.length);
    this.found.push({ frequency, entries });
    return this.found.length - 1;
  }

  /** Inverse document frequency (BM25's, never negative). */
  idf(id: number | undefined): number {
    const frequency = Math.min(this.live, id === undefined ? 0 : (this.found[id]?.frequency ?? 0));
    return Math.log(1 + (this.live - frequency + 0.5) / (frequency + 0.5));
  }

  /** Calls `visit` with each live chunk id holding the term, and its count. */
  each(id: number, visit: (chunk: number, count: number) => void): void {
    for (const [{ reader, base }, entry] of this.found[id]?.entries ?? []) {
      const { ids, counts } = reader.postingList(entry);
      for (let at = 0; at < ids.length; at++) if (this.alive[base + ids[at]!] === 1) visit(base + ids[at]!, counts[at]!);
    }
  }

  /**
   * BM25 scores of the chunks that hold any of the terms (id → query weight); with `masks`
   * (id → bits), each chunk also gets the OR of the bits of the terms it holds.
   */
  score(terms: ReadonlyMap<number, number>, masks?: ReadonlyMap<number, number>): ScoreBoard {
    const board = ScoreBoard.sized(this.alive.length);
    const alive = this.alive;
    const averageLength = this.averageLength;
    for (const [term, weight] of terms) {
      const idf = this.idf(term) * weight;
      const mask = masks?.get(term) ?? 0;
      for (const [{ reader, base }, entry] of this.found[term]?.entries ?? []) {
        const { ids, counts } = reader.postingList(entry);
        const rows = reader.chunkRows;
        for (let at = 0; at < ids.length; at++) {
          const local = ids[at]!;
          if (alive[base + local] !== 1) continue;
          const count = counts[at]!;
          board.add(base + local, (idf * count * (K1 + 1)) / (count + K1 * (1 - B + (B * rows[CHUNK_ROW * local + 2]!) / averageLength)), mask);
        }
      }
    }
    return board;
  }
}
