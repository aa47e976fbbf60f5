/**
 * One segment of the code index: an immutable file a process reads without loading it whole,
 * as Lucene and tantivy do. It holds a set of files (their headers, chunk lines and lengths, and
 * each file's symbol table, imports and chunk symbols, read per file on demand: symbol-table.ts),
 * a term dictionary sorted by term, cut into
 * blocks of `BLOCK_TERMS` (dictionary-writer.ts) with only each block's first term kept in memory, and postings at
 * offsets (chunk ids as deltas, with counts, in varints). Symbol names have a dictionary of the
 * same shape whose postings are file numbers. A later segment's file replaces an earlier one's
 * of the same path, and a `removed` entry drops it.
 *
 * Layout: magic, meta blobs, chunk table (startLine, endLine, length, startByte, endByte per chunk), term postings,
 * symbol postings, term blocks, symbol blocks, file list (binary columns, file-columns.ts), block
 * index (each block's first term, offset and checksum, binary), footer JSON, trailer (footer
 * length, footer checksum, end magic). Every section is named by offset and length in the footer.
 */
import { blockIndexBytes, type DictionaryFooter, readBlockIndex, type StoredDictionary } from "./block-index.js";
import { DictionaryWriter } from "./dictionary-writer.js";
import { FileTable, fileColumnsBytes, type SegmentFileHeader } from "./file-columns.js";
import { ByteBuffer, ByteReader, checksumOf, SegmentDamage, type SegmentSink, type SegmentSource } from "./segment-bytes.js";
import { FileMeta } from "./symbol-table.js";

const MAGIC = Buffer.from("CLIOSG10", "latin1");
const END = Buffer.from("CLIOEND\n", "latin1");
const TRAILER = 16;
/** Numbers per chunk in a segment's chunk table: startLine, endLine, length, startByte, endByte. */
export const CHUNK_ROW = 5;

/** The lengths (each row's third number) of the chunks `from` up to `to` of a chunk table, summed. */
export function summedChunkLengths(rows: ArrayLike<number>, from: number, to: number): number {
  let total = 0;
  for (let chunk = from; chunk < to; chunk++) total += rows[CHUNK_ROW * chunk + 2]!;
  return total;
}

/** Decoded dictionary blocks a segment keeps between lookups (each about 32 entries). */
const CACHED_BLOCKS = 512;
/** Decoded postings a segment keeps between queries (8 bytes each). */
const CACHED_POSTINGS = 1_000_000;
/** Bytes a merge reads at a time from each segment it merges (`readsInOrder`). */
const READ_WINDOW = 256 * 1024;

export type { SegmentFileHeader } from "./file-columns.js";

export type { FileMeta } from "./symbol-table.js";

interface StoredFooter {
  chunkCount: number;
  chunks: [number, number];
  chunkSum: number;
  files: [number, number];
  /** The block index of both dictionaries (`blockIndexBytes`), and its checksum. */
  blocks: [number, number];
  blockSum: number;
  terms: StoredDictionary;
  symbols: StoredDictionary;
  /** The chunks' lengths summed (BM25's average length needs it); segments written before it was stored have none. */
  chunkLengths?: number;
}

/** JSON from bytes, or a damage error naming what did not parse. */
function parseOr(bytes: Uint8Array, what: string): unknown {
  try {
    // A view of the bytes, not a copy.
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8"));
  } catch {
    throw new SegmentDamage(`${what} is not valid JSON`);
  }
}

/**
 * Writes a segment in order: `addFile` for each file, then `addTerm` in term order, then
 * `addSymbol` in name order, then `finish`.
 */
export class SegmentWriter {
  private readonly headers: SegmentFileHeader[] = [];
  private readonly chunkRows = new ByteBuffer();
  private chunkCount = 0;
  private chunkLengths = 0;
  private phase: "files" | "terms" | "symbols" = "files";
  private chunksAt: [number, number] = [0, 0];
  private termPostings = 0;
  private symbolPostings = 0;
  private readonly terms = new DictionaryWriter();
  private readonly symbols = new DictionaryWriter();
  private readonly postings = new ByteBuffer();

  constructor(private readonly sink: SegmentSink) {
    sink.append(MAGIC);
  }

  get fileCount(): number {
    return this.headers.length;
  }

