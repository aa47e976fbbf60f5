/**
 * Streaming a window of lines out of a file handle with bounded memory: lines before the
 * window are only counted, each kept line is cut at a byte limit, and the whole window stops
 * at an output budget. A 50 MB file, or a 50 MB single line, never sits in memory.
 */
import type { FileHandle } from "node:fs/promises";

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 10;

export interface LineWindowOptions {
  /** First line to keep, 1-based. */
  firstLine: number;
  /** Most lines to keep. */
  maxLines: number;
  /** Output budget in bytes: keeping stops after the line that reaches it. */
  maxBytes: number;
  /** Bytes each kept line costs beyond its text (a line-number gutter), for the budget. */
  lineOverheadBytes?: number;
  /** Longer lines are cut to this many bytes and marked. */
  maxLineBytes: number;
  /** After the window, keep scanning (counting only) while the position is below this. */
  countUpToBytes: number;
  /** The file's first bytes, already read (so they are not read again). */
  initial?: Buffer;
  /** The file's size when it was opened: reading stops there instead of asking for more. */
  size?: number;
}

export interface LineWindow {
  lines: string[];
  firstLine: number;
  /** True when keeping stopped at the byte budget rather than at `maxLines` or the end. */
  stoppedForBytes: boolean;
  /** Lines in the whole file, when the scan reached its end. */
  totalLines?: number;
  /** How many kept lines were cut at `maxLineBytes`. */
  cutLines: number;
}

/**
 * Reads a window of lines (see {@link LineWindowOptions}). Line breaks are `\n`; a `\r` before one
 * is dropped. Without a handle, `initial` must hold the whole file.
 */
export async function readLineWindow(handle: FileHandle | undefined, options: LineWindowOptions): Promise<LineWindow> {
  const whole = handle === undefined && options.initial !== undefined ? wholeLineWindow(options.initial, options) : undefined;
  if (whole !== undefined) return whole;
  let chunk: Buffer | undefined;
  const lines: string[] = [];
  let lineNumber = 1;
  let lineHasBytes = false;
  let parts: Buffer[] = [];
  let partBytes = 0;
  let droppedBytes = 0;
  let outputBytes = 0;
  let collecting = options.maxLines > 0;
  let stoppedForBytes = false;
  let cutLines = 0;
  let position = 0;

  const keep = (segment: Buffer): void => {
    const room = options.maxLineBytes - partBytes;
    if (segment.length <= room) {
      parts.push(Buffer.from(segment));
      partBytes += segment.length;
    } else {
      if (room > 0) parts.push(Buffer.from(segment.subarray(0, room)));
      partBytes += Math.max(room, 0);
      droppedBytes += segment.length - Math.max(room, 0);
    }
  };
  /** Ends the current line; `whole` is its text when it lay whole in one chunk and was not cut. */
  const finishLine = (whole?: string): void => {
    if (collecting && lineNumber >= options.firstLine) {
      let text = whole ?? Buffer.concat(parts).toString("utf8");
      if (text.endsWith("\r")) text = text.slice(0, -1);
      if (droppedBytes > 0) {
        text += ` … [line cut: ${droppedBytes} more bytes]`;
        cutLines++;
      }
      lines.push(text);
      outputBytes += Buffer.byteLength(text) + 1 + (options.lineOverheadBytes ?? 0);
      if (outputBytes >= options.maxBytes) stoppedForBytes = true;
      if (lines.length >= options.maxLines || stoppedForBytes) collecting = false;
    }
    parts = [];
    partBytes = 0;
    droppedBytes = 0;
    lineNumber++;
    lineHasBytes = false;
  };

  let initial = options.initial;
  for (;;) {
    if (!collecting && position >= options.countUpToBytes) {
      return { lines, firstLine: options.firstLine, stoppedForBytes, cutLines };
    }
    let data: Buffer;
    if (initial !== undefined && initial.length > 0) {
      data = initial;
      initial = undefined;
    } else {
      if (handle === undefined || (options.size !== undefined && position >= options.size)) break;
      chunk ??= Buffer.allocUnsafe(CHUNK_BYTES);
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      data = chunk.subarray(0, bytesRead);
    }
    position += data.length;
    let start = 0;
    while (start < data.length) {
      const inWindow = collecting && lineNumber >= options.firstLine;
      const end = data.indexOf(NEWLINE, start);
      if (end === -1) {
        if (inWindow) keep(data.subarray(start));
        lineHasBytes = true;
        break;
      }
      // A line wholly in this chunk and within the cut is decoded in place, without copying it.
      if (inWindow && !lineHasBytes && end - start <= options.maxLineBytes) finishLine(data.toString("utf8", start, end));
      else {
        if (inWindow) keep(data.subarray(start, end));
        finishLine();
      }
      start = end + 1;
    }
  }
  if (lineHasBytes) finishLine();
  return { lines, firstLine: options.firstLine, stoppedForBytes, cutLines, totalLines: lineNumber - 1 };
}

/**
 * The window of a file held whole in `content`, decoded in one piece, when no line needs cutting
 * and the whole file fits the budget (the common small file); undefined otherwise, for the
 * general walk. Gives what the walk gives: a `\n` byte never lies inside a UTF-8 sequence, so
 * decoding the whole and splitting it equals decoding each line. `decoded` is `content` decoded,
 * when the caller has it already.
 */
export function wholeLineWindow(content: Buffer, options: LineWindowOptions, decoded?: string): LineWindow | undefined {
  if (content.length >= options.countUpToBytes) return undefined;
  const text = decoded ?? content.toString("utf8");
  const all = text === "" ? [] : text.split("\n");
  if (text.endsWith("\n")) all.pop();
  // Every line's bytes, its break and its overhead together stay below the budget: no stop for bytes.
  // The walk counts the decoded text, where a broken UTF-8 sequence became U+FFFD (3 bytes, maybe more than it was).
  const textBytes = text.includes("\ufffd") ? Buffer.byteLength(text) : content.length;
  if (textBytes + 1 + all.length * (options.lineOverheadBytes ?? 0) >= options.maxBytes) return undefined;
  // No line can be over the cut when the whole file is not, nor end in `\r` without one in it.
  if (content.length <= options.maxLineBytes && !text.includes("\r")) return wholeWindow(all, options);
  // A line of more than a third of the cut in characters may be over it in bytes: measured then.
  const longest = options.maxLineBytes / 3;
  for (let index = 0; index < all.length; index++) {
    let line = all[index]!;
    if (line.length > longest && Buffer.byteLength(line) > options.maxLineBytes) return undefined;
    if (line.endsWith("\r")) {
      line = line.slice(0, -1);
      all[index] = line;
    }
  }
  return wholeWindow(all, options);
}

/** The window `options` asks for of a file's lines `all` (none cut, within the budget). */
function wholeWindow(all: string[], options: LineWindowOptions): LineWindow {
  const from = options.firstLine - 1;
  const lines = from === 0 && options.maxLines >= all.length ? all : all.slice(from, from + Math.max(options.maxLines, 0));
  return { lines, firstLine: options.firstLine, stoppedForBytes: false, cutLines: 0, totalLines: all.length };
}

/** Counts a file's lines (a final line without a break counts), scanning at most `upToBytes`; undefined beyond. */
export async function countLines(handle: FileHandle, upToBytes: number): Promise<number | undefined> {
  const window = await readLineWindow(handle, { firstLine: 1, maxLines: 0, maxBytes: 0, maxLineBytes: 0, countUpToBytes: upToBytes });
  return window.totalLines;
}
