/**
 * The lines a search hit shows: a chunk's lines read from its file, and the window of them that
 * holds the most query words. What a file's reads found is kept between searches (a bounded
 * cache): where its lines start, and the text of the chunks already shown. The file's bytes are
 * not kept: they are read into one reused buffer, since new buffers for 20 MB of files cost three
 * times the reads themselves in page faults and garbage collection.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { BoundedCache } from "../bounded-cache.js";
import { decodeText } from "./file-record.js";
import { countTokensIn, holdsAny, stemHead } from "./tokenize.js";

/** Bytes of line starts and shown text kept between searches. */
const CACHED_BYTES = 32 * 1024 * 1024;
/** A file is read this much at a time, until the lines a hit shows are whole. */
const READ_BLOCK = 64 * 1024;
/** The reused read buffer grows to what a file needs, and is let go after a read above this. */
const KEPT_BUFFER = 4 * 1024 * 1024;

interface KnownFile {
  size: number;
  mtimeMs: number;
  /** Where each line starts, through the last line read so far. */
  lineStarts: Uint32Array;
  /** How many bytes from the file's start the line starts cover (all of it when `whole`). */
  length: number;
  whole: boolean;
  /** Lines already shown, by "start:end" (none when the file has fewer than `start` lines). */
  shown: Map<string, string[]>;
  /** Bytes it holds, as the cache counts them. */
  cost: number;
}

/** Files by absolute path. */
const files = new BoundedCache<string, KnownFile>(CACHED_BYTES, CACHED_BYTES / 4);
let buffer = Buffer.allocUnsafe(READ_BLOCK);

/** The size and mtime a file had when it was indexed. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
}

/** Where a chunk's bytes start and end in its file as indexed. */
export interface ByteSpan {
  startByte: number;
  endByte: number;
}

/** The reused buffer, at least `length` bytes long, holding its first `keep` bytes. */
function bufferOf(length: number, keep: number): Buffer {
  if (buffer.length < length) {
    const larger = Buffer.allocUnsafe(Math.max(length, 2 * buffer.length));
    buffer.copy(larger, 0, 0, keep);
    buffer = larger;
  }
  return buffer;
}

/** Reads bytes from..to of an open file into the start of the reused buffer. */
function readRange(descriptor: number, from: number, to: number): Buffer {
  const target = bufferOf(to - from, 0);
  let length = 0;
  while (length < to - from) {
    const read = readSync(descriptor, target, length, to - from - length, from + length);
    if (read === 0) break;
    length += read;
  }
  return target.subarray(0, length);
}

/**
 * Reads an open file from its start into the reused buffer until line `endLine` is whole (a hit's
 * chunk is often near the top of a large file), or to its end, noting where its lines start.
 */
function scan(descriptor: number, size: number, mtimeMs: number, endLine: number): { file: KnownFile; bytes: Buffer } {
  let starts = new Uint32Array(1024);
  let count = 1;
  let length = 0;
  for (;;) {
    const target = bufferOf(length + READ_BLOCK, length);
    const read = readSync(descriptor, target, length, READ_BLOCK, length);
    // A view that ends with the bytes read: the rest of the buffer holds older bytes.
    const filled = target.subarray(0, length + read);
    for (let at = filled.indexOf(10, length); at !== -1; at = filled.indexOf(10, at + 1)) {
      if (count === starts.length) {
        const more = new Uint32Array(2 * count);
        more.set(starts);
        starts = more;
      }
      starts[count++] = at + 1;
    }
    length += read;
    if (read === 0 || count > endLine) {
      const lineStarts = starts.slice(0, count);
      const file = { size, mtimeMs, lineStarts, length, whole: read === 0 || length >= size, shown: new Map<string, string[]>(), cost: lineStarts.byteLength };
      return { file, bytes: target.subarray(0, length) };
    }
  }
}

/**
 * The `count` lines a chunk's stored byte span holds, read alone; undefined when the bytes on disk
 * do not fit the span (a line break just before it, `count` lines in it), so the caller reads the
 * file from its start instead.
 */
function linesOfSpan(descriptor: number, span: ByteSpan, count: number, size: number): string[] | undefined {
  const { startByte, endByte } = span;
  if (startByte > endByte || endByte > size) return undefined;
  const from = Math.max(0, startByte - 1);
  const bytes = readRange(descriptor, from, endByte);
  if (bytes.length !== endByte - from || (startByte > 0 && bytes[0] !== 10)) return undefined;
  const body = bytes.subarray(startByte - from);
  let breaks = 0;
  for (let at = body.indexOf(10); at !== -1; at = body.indexOf(10, at + 1)) breaks++;
  // The last line of a file may end without a line break.
  if (breaks !== count && !(breaks === count - 1 && endByte === size)) return undefined;
  return decodeText(body).text.split("\n").slice(0, count);
}