  /** Adds a file; `chunkRows` holds a `CHUNK_ROW` row for each of its chunks. Returns its first chunk's id in the segment. */
  addFile(header: Omit<SegmentFileHeader, "firstChunk" | "meta" | "chunks">, meta: Uint8Array, chunkRows: ArrayLike<number>): number {
    if (this.phase !== "files") throw new Error("files come before terms");
    const chunks = chunkRows.length / CHUNK_ROW;
    const at = this.sink.append(meta);
    const firstChunk = this.chunkCount;
    this.headers.push({ ...header, chunks, firstChunk, meta: [at, meta.length] });
    const rows = new Uint8Array(new Int32Array(Array.from(chunkRows)).buffer);
    this.chunkRows.raw(rows);
    this.chunkLengths += summedChunkLengths(chunkRows, 0, chunks);
    this.chunkCount += chunks;
    return firstChunk;
  }

  private startTerms(): void {
    if (this.phase !== "files") return;
    this.phase = "terms";
    this.chunksAt = [this.sink.append(this.chunkRows.view()), this.chunkRows.length];
    this.termPostings = this.sink.written;
  }

  /** Adds a term with its postings: chunk ids ascending, each with its count. */
  addTerm(term: string, ids: ArrayLike<number>, counts: ArrayLike<number>): void {
    const at = this.appendPostings(ids, counts, 0, ids.length);
    this.terms.add(term, ids.length, at, this.postings.length);
  }

  /** `addTerm` for a term spelled by source[start, end) (ASCII), without a string for it, with the postings ids[from, to) and counts[from, to). */
  addTermBytes(source: Uint8Array, start: number, end: number, ids: ArrayLike<number>, counts: ArrayLike<number>, from: number, to: number): void {
    const at = this.appendPostings(ids, counts, from, to);
    this.terms.addBytes(source, start, end, to - from, at, this.postings.length);
  }

  /** Writes a term's postings (in `this.postings` too, until the next term); returns where they start. */
  private appendPostings(ids: ArrayLike<number>, counts: ArrayLike<number>, from: number, to: number): number {
    this.startTerms();
    this.postings.clear();
    this.postings.deltaPairs(ids, counts, from, to);
    return this.sink.append(this.postings.view());
  }

  /** Adds a lower-cased symbol name with the (ascending) numbers of the files that define it. */
  addSymbol(name: string, files: readonly number[]): void {
    this.startTerms();
    if (this.phase === "terms") {
      this.phase = "symbols";
      this.symbolPostings = this.sink.written;
    }
    this.postings.clear();
    let previous = 0;
    for (const file of files) {
      this.postings.varint(file - previous);
      previous = file;
    }
    const at = this.sink.append(this.postings.view());
    this.symbols.add(name, files.length, at, this.postings.length);
  }

  /** Writes the dictionaries, the file list and the footer; returns the bytes for a memory sink. */
  finish(): Uint8Array | undefined {
    this.startTerms();
    if (this.phase === "terms") this.symbolPostings = this.sink.written;
    const terms = this.terms.finish(this.sink, this.termPostings);
    const symbols = this.symbols.finish(this.sink, this.symbolPostings);
    const files = fileColumnsBytes(this.headers);
    const blocks = blockIndexBytes([terms, symbols]);
    const stored = ({ firsts: _firsts, offsets, sums: _sums, ...rest }: DictionaryFooter): StoredDictionary => ({ ...rest, start: offsets[0] ?? rest.end });
    if (this.sink.written + blocks.length > 2 ** 32) throw new Error("a segment may not grow past 4 GiB");
    const footer: StoredFooter = {
      chunkCount: this.chunkCount,
      chunks: this.chunksAt,
      chunkSum: checksumOf(this.chunkRows.view()),
      files: [this.sink.append(files), files.length],
      blocks: [this.sink.append(blocks), blocks.length],
      blockSum: checksumOf(blocks),
      terms: stored(terms),
      symbols: stored(symbols),
      chunkLengths: this.chunkLengths,
    };
    const footerBytes = Buffer.from(JSON.stringify(footer), "utf8");
    this.sink.append(footerBytes);
    const trailer = Buffer.alloc(TRAILER);
    trailer.writeUInt32LE(footerBytes.length, 0);
    trailer.writeUInt32LE(checksumOf(footerBytes), 4);
    END.copy(trailer, 8);
    this.sink.append(trailer);
    return this.sink.finish();
  }
}

/** A dictionary entry: how many postings, and where they are. */
export interface DictionaryEntry {
  term: string;
  frequency: number;
  offset: number;
  length: number;
}

