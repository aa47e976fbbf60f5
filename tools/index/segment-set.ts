/**
 * The live view over an index's segments, oldest first: which file each path is now (a later
 * segment's file replaces an earlier one's), which chunks are live, and the figures BM25 needs.
 * Terms are looked up and their postings read per query, never loaded whole; document
 * frequencies count every segment's postings (as Lucene's do until segments merge).
 */
import { LiveFiles, type Placed, SLOT_SPAN } from "./live-files.js";
import type { SegmentSize } from "./merge-policy.js";
import { ScoreBoard } from "./score-board.js";
import { CHUNK_ROW, type DictionaryEntry, type SegmentReader, summedChunkLengths } from "./segment.js";
import type { FileChange } from "./segment-build.js";
import type { SymbolDefinition } from "./symbols.js";

const K1 = 1.2;
const B = 0.75;

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
  /** The live chunks' summed lengths, counted when a query first needs them after a change (an update never does). */
  private liveLength: number | undefined = 0;
  /** The chunks marked dead, as (place in the set, first chunk in its segment, count) triples: their lengths are taken off the segments' totals. */
  private readonly dead: number[] = [];

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
    this.liveLength = undefined;
    // The segment's chunks start live; a hidden file's are then marked dead (and a removal's or a touch's, which should hold none).
    this.alive.fill(1, base, this.chunkTotal);
    this.live += reader.chunkCount;
    const table = reader.table;
    for (let file = 0; file < table.length; file++) {
      const path = table.path(file);
      const slot = place * SLOT_SPAN + file;
      const state = table.state(file);
      const hidden = this.hidden?.(path) === true;
      if (state !== undefined || hidden) this.killChunks(slot);
      if (hidden) continue;
      const known = this.files.slotOf(path);
      if (state === "touched") {
        if (known !== undefined) this.files.touch(known, table.size(file), table.mtimeMs(file));
        continue;
      }
      if (known !== undefined) this.kill(path, known);
      if (state !== "removed") this.files.place(path, slot);
    }
  }

  private kill(path: string, slot: number): void {
    this.files.drop(path, slot);
    this.killChunks(slot);
  }

  /** Marks the chunks of the file in `slot` dead. */
  private killChunks(slot: number): void {
    const { reader, base } = this.placed[Math.floor(slot / SLOT_SPAN)]!;
    const file = slot % SLOT_SPAN;
    const first = reader.table.firstChunks[file]!;
    const chunks = reader.table.chunks(file);
    if (chunks === 0) return;
    this.alive.fill(0, base + first, base + first + chunks);
    this.live -= chunks;
    // A file's chunks die once: its slot is dropped with them (a hidden or changed file's are never placed).
    this.dead.push(Math.floor(slot / SLOT_SPAN), first, chunks);
  }

  /**
   * The live chunks' summed lengths (BM25's average length): each segment's total, less the
   * lengths of the chunks marked dead. A fresh process's search counted every chunk's before;
   * the dead ones are few (the files later segments replaced).
   */
  get liveChunkLengths(): number {
    if (this.liveLength !== undefined) return this.liveLength;
    let total = 0;
    for (const { reader } of this.placed) total += reader.chunkLengths;
    const dead = this.dead;
    for (let at = 0; at < dead.length; at += 3) total -= summedChunkLengths(this.placed[dead[at]!]!.reader.chunkRows, dead[at + 1]!, dead[at + 1]! + dead[at + 2]!);
    this.liveLength = total;
    return total;
  }

  /** Closes every segment (after a merge replaced them, or when the index is dropped). */
  close(): void {
    for (const { reader } of this.placed) reader.close();
  }

  /** Each segment's chunks and live chunks, oldest first (what the merge policy weighs). */
  sizes(): SegmentSize[] {
    return this.placed.map(({ reader, base }) => {
      let live = 0;
      for (let chunk = base; chunk < base + reader.chunkCount; chunk++) live += this.alive[chunk]!;
      return { chunks: reader.chunkCount, live };
    });
  }

  /**
   * What the segments from place `from` on say about the files of the segments before it, as
   * change rows for the segment that merges them: a removal for each path those hold that is no
   * longer live, a touch for each of their live files whose size or mtime a later segment changed.
   * (A path live in a merged segment needs neither: its record there replaces the older ones.)
   */
  statesBefore(from: number): FileChange[] {
    const changes: FileChange[] = [];
    const removed = new Set<string>();
    for (let place = 0; place < from; place++) {
      const table = this.placed[place]!.reader.table;
      for (let file = 0; file < table.length; file++) {
        if (table.state(file) !== undefined) continue;
        const path = table.path(file);
        if (this.hidden?.(path)) continue;
        const slot = this.files.slotOf(path);
        if (slot === undefined) {
          if (!removed.has(path)) changes.push({ path, state: "removed", size: 0, mtimeMs: 0 });
          removed.add(path);
        } else if (slot === place * SLOT_SPAN + file) {
          const now = this.files.recorded(path)!;
          if (now.size !== table.size(file) || now.mtimeMs !== table.mtimeMs(file)) changes.push({ path, state: "touched", ...now });
        }
      }
    }
    return changes;
  }

  /** The live files of each segment from place `from` on, for a merge (read from the columns, no entry made). */
  liveBySegment(from: number): Array<{ reader: SegmentReader; live: Array<{ file: number; size: number; mtimeMs: number }> }> {
    const bySegment = this.placed.slice(from).map(({ reader }) => ({ reader, live: [] as Array<{ file: number; size: number; mtimeMs: number }> }));
    this.files.eachSlot((slot, size, mtimeMs) => {
      const place = Math.floor(slot / SLOT_SPAN);
      if (place >= from) bySegment[place - from]!.live.push({ file: slot % SLOT_SPAN, size, mtimeMs });
    });
    for (const { live } of bySegment) live.sort((left, right) => left.file - right.file);
    return bySegment;
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

  /** A chunk's file path alone (ranking asks it of a few hundred chunks a query). */
  pathOf(id: number): string {
    const { reader, fileIndex } = this.locate(id);
    return reader.table.path(fileIndex);
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

  /** The id of the first chunk, in file order, of a live file whose lines hold `line`: read from the chunk table, no object made per chunk. */
  chunkHolding(path: string, line: number): number | undefined {
    const entry = this.files.get(path);
    if (entry === undefined) return undefined;
    const reader = entry.segment;
    const first = reader.table.firstChunks[entry.fileIndex]!;
    const rows = reader.chunkRows;
    for (let chunk = 0; chunk < entry.chunkCount; chunk++) {
      const row = CHUNK_ROW * (first + chunk);
      if (rows[row]! <= line && rows[row + 1]! >= line) return entry.firstChunk + chunk;
    }
    return undefined;
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
    return new QueryTerms(this.placed, this.alive, this.live, this.live === 0 ? 1 : this.liveChunkLengths / this.live);
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
        scorePostings(board, ids, counts, reader.chunkRows, alive, base, idf, averageLength, mask);
      }
    }
    return board;
  }
}

/**
 * Adds one segment's postings of a term to the board. The loop that runs hot, in a function of
 * its own: V8 optimises it alone, in a fraction of the time it took to optimise `score` with its
 * iterations over maps and entries inlined (15-50 ms of a fresh search's background compile).
 */
function scorePostings(
  board: ScoreBoard,
  ids: Uint32Array,
  counts: Uint32Array,
  rows: Int32Array,
  alive: Uint8Array,
  base: number,
  idf: number,
  averageLength: number,
  mask: number,
): void {
  for (let at = 0; at < ids.length; at++) {
    const local = ids[at]!;
    if (alive[base + local] !== 1) continue;
    const count = counts[at]!;
    board.add(base + local, (idf * count * (K1 + 1)) / (count + K1 * (1 - B + (B * rows[CHUNK_ROW * local + 2]!) / averageLength)), mask);
  }
}
