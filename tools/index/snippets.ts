/**
 * The lines a search hit shows: a chunk's lines read from its file, and the window of them that
 * holds the most query words. Files are kept between searches (a bounded cache, used while the
 * copy has the size and mtime the index holds for the file), since the same files answer query
 * after query, and reading a large file and finding its line starts cost more than ranking it.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { decodeText } from "./file-record.js";
import { stemHead, tokenize } from "./tokenize.js";

/** Bytes of files kept between searches. */
const CACHED_BYTES = 32 * 1024 * 1024;
/** A file is read this much at a time, until the lines a hit shows are whole. */
const READ_BLOCK = 64 * 1024;

interface CachedFile {
  size: number;
  mtimeMs: number;
  /** The file's first bytes: up to the end of the last line asked for so far, or all of it when `whole`. */
  bytes: Buffer;
  whole: boolean;
  /** Where each line of `bytes` starts, found on first use. */
  lineStarts?: Uint32Array;
}

/** Files by absolute path, most recently used last. */
const files = new Map<string, CachedFile>();
let cachedBytes = 0;

/** The size and mtime a file had when it was indexed. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
}

/** True when the copy holds line `endLine` whole. */
function holdsLine(file: CachedFile, endLine: number): boolean {
  return file.whole || lineStartsOf(file).length > endLine;
}

/**
 * The file from its start until line `endLine` is whole (a hit's chunk is often near the top of
 * a large file), or all of it: one open, a stat, and reads of `READ_BLOCK` bytes.
 */
function readThrough(absolute: string, endLine: number): CachedFile {
  const descriptor = openSync(absolute, "r");
  try {
    const { size, mtimeMs } = fstatSync(descriptor);
    let buffer = Buffer.allocUnsafe(Math.min(size, READ_BLOCK) || READ_BLOCK);
    let length = 0;
    let newlines = 0;
    for (;;) {
      if (length === buffer.length) {
        const larger = Buffer.allocUnsafe(Math.max(Math.min(size, 2 * length), length + READ_BLOCK));
        buffer.copy(larger, 0, 0, length);
        buffer = larger;
      }
      const read = readSync(descriptor, buffer, length, Math.min(READ_BLOCK, buffer.length - length), length);
      if (read === 0) return { size, mtimeMs, bytes: buffer.subarray(0, length), whole: true };
      const fresh = buffer.subarray(length, length + read);
      for (let at = fresh.indexOf(10); at !== -1; at = fresh.indexOf(10, at + 1)) newlines++;
      length += read;
      if (newlines >= endLine) return { size, mtimeMs, bytes: buffer.subarray(0, length), whole: length >= size };
    }
  } finally {
    closeSync(descriptor);
  }
}

/**
 * The file as the index holds it, through line `endLine`: from the cache when the copy there has
 * the size and mtime the index recorded (no system call) and holds that line, else as it is on
 * disk now.
 */
function currentFile(absolute: string, indexed: FileStamp, endLine: number): CachedFile {
  const known = files.get(absolute);
  if (known !== undefined) {
    files.delete(absolute);
    cachedBytes -= known.bytes.length;
  }
  const usable = known !== undefined && holdsLine(known, endLine) ? known : undefined;
  let file = usable !== undefined && usable.size === indexed.size && usable.mtimeMs === indexed.mtimeMs ? usable : undefined;
  if (file === undefined && usable !== undefined) {
    const stat = statSync(absolute);
    if (usable.size === stat.size && usable.mtimeMs === stat.mtimeMs) file = usable;
  }
  file ??= readThrough(absolute, endLine);
  if (file.bytes.length <= CACHED_BYTES / 4) {
    files.set(absolute, file);
    cachedBytes += file.bytes.length;
    for (const [oldest, entry] of files) {
      if (cachedBytes <= CACHED_BYTES) break;
      files.delete(oldest);
      cachedBytes -= entry.bytes.length;
    }
  }
  return file;
}

function lineStartsOf(file: CachedFile): Uint32Array {
  if (file.lineStarts !== undefined) return file.lineStarts;
  const bytes = file.bytes;
  let count = 1;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) count++;
  const starts = new Uint32Array(count);
  let line = 1;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) starts[line++] = at + 1;
  file.lineStarts = starts;
  return starts;
}

/**
 * Lines `start`..`end` (1-based) of a file, at their places in an array that leaves the lines
 * before them empty: only those lines are decoded (a newline byte never sits inside a longer
 * UTF-8 sequence, so the cut is safe). Until the index sees a change of the file, its lines are
 * those the index holds. Throws when the file cannot be read.
 */
export function linesOfFile(absolute: string, indexed: FileStamp, start: number, end: number): string[] {
  const file = currentFile(absolute, indexed, end);
  const starts = lineStartsOf(file);
  if (start > starts.length) return [];
  const from = starts[start - 1]!;
  const to = end < starts.length ? starts[end]! : file.bytes.length;
  const lines: string[] = new Array<string>(start - 1).fill("");
  for (const line of decodeText(file.bytes.subarray(from, to))
    .text.split("\n")
    .slice(0, end - start + 1))
    lines.push(line);
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
    const lower = text.toLowerCase();
    matches.push(heads.some((head) => lower.includes(head)) ? tokenize(text).filter((token) => queryTokens.has(token)).length : 0);
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