/** A term's postings decoded: chunk ids ascending, and each one's count. */
export interface PostingList {
  ids: Uint32Array;
  counts: Uint32Array;
}

/**
 * A term's postings (delta-coded chunk ids and counts, as varints) decoded into `ids` and
 * `counts`, checked as they are read. The one decoder of postings: the loop a search runs hot,
 * on its own and with no callback, which V8 optimises in a fraction of the time a visiting one took.
 */
export function decodePostingsInto(bytes: Uint8Array, frequency: number, chunkCount: number, ids: Uint32Array, counts: Uint32Array): void {
  let position = 0;
  let chunk = 0;
  for (let index = 0; index < frequency; index++) {
    // Two varints: the gap to this chunk, then its count.
    for (let number = 0; number < 2; number++) {
      let value = 0;
      let scale = 1;
      let ended = false;
      for (let shift = 0; shift < 8 && !ended; shift++) {
        if (position >= bytes.length) throw new SegmentDamage("a number runs past its section");
        const byte = bytes[position++]!;
        value += (byte & 0x7f) * scale;
        ended = byte < 0x80;
        scale *= 0x80;
      }
      if (!ended) throw new SegmentDamage("a number is too long");
      if (number === 0) chunk += value;
      else counts[index] = value;
    }
    if (chunk >= chunkCount) throw new SegmentDamage("a posting names a chunk it does not hold");
    ids[index] = chunk;
  }
}

/** Reads a segment on demand: the footer, file list and chunk table when opened; dictionary blocks, postings and meta blobs when asked. */
export class SegmentReader {
  /** Its file list, read in place (file-columns.ts). */
  readonly table: FileTable;
  private headers: SegmentFileHeader[] | undefined;
  private rows: Int32Array | undefined;
  private readonly footer: StoredFooter;
  /** Both dictionaries' block indexes, decoded at the first lookup (an update never looks a term up). */
  private dictionaries: { terms: DictionaryFooter; symbols: DictionaryFooter } | undefined;
  private readonly metaCache = new Map<number, FileMeta>();
  /** Decoded blocks by dictionary, most recently used last: a query looks up many words in few blocks, and the next query often in the same ones. */
  private readonly blockCache = new Map<DictionaryFooter, Map<number, DictionaryEntry[]>>();
  /** Decoded postings by offset, most recently used last: queries share their common words. */
  private readonly postingCache = new Map<number, PostingList>();
  private cachedPostings = 0;

  constructor(
    readonly name: string,
    private readonly source: SegmentSource,
  ) {
    const size = source.size;
    if (size < MAGIC.length + TRAILER || !Buffer.from(source.read(0, MAGIC.length)).equals(MAGIC)) throw new SegmentDamage("it does not start as a segment");
    const trailer = Buffer.from(source.read(size - TRAILER, TRAILER));
    if (!trailer.subarray(8).equals(END)) throw new SegmentDamage("it is cut short");
    const footerLength = trailer.readUInt32LE(0);
    if (footerLength > size - TRAILER - MAGIC.length) throw new SegmentDamage("its footer is longer than the file");
    const footerBytes = source.read(size - TRAILER - footerLength, footerLength);
    if (checksumOf(footerBytes) !== trailer.readUInt32LE(4)) throw new SegmentDamage("its footer does not match its checksum");
    this.footer = parseOr(footerBytes, "its footer") as StoredFooter;
    const table = FileTable.from(source.read(...this.footer.files));
    if (typeof table === "string") throw new SegmentDamage(table);
    this.table = table;
    if (this.footer.chunks[1] !== this.footer.chunkCount * CHUNK_ROW * 4) throw new SegmentDamage("its chunk table does not match its chunk count");
    const last = table.length - 1;
    const chunks = last < 0 ? 0 : table.firstChunks[last]! + table.chunks(last);
    if (chunks !== this.footer.chunkCount) throw new SegmentDamage("its files do not match its chunks");
  }

  /** startLine, endLine, length, startByte, endByte for each chunk (read and checked at first use: an update needs none of it). */
  get chunkRows(): Int32Array {
    if (this.rows !== undefined) return this.rows;
    const rows = this.source.read(...this.footer.chunks);
    if (checksumOf(rows) !== this.footer.chunkSum) throw new SegmentDamage("its chunk table does not match its checksum");
    // A copy only when the bytes do not start at a multiple of 4 (a view needs that).
    this.rows = rows.byteOffset % 4 === 0 ? new Int32Array(rows.buffer, rows.byteOffset, rows.length / 4) : new Int32Array(new Uint8Array(rows).buffer);
    return this.rows;
  }

