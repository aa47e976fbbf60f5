/**
 * The lines a search hit shows: a chunk's lines read from its file, and the window of them that
 * holds the most query words. Files are kept between searches (a bounded cache, used while the
 * copy has the size and mtime the index holds for the file), since the same files answer query
 * after query, and reading a large file and finding its line starts cost more than ranking it.
 */
import { readFileSync, statSync } from "node:fs";
import { decodeText } from "./file-record.js";
import { stemHead, tokenize } from "./tokenize.js";

/** Bytes of files kept between searches. */
const CACHED_BYTES = 32 * 1024 * 1024;

interface CachedFile {
  size: number;
  mtimeMs: number;
  bytes: Buffer;
  /** Where each line starts, found on first use. */
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

/**
 * The file as the index holds it: from the cache when the copy there has the size and mtime the
 * index recorded (no system call), else as it is on disk now.
 */
function currentFile(absolute: string, indexed: FileStamp): CachedFile {
  const known = files.get(absolute);
  if (known !== undefined) {
    files.delete(absolute);
    cachedBytes -= known.bytes.length;
  }
  let file = known !== undefined && known.size === indexed.size && known.mtimeMs === indexed.mtimeMs ? known : undefined;
  if (file === undefined) {
    const stat = statSync(absolute);
    file = known !== undefined && known.size === stat.size && known.mtimeMs === stat.mtimeMs ? known : { size: stat.size, mtimeMs: stat.mtimeMs, bytes: readFileSync(absolute) };
  }
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
  const file = currentFile(absolute, indexed);
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
