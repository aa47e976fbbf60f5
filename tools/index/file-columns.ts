/**
 * A segment's file list as stored: binary columns (all sizes, all mtimes, …) rather than an
 * object per file, so a fresh process opens a segment without parsing text per file. Numbers are
 * typed arrays viewed in place, hashes are 20 raw bytes, paths one UTF-8 run split on NUL (no
 * path holds one), and the few fields a few files have are a small JSON tail.
 *
 * Layout (little-endian): count, paths length, tail length, checksum of the rest (4 × u32); then
 * sizes, mtimes, meta offsets (f64 each); meta lengths, lines, symbol counts, chunks, language
 * numbers (u32 each); hashes (20 bytes each); flags (a byte each: the state, and whether the hash
 * is empty, as a removal's or a touch's is); paths; tail JSON (`languages`, `rare`). The reader
 * checks the lengths, the checksum and every language number: a list that does not hold
 * together is a damaged segment.
 */
import { checksumOf } from "./segment-bytes.js";
import type { IndexedFile } from "./store.js";

/** A file as a segment lists it; `state` marks a removal or a change of size and mtime only. */
export type SegmentFileHeader = Pick<IndexedFile, "path" | "size" | "mtimeMs" | "hash" | "language" | "lines" | "entry" | "invalidUtf8"> & {
  symbolCount: number;
  /** Its chunks, from chunk `firstChunk` of the segment. */
  chunks: number;
  firstChunk: number;
  /** Where its symbols, imports and chunk symbols are, as [offset, length]. */
  meta: [number, number];
  state?: "removed" | "touched";
};

/** Fields a few files have: kept aside, by file number (`hash` when it is neither a sha1 in hex nor empty). */
type RareFields = Pick<SegmentFileHeader, "entry" | "invalidUtf8"> & { hash?: string };

interface Tail {
  /** Each distinct language once; the language column holds each file's position in it. */
  languages: string[];
  rare: [number, RareFields][];
}

const HEAD = 16;
const HASH_BYTES = 20;
/** Bytes per file in the fixed-width columns: three f64, five u32, one hash, one flags byte. */
const FIXED_BYTES_PER_FILE = 3 * 8 + 5 * 4 + HASH_BYTES + 1;
/** The flags byte: the state in its two low bits, then whether the hash is empty. */
const STATES: ReadonlyArray<SegmentFileHeader["state"]> = [undefined, "removed", "touched"];
const EMPTY_HASH = 4;
const SHA1_HEX = /^[0-9a-f]{40}$/;

/** The columns of `headers` as bytes. */
export function fileColumnsBytes(headers: readonly SegmentFileHeader[]): Uint8Array {
  const count = headers.length;
  const tail: Tail = { languages: [], rare: [] };
  const languageNumbers = new Map<string, number>();
  const paths = Buffer.from(headers.map((header) => header.path).join("\0"), "utf8");
  if (headers.some((header) => header.path.includes("\0"))) throw new Error("a path holds a NUL character");
  const fixedAt = HEAD;
  const pathsAt = fixedAt + count * FIXED_BYTES_PER_FILE;
  const rareAt = pathsAt + paths.length;
  const columns = { sizes: new Float64Array(count), mtimes: new Float64Array(count), metaOffsets: new Float64Array(count) };
  const counts = {
    metaLengths: new Uint32Array(count),
    lines: new Uint32Array(count),
    symbolCounts: new Uint32Array(count),
    chunks: new Uint32Array(count),
    languageOf: new Uint32Array(count),
  };
  const hashes = Buffer.alloc(count * HASH_BYTES);
  const flags = new Uint8Array(count);
  headers.forEach((header, index) => {
    let language = languageNumbers.get(header.language);
    if (language === undefined) {
      language = tail.languages.push(header.language) - 1;
      languageNumbers.set(header.language, language);
    }
    columns.sizes[index] = header.size;
    columns.mtimes[index] = header.mtimeMs;
    columns.metaOffsets[index] = header.meta[0];
    counts.metaLengths[index] = header.meta[1];
    counts.lines[index] = header.lines;
    counts.symbolCounts[index] = header.symbolCount;
    counts.chunks[index] = header.chunks;
    counts.languageOf[index] = language;
    const rare: RareFields = {};
    if (SHA1_HEX.test(header.hash)) hashes.write(header.hash, index * HASH_BYTES, "hex");
    else if (header.hash === "") flags[index]! |= EMPTY_HASH;
    else rare.hash = header.hash;
    flags[index]! |= STATES.indexOf(header.state);
    if (header.entry !== undefined) rare.entry = header.entry;
    if (header.invalidUtf8 !== undefined) rare.invalidUtf8 = header.invalidUtf8;
    if (Object.keys(rare).length > 0) tail.rare.push([index, rare]);
  });
  const tailBytes = Buffer.from(JSON.stringify(tail), "utf8");
  const bytes = new Uint8Array(rareAt + tailBytes.length);
  let at = fixedAt;
  for (const column of [...Object.values(columns), ...Object.values(counts)]) {
    bytes.set(new Uint8Array(column.buffer), at);
    at += column.byteLength;
  }
  bytes.set(hashes, at);
  bytes.set(flags, at + hashes.length);
  bytes.set(paths, pathsAt);
  bytes.set(tailBytes, rareAt);
  const head = new DataView(bytes.buffer);
  head.setUint32(0, count, true);
  head.setUint32(4, paths.length, true);
  head.setUint32(8, tailBytes.length, true);
  head.setUint32(12, checksumOf(bytes.subarray(HEAD)), true);
  return bytes;
}

