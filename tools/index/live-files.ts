/**
 * The files of an index's segments as a search sees them (segment-set.ts): each live path's
 * slot, and a file's `IndexEntry`, made when something asks for it.
 */
import type { FileMeta, SegmentFileHeader, SegmentReader } from "./segment.js";
import type { SymbolNames } from "./symbol-table.js";
import type { SymbolDefinition } from "./symbols.js";

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

export interface Placed {
  reader: SegmentReader;
  base: number;
}

/** A live file's slot: its segment's place in the set times this, plus its number in the segment. */
export const SLOT_SPAN = 2 ** 32;

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

  /** Calls `visit` with each live file's slot, size and mtime, making no entries. */
  eachSlot(visit: (slot: number, size: number, mtimeMs: number) => void): void {
    for (const slot of this.slots.values()) {
      const [size, mtimeMs] = this.recordedAt(slot);
      visit(slot, size, mtimeMs);
    }
  }

  /**
   * Calls `visit` with each live file larger than `size` or with a mtime at or after `mtimeMs`
   * (read from the columns, no entry made; every other live file has neither); stops when it
   * returns false.
   */
  eachBeyond(size: number, mtimeMs: number, visit: (path: string, size: number, mtimeMs: number) => boolean): void {
    for (let place = 0; place < this.placed.length; place++) {
      const table = this.placed[place]!.reader.table;
      for (const file of table.beyond(size, mtimeMs)) {
        const slot = place * SLOT_SPAN + file;
        const path = table.path(file);
        // A dead file, or one a later segment touched (its size and mtime are the touch's, below).
        if (this.slots.get(path) !== slot || this.touched.has(slot)) continue;
        if (!visit(path, table.size(file), table.mtimeMs(file))) return;
      }
    }
    for (const [slot, [touchedSize, touchedMtime]] of this.touched) {
      if (touchedSize <= size && touchedMtime < mtimeMs) continue;
      if (!visit(this.placed[Math.floor(slot / SLOT_SPAN)]!.reader.table.path(slot % SLOT_SPAN), touchedSize, touchedMtime)) return;
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
