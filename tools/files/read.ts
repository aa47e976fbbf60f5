/**
 * Reading text files as numbered lines, in windows, with caps; binary files are refused.
 */
import { ToolError } from "../errors.js";
import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { ResolvedPath } from "../workspace.js";
import { openRegularFile, readSmallRegularFile, type FileContext } from "./context.js";
import { readLineWindow, wholeLineWindow, type LineWindow, type LineWindowOptions } from "./lines.js";
import { binaryType, binaryTypeOfDecoded, formatBytes, formatCount, SNIFF_BYTES } from "./text.js";

/** Output budget of one read. */
export const READ_MAX_BYTES = 256 * 1024;
/** What a line-number gutter (`1234567│`) costs in the budget. */
const GUTTER_BYTES = 10;
/** Lines longer than this are cut in reads. */
export const READ_MAX_LINE_BYTES = 4000;
/** Files up to this size get their total line count even when only a window is shown. */
export const COUNT_LINES_UP_TO_BYTES = 64 * 1024 * 1024;

export interface ReadOptions {
  /** First line, 1-based (default 1). */
  offset?: number;
  /** Most lines (default: as many as fit the output budget). */
  limit?: number;
  /** Output budget in bytes, line-number gutters included (default 256 KB). */
  maxBytes?: number;
}

export interface ReadResult {
  relative: string;
  size: number;
  lines: string[];
  firstLine: number;
  /** Total lines of the file when known (always for files up to 64 MB). */
  totalLines?: number;
  /** True when the whole file was shown. */
  complete: boolean;
  /** Why the output stops early, for the reader; undefined when complete. */
  note?: string;
}

/** Files up to this size are read whole with synchronous calls; larger ones in windows. */
const WHOLE_READ_BYTES = 1024 * 1024;

/** A read and the stat of the very file it read (for the ledger of what the model saw). */
export interface StampedRead {
  read: ReadResult;
  stat: Stats;
}

/**
 * Reads the text file `resolved` names (a path its caller confined): its window of lines and the
 * stat of the file read. A small file whose lines all fit the read (the common case) is read with
 * synchronous calls and its result given at once, not as a promise; anything else is a promise.
 * Either way a failure is thrown or rejected as the same ToolError.
 */
export function readTextFile(context: FileContext, resolved: ResolvedPath, options: ReadOptions = {}): StampedRead | Promise<StampedRead> {
  const { relative } = resolved;
  const small = readSmallRegularFile(context, resolved.real, relative, WHOLE_READ_BYTES);
  if (small === undefined) return readInWindows(context, resolved, options);
  const { content, stat } = small;
  // Decoded once: the binary check reads the text, and a file whose lines all fit is split from it.
  const text = content.toString("utf8");
  refuseBinary(relative, stat, binaryTypeOfDecoded(content, text));
  const whole = wholeLineWindow(content, windowOptions(content, stat, options), text);
  if (whole !== undefined) return { read: windowResult(relative, stat, whole, options), stat };
  return windowOf(relative, stat, content, undefined, options).then((read) => ({ read, stat }));
}

/** Reads a file too large to hold whole: its first bytes sniffed, then its window walked through the handle. */
async function readInWindows(context: FileContext, { real, relative }: ResolvedPath, options: ReadOptions): Promise<StampedRead> {
  const { handle, stat } = await openRegularFile(context, real, relative);
  try {
    const sniffed = Buffer.alloc(Math.min(SNIFF_BYTES, stat.size));
    const { bytesRead } = await handle.read(sniffed, 0, sniffed.length, 0);
    const head = sniffed.subarray(0, bytesRead);
    refuseBinary(relative, stat, binaryType(head.subarray(0, SNIFF_BYTES)));
    return { read: await windowOf(relative, stat, head, handle, options), stat };
  } finally {
    await handle.close();
  }
}

/** Throws `binary_file` when the file's first bytes looked binary (`type`, what `binaryType` told of them). */
function refuseBinary(relative: string, stat: Stats, type: string | undefined): void {
  if (type !== undefined) {
    throw new ToolError("binary_file", `${relative} looks binary (${type}, ${formatBytes(stat.size)}); only text files can be read.`, [
      "Use ",
      { action: "info", arguments: { path: relative } },
      " for its size and type, or a shell command to inspect it with a suitable tool.",
    ]);
  }
}

/** How a read's window is cut, from the file's first bytes (`head`) and the read's options. */
function windowOptions(head: Buffer, stat: Stats, options: ReadOptions): LineWindowOptions {
  const budget = options.maxBytes ?? READ_MAX_BYTES;
  return {
    firstLine: options.offset ?? 1,
    maxLines: options.limit ?? Number.POSITIVE_INFINITY,
    maxBytes: budget,
    lineOverheadBytes: GUTTER_BYTES,
    maxLineBytes: Math.min(READ_MAX_LINE_BYTES, budget),
    countUpToBytes: COUNT_LINES_UP_TO_BYTES,
    initial: head,
    size: stat.size,
  };
}

/** The window of lines a read shows, from the file's first bytes (`head`) and, past them, the handle. */
async function windowOf(relative: string, stat: Stats, head: Buffer, handle: FileHandle | undefined, options: ReadOptions): Promise<ReadResult> {
  return windowResult(relative, stat, await readLineWindow(handle, windowOptions(head, stat, options)), options);
}

/** A read's result from its window of lines; throws when the offset lies past the file's end. */
function windowResult(relative: string, stat: Stats, window: LineWindow, options: ReadOptions): ReadResult {
  const firstLine = options.offset ?? 1;
  const { totalLines } = window;
  if (totalLines !== undefined && firstLine > Math.max(totalLines, 1)) {
    throw new ToolError("invalid_argument", `${relative} has ${totalLines} lines; offset ${firstLine} is past its end.`, `Use an offset from 1 to ${Math.max(totalLines, 1)}.`);
  }
  const lastLine = firstLine + window.lines.length - 1;
  const complete = firstLine === 1 && totalLines !== undefined && lastLine >= totalLines;
  const budget = options.maxBytes ?? READ_MAX_BYTES;
  return { relative, size: stat.size, lines: window.lines, firstLine, totalLines, complete, note: windowNote(window.stoppedForBytes, lastLine, totalLines, stat.size, budget) };
}

function windowNote(stoppedForBytes: boolean, lastLine: number, totalLines: number | undefined, size: number, budget: number): string | undefined {
  const moreLines = totalLines === undefined || lastLine < totalLines;
  if (!moreLines) return undefined;
  const of = totalLines === undefined ? `of a ${formatBytes(size)} file` : `of ${formatCount(totalLines)}`;
  const reason = stoppedForBytes ? ` (the ${formatBytes(budget)} limit of one read)` : "";
  return `Showing lines up to ${lastLine} ${of}${reason}. Read on with offset=${lastLine + 1} (and limit=N for a window).`;
}