/** A file known only by its stamp: no line starts yet, only the lines it will show. */
function stampOnly(size: number, mtimeMs: number): KnownFile {
  const lineStarts = new Uint32Array(1);
  return { size, mtimeMs, lineStarts, length: 0, whole: false, shown: new Map<string, string[]>(), cost: lineStarts.byteLength };
}

/**
 * Lines start..end of a file as it is on disk now, and what its reads found (`known`'s, while the
 * file has not changed). With the chunk's byte span, a file that still has the size and mtime it
 * was indexed with is read only there.
 */
function readLines(
  absolute: string,
  indexed: FileStamp,
  span: ByteSpan | undefined,
  known: KnownFile | undefined,
  start: number,
  end: number,
): { file: KnownFile; lines: string[] } {
  const descriptor = openSync(absolute, "r");
  try {
    const { size, mtimeMs } = fstatSync(descriptor);
    const same = known !== undefined && known.size === size && known.mtimeMs === mtimeMs;
    if (same && (known.whole || known.lineStarts.length > end)) {
      return { file: known, lines: linesIn(known, start, end, (from, to) => readRange(descriptor, from, to)) };
    }
    if (span !== undefined && size === indexed.size && mtimeMs === indexed.mtimeMs) {
      const lines = linesOfSpan(descriptor, span, end - start + 1, size);
      if (lines !== undefined) return { file: same ? known : stampOnly(size, mtimeMs), lines };
    }
    const { file, bytes } = scan(descriptor, size, mtimeMs, end);
    if (same) {
      file.shown = known.shown;
      file.cost += known.cost - known.lineStarts.byteLength;
    }
    return { file, lines: linesIn(file, start, end, (from, to) => bytes.subarray(from, to)) };
  } finally {
    closeSync(descriptor);
    if (buffer.length > KEPT_BUFFER) buffer = Buffer.allocUnsafe(READ_BLOCK);
  }
}

/** Lines start..end of a file whose line starts are known, decoded from the bytes `bytesOf` gives for a range. */
function linesIn(file: KnownFile, start: number, end: number, bytesOf: (from: number, to: number) => Uint8Array): string[] {
  const starts = file.lineStarts;
  if (start > starts.length) return [];
  const to = end < starts.length ? starts[end]! : file.length;
  return decodeText(bytesOf(starts[start - 1]!, to))
    .text.split("\n")
    .slice(0, end - start + 1);
}

/**
 * Lines `start`..`end` (1-based) of a file, at their places in an array that leaves the lines
 * before them empty: only those lines are decoded (a newline byte never sits inside a longer
 * UTF-8 sequence, so the cut is safe). Lines already shown while the file had the size and mtime
 * the index holds are shown again as they were (no system call) until the index sees a change;
 * other lines are read as the file is now: only the chunk's stored byte `span` while the file
 * has the indexed size and mtime and the span fits its bytes, else from the file's start.
 * Throws when the file cannot be read.
 */
export function linesOfFile(absolute: string, indexed: FileStamp, start: number, end: number, span?: ByteSpan): string[] {
  const known = files.peek(absolute);
  const key = `${start}:${end}`;
  let shown = known !== undefined && known.size === indexed.size && known.mtimeMs === indexed.mtimeMs ? known.shown.get(key) : undefined;
  if (shown === undefined) {
    const read = readLines(absolute, indexed, span, known, start, end);
    shown = read.lines;
    if (!read.file.shown.has(key)) {
      read.file.shown.set(key, shown);
      for (const line of shown) read.file.cost += 2 * line.length + 16;
    }
    files.set(absolute, read.file, read.file.cost);
  } else files.set(absolute, known!, known!.cost);
  if (shown.length === 0) return [];
  const lines: string[] = new Array<string>(start - 1).fill("");
  for (const line of shown) lines.push(line);
  return lines;
}

/** The `size`-line window of lines start..end holding the most query-word matches. */
export function bestWindow(lines: string[], start: number, end: number, queryTokens: ReadonlySet<string>, size: number): { start: number; end: number } {
  if (end - start + 1 <= size) return { start, end };
  // A token is a word or a word's stem: a line without any token's head holds none of them.
  const heads = [...new Set([...queryTokens].map(stemHead))];
  const matches: number[] = [];
  for (let line = start; line <= end; line++) {
    const text = lines[line - 1] ?? "";
    matches.push(holdsAny(text.toLowerCase(), heads) ? countTokensIn(text, queryTokens, heads) : 0);
  }
  let best = 0;
  let bestCount = -1;
  let running = 0;
  for (let offset = 0; offset < matches.length; offset++) {
    running += matches[offset]!;
    if (offset >= size) running -= matches[offset - size]!;
    if (offset >= size - 1 && running > bestCount) {
      bestCount = running;
      best = offset - size + 1;
    }
  }
  return { start: start + best, end: start + best + size - 1 };
}