/**
 * A segment's file list read in place: what a fresh process needs of every file (path, size,
 * mtime, chunks) is read from the columns, and a file's header object is built only when
 * something asks for that file.
 */
export class FileTable {
  /** Each file's first chunk in the segment (counted from the chunks before it). */
  readonly firstChunks: Int32Array;
  private readonly rare = new Map<number, RareFields>();
  private readonly sizes: Float64Array;
  private readonly mtimes: Float64Array;
  private readonly metaOffsets: Float64Array;
  private readonly metaLengths: Uint32Array;
  private readonly lines: Uint32Array;
  private readonly symbolCounts: Uint32Array;
  private readonly chunkCounts: Uint32Array;
  private readonly languageOf: Uint32Array;

  private constructor(
    bytes: Uint8Array,
    private readonly paths: string[],
    private readonly hashes: Uint8Array,
    private readonly flags: Uint8Array,
    private readonly languages: string[],
  ) {
    const count = paths.length;
    const float = (column: number) => new Float64Array(bytes.buffer, bytes.byteOffset + HEAD + column * 8 * count, count);
    const whole = (column: number) => new Uint32Array(bytes.buffer, bytes.byteOffset + HEAD + 24 * count + column * 4 * count, count);
    [this.sizes, this.mtimes, this.metaOffsets] = [float(0), float(1), float(2)];
    [this.metaLengths, this.lines, this.symbolCounts, this.chunkCounts, this.languageOf] = [whole(0), whole(1), whole(2), whole(3), whole(4)];
    this.firstChunks = new Int32Array(count);
  }

  /** The table `stored` holds, or an error message when it does not hold together. */
  static from(stored: Uint8Array): FileTable | string {
    if (stored.length < HEAD) return "its file list is cut short";
    // Typed views need the bytes at a multiple of 8.
    const bytes = stored.byteOffset % 8 === 0 ? stored : new Uint8Array(stored);
    const head = new DataView(bytes.buffer, bytes.byteOffset, HEAD);
    const [count, pathsLength, tailLength] = [head.getUint32(0, true), head.getUint32(4, true), head.getUint32(8, true)];
    const pathsAt = HEAD + count * FIXED_BYTES_PER_FILE;
    if (pathsAt + pathsLength + tailLength !== bytes.length) return "its file list's length does not match its columns";
    if (checksumOf(bytes.subarray(HEAD)) !== head.getUint32(12, true)) return "its file list does not match its checksum";
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    const paths = count === 0 ? [] : buffer.toString("utf8", pathsAt, pathsAt + pathsLength).split("\0");
    if (paths.length !== count) return "its file list's paths do not match its count";
    let tail: Tail;
    try {
      tail = JSON.parse(buffer.toString("utf8", pathsAt + pathsLength)) as Tail;
    } catch {
      return "its file list's tail is not valid JSON";
    }
    if (typeof tail !== "object" || tail === null || !Array.isArray(tail.languages) || !Array.isArray(tail.rare)) return "its file list is missing columns";
    const hashesAt = pathsAt - count * (HASH_BYTES + 1);
    const table = new FileTable(bytes, paths, bytes.subarray(hashesAt, pathsAt - count), bytes.subarray(pathsAt - count, pathsAt), tail.languages);
    // Checked with built-ins over whole columns: a loop here runs cold, in every fresh process, over every file.
    if (!tail.languages.every((language) => typeof language === "string") || (count > 0 && largestOf(table.languageOf) >= tail.languages.length)) {
      return "its file list names a language it does not hold";
    }
    // A flag's low two bits are a state (STATES: 0 to 2), its third bit EMPTY_HASH: 3, 7 and anything above 7 mean nothing.
    if (largestOf(table.flags) > 7 || table.flags.includes(3) || table.flags.includes(7)) return "its file list holds a flag it does not know";
    const { firstChunks, chunkCounts } = table;
    let firstChunk = 0;
    for (let index = 0; index < count; index++) {
      firstChunks[index] = firstChunk;
      firstChunk += chunkCounts[index]!;
    }
    for (const item of tail.rare as unknown[]) {
      const [index, rare] = Array.isArray(item) ? (item as [number, RareFields]) : [-1, null];
      if (!Number.isInteger(index) || index < 0 || index >= count || typeof rare !== "object" || rare === null) return "its file list's rare fields name a file it does not hold";
      table.rare.set(index, rare);
    }
    return table;
  }