  /** The term and symbol dictionaries' block indexes, read and checked at first use. */
  private get dictionary(): { terms: DictionaryFooter; symbols: DictionaryFooter } {
    if (this.dictionaries !== undefined) return this.dictionaries;
    const blocks = this.source.read(...this.footer.blocks);
    if (checksumOf(blocks) !== this.footer.blockSum) throw new SegmentDamage("its block index does not match its checksum");
    const [terms, symbols] = readBlockIndex(blocks, [this.footer.terms, this.footer.symbols]);
    this.dictionaries = { terms: terms!, symbols: symbols! };
    return this.dictionaries;
  }

  /** Every file's header (built on first use: a search reads the table instead). */
  get files(): readonly SegmentFileHeader[] {
    this.headers ??= Array.from({ length: this.table.length }, (_, index) => this.table.header(index));
    return this.headers;
  }

  get chunkCount(): number {
    return this.footer.chunkCount;
  }

  /** The chunks' lengths summed: as stored, or counted from the chunk table for a segment that stores none. */
  get chunkLengths(): number {
    const stored = this.footer.chunkLengths;
    return Number.isSafeInteger(stored) && stored! >= 0 ? stored! : summedChunkLengths(this.chunkRows, 0, this.chunkCount);
  }

  close(): void {
    this.source.close();
  }

  /** The file's symbols, imports and chunk symbols (read once, then kept). */
  meta(fileIndex: number): FileMeta {
    let meta = this.metaCache.get(fileIndex);
    if (meta === undefined) {
      if (!(fileIndex >= 0 && fileIndex < this.table.length)) throw new SegmentDamage("a file number is out of range");
      const [offset, length] = this.table.meta(fileIndex);
      meta = FileMeta.read(length === 0 ? new Uint8Array(0) : this.source.read(offset, length));
      this.metaCache.set(fileIndex, meta);
    }
    return meta;
  }

  /** The raw meta blob of a file (copied as is by a merge). */
  metaBytes(fileIndex: number): Uint8Array {
    const [offset, length] = this.table.meta(fileIndex);
    return length === 0 ? new Uint8Array(0) : this.source.read(offset, length);
  }

  term(term: string): DictionaryEntry | undefined {
    return this.find(this.dictionary.terms, term);
  }

  /** Calls `visit` with each chunk id and count of a term's postings. */
  postings(entry: DictionaryEntry, visit: (chunk: number, count: number) => void): void {
    this.visitPostings(this.source.read(entry.offset, entry.length), entry, visit, { ids: new Uint32Array(0), counts: new Uint32Array(0) });
  }

  /**
   * `postings` for terms asked in dictionary order, as a merge asks them: a term's postings lie
   * right after the one before it, so they are read a window at a time (`readsInOrder`), and
   * decoded into the same arrays, grown as needed.
   */
  postingsInOrder(): (entry: DictionaryEntry, visit: (chunk: number, count: number) => void) => void {
    const read = this.readsInOrder();
    const scratch = { ids: new Uint32Array(0), counts: new Uint32Array(0) };
    return (entry, visit) => this.visitPostings(read(entry.offset, entry.length), entry, visit, scratch);
  }

  /**
   * Reads of ranges asked in ascending order, a window of the file at a time: a merge walks a
   * segment's dictionary blocks and postings in order, and read each range alone it made tens of
   * thousands of reads for a few small segments.
   */
  private readsInOrder(): (offset: number, length: number) => Uint8Array {
    let window: Uint8Array = new Uint8Array(0);
    let start = 0;
    return (offset, length) => {
      if (offset < start || offset + length > start + window.length) {
        start = offset;
        window = this.source.read(start, Math.max(length, Math.min(READ_WINDOW, this.source.size - start)));
      }
      return window.subarray(offset - start, offset - start + length);
    };
  }

  /** Decodes a term's postings from `bytes` into `scratch` (grown when too small), then visits them. */
  private visitPostings(bytes: Uint8Array, entry: DictionaryEntry, visit: (chunk: number, count: number) => void, scratch: PostingList): void {
    const frequency = entry.frequency;
    if (scratch.ids.length < frequency) [scratch.ids, scratch.counts] = [new Uint32Array(frequency), new Uint32Array(frequency)];
    const { ids, counts } = scratch;
    decodePostingsInto(bytes, frequency, this.footer.chunkCount, ids, counts);
    for (let at = 0; at < frequency; at++) visit(ids[at]!, counts[at]!);
  }

  /** A term's postings decoded, kept for later queries (within a bound, least recently used out). */
  postingList(entry: DictionaryEntry): PostingList {
    let list = this.postingCache.get(entry.offset);
    if (list !== undefined) {
      this.postingCache.delete(entry.offset);
      this.postingCache.set(entry.offset, list);
      return list;
    }
    list = { ids: new Uint32Array(entry.frequency), counts: new Uint32Array(entry.frequency) };
    decodePostingsInto(this.source.read(entry.offset, entry.length), entry.frequency, this.footer.chunkCount, list.ids, list.counts);
    if (entry.frequency > CACHED_POSTINGS / 4) return list;
    this.postingCache.set(entry.offset, list);
    this.cachedPostings += entry.frequency;
    for (const [offset, oldest] of this.postingCache) {
      if (this.cachedPostings <= CACHED_POSTINGS) break;
      this.postingCache.delete(offset);
      this.cachedPostings -= oldest.ids.length;
    }
    return list;
  }

  /** The numbers of the files that define a symbol of this lower-cased name. */
  symbolFiles(name: string): number[] {
    const entry = this.find(this.dictionary.symbols, name);
    return entry === undefined ? [] : this.filesOf(this.source.read(entry.offset, entry.length), entry);
  }

  /** A symbol's files from its postings' bytes. */
  private filesOf(bytes: Uint8Array, entry: DictionaryEntry): number[] {
    const reader = new ByteReader(bytes);
    const files: number[] = [];
    let file = 0;
    for (let index = 0; index < entry.frequency; index++) {
      file += reader.varint();
      if (file >= this.table.length) throw new SegmentDamage("a symbol names a file it does not hold");
      files.push(file);
    }
    return files;
  }

  /** Every term entry, in term order (for a merge). */
  *termEntries(): Generator<DictionaryEntry> {
    yield* this.entries(this.dictionary.terms);
  }

  /** Every symbol name with its files, in name order (for a merge). */
  *symbolEntries(): Generator<{ name: string; files: number[] }> {
    const read = this.readsInOrder();
    for (const entry of this.entries(this.dictionary.symbols)) yield { name: entry.term, files: this.filesOf(read(entry.offset, entry.length), entry) };
  }

  private *entries(dictionary: DictionaryFooter): Generator<DictionaryEntry> {
    const read = this.readsInOrder();
    for (let block = 0; block < dictionary.firsts.count; block++) yield* this.block(dictionary, block, read);
  }

  private block(dictionary: DictionaryFooter, block: number, read = (offset: number, length: number) => this.source.read(offset, length)): DictionaryEntry[] {
    const start = dictionary.offsets[block]!;
    const end = dictionary.offsets[block + 1] ?? dictionary.end;
    const bytes = read(start, end - start);
    if (checksumOf(bytes) !== dictionary.sums[block]) throw new SegmentDamage("a dictionary block does not match its checksum");
    const reader = new ByteReader(bytes);
    const entries: DictionaryEntry[] = [];
    while (!reader.done) entries.push({ term: reader.text(), frequency: reader.varint(), offset: reader.varint(), length: reader.varint() });
    return entries;
  }

  private find(dictionary: DictionaryFooter, term: string): DictionaryEntry | undefined {
    const firsts = dictionary.firsts;
    let low = 0;
    let high = firsts.count - 1;
    // The last block whose first term is at or before `term`.
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (firsts.at(middle) <= term) low = middle + 1;
      else high = middle - 1;
    }
    if (high < 0) return undefined;
    return this.cachedBlock(dictionary, high).find((entry) => entry.term === term);
  }

  /** A block through the cache (a merge reads every block once and goes around it). */
  private cachedBlock(dictionary: DictionaryFooter, block: number): DictionaryEntry[] {
    let blocks = this.blockCache.get(dictionary);
    if (blocks === undefined) this.blockCache.set(dictionary, (blocks = new Map()));
    let entries = blocks.get(block);
    if (entries !== undefined) {
      blocks.delete(block);
    } else {
      entries = this.block(dictionary, block);
      if (blocks.size >= CACHED_BLOCKS) blocks.delete(blocks.keys().next().value!);
    }
    blocks.set(block, entries);
    return entries;
  }
}