  get length(): number {
    return this.paths.length;
  }
  path(index: number): string {
    return this.paths[index]!;
  }
  size(index: number): number {
    return this.sizes[index]!;
  }
  /** The largest size and the latest mtime of any file in the table. */
  bounds(): { size: number; mtimeMs: number } {
    return { size: largestOf(this.sizes), mtimeMs: largestOf(this.mtimes) };
  }
  mtimeMs(index: number): number {
    return this.mtimes[index]!;
  }
  /** The files larger than `size` or with a mtime at or after `mtimeMs`, in file order (a pass over two columns). */
  beyond(size: number, mtimeMs: number): number[] {
    const found: number[] = [];
    const { sizes, mtimes } = this;
    for (let index = 0; index < sizes.length; index++) if (sizes[index]! > size || mtimes[index]! >= mtimeMs) found.push(index);
    return found;
  }
  chunks(index: number): number {
    return this.chunkCounts[index]!;
  }
  symbolCount(index: number): number {
    return this.symbolCounts[index]!;
  }
  /** Where the file's meta blob is, as [offset, length]. */
  meta(index: number): [number, number] {
    return [this.metaOffsets[index]!, this.metaLengths[index]!];
  }
  state(index: number): SegmentFileHeader["state"] {
    return STATES[this.flags[index]! & 3];
  }

  /** The header of file `index`, built now. */
  header(index: number): SegmentFileHeader {
    const rare = this.rare.get(index);
    const header: SegmentFileHeader = {
      path: this.paths[index]!,
      size: this.sizes[index]!,
      mtimeMs: this.mtimes[index]!,
      hash: rare?.hash ?? ((this.flags[index]! & EMPTY_HASH) !== 0 ? "" : Buffer.from(this.hashes.buffer, this.hashes.byteOffset + index * HASH_BYTES, HASH_BYTES).toString("hex")),
      language: this.languages[this.languageOf[index]!]!,
      lines: this.lines[index]!,
      symbolCount: this.symbolCounts[index]!,
      chunks: this.chunkCounts[index]!,
      firstChunk: this.firstChunks[index]!,
      meta: this.meta(index),
    };
    if (rare?.entry !== undefined) header.entry = rare.entry;
    if (rare?.invalidUtf8 !== undefined) header.invalidUtf8 = rare.invalidUtf8;
    const state = this.state(index);
    if (state !== undefined) header.state = state;
    return header;
  }
}

/** The headers `stored` holds (each file's first chunk counted from the chunks before it), or an error message when they do not hold together. */
export function headersFromColumns(stored: Uint8Array): SegmentFileHeader[] | string {
  const table = FileTable.from(stored);
  if (typeof table === "string") return table;
  return Array.from({ length: table.length }, (_, index) => table.header(index));
}

/** The largest number of `column` (0 when empty), through the built-in `Math.max` a block at a time: a loop here runs cold, about 10 times slower. */
function largestOf(column: Float64Array | Uint32Array | Uint8Array): number {
  let largest = 0;
  for (let at = 0; at < column.length; at += 8192) largest = Math.max(largest, Math.max.apply(null, column.subarray(at, at + 8192) as unknown as number[]));
  return largest;
}
