/**
 * Turns one file's bytes into its index record: language, symbols, imports, and chunks with
 * their term counts. Binary files are refused here (the caller reports them skipped).
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { firstAtOrAfter } from "../../grammar/sorted.js";
import { chunkLines, type ChunkOptions } from "./chunks.js";
import { commentLines } from "./comments.js";
import { languageOf } from "./languages.js";
import type { IndexedFile, StoredChunk } from "./store.js";
import { extractSymbols } from "./symbols.js";
import type { TermCounter } from "./term-counter.js";
import { nodeCrypto } from "../node-crypto.js";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const lenientUtf8 = new TextDecoder("utf-8");

/** Symbol names count this much more than body text. */
const SYMBOL_WEIGHT = 3;
/** Comment and docstring lines count this much on top of their count as text: they say in plain words what the code does. */
const COMMENT_EXTRA_WEIGHT = 1;

function hashBytes(bytes: Uint8Array): string {
  return nodeCrypto().createHash("sha1").update(bytes).digest("hex");
}

/** A NUL byte in the first 8 KiB marks a file as binary (git's rule). */
export function looksBinary(bytes: Uint8Array): boolean {
  // Buffer's indexOf looks for a byte natively (memchr), about 30 times as fast as a loop here.
  return bytesOf(bytes, 0, Math.min(bytes.length, 8192)).indexOf(0) !== -1;
}

/** bytes[start, end) as a Buffer over the same memory. */
function bytesOf(bytes: Uint8Array, start: number, end: number): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start);
}

export function decodeText(bytes: Uint8Array): { text: string; invalidUtf8: boolean } {
  try {
    return { text: strictUtf8.decode(bytes), invalidUtf8: false };
  } catch {
    return { text: lenientUtf8.decode(bytes), invalidUtf8: true };
  }
}

/** What analysing one file's bytes came to. */
export type FileOutcome =
  | { kind: "record"; record: IndexedFile }
  /** The content hash equals the one already indexed (only the size or mtime moved). */
  | { kind: "unchanged" }
  | { kind: "binary" }
  | { kind: "unreadable"; message: string };

/** A file to analyse: where it is, what the walk saw, and the hash the index holds for it. */
export interface FileToAnalyse {
  path: string;
  absolute: string;
  size: number;
  mtimeMs: number;
  knownHash?: string;
}

/** Turns the bytes of a file into its outcome: binary, unchanged since `knownHash`, or a record. */
function analyseBytes(file: FileToAnalyse, bytes: Uint8Array, counter: TermCounter, options: ChunkOptions = {}): FileOutcome {
  if (looksBinary(bytes)) return { kind: "binary" };
  const hash = hashBytes(bytes);
  if (hash === file.knownHash) return { kind: "unchanged" };
  return { kind: "record", record: buildFileRecord(file, bytes, hash, counter, options) };
}

/** Files up to this size are read into the thread's reused buffer; a larger one (it grew since the walk) gets a buffer of its own. */
const REUSED_BUFFER_MAX = 4 * 1024 * 1024;

/**
 * Reads whole files, one after another, into one buffer kept between them, so reading makes no
 * garbage. The bytes returned are valid until the next read.
 */
export class FileReader {
  private buffer = Buffer.allocUnsafe(1 << 16);

  read(absolute: string): Buffer {
    const descriptor = openSync(absolute, "r");
    try {
      const size = fstatSync(descriptor).size;
      // One byte more than the size stats say, so a file that grew since is read to its end.
      let buffer = this.buffer;
      if (size + 1 > buffer.length) {
        buffer = Buffer.allocUnsafe(size + 1 > REUSED_BUFFER_MAX ? size + 1 : Math.min(REUSED_BUFFER_MAX, Math.max(size + 1, 2 * buffer.length)));
        if (buffer.length <= REUSED_BUFFER_MAX) this.buffer = buffer;
      }
      let length = 0;
      for (;;) {
        if (length === buffer.length) return Buffer.concat([buffer, readRest(descriptor, length)]);
        const read = readSync(descriptor, buffer, length, buffer.length - length, length);
        if (read === 0) return buffer.subarray(0, length);
        length += read;
      }
    } finally {
      closeSync(descriptor);
    }
  }
}

/** The bytes of a file from `offset` to its end (a file that grew while it was read). */
function readRest(descriptor: number, offset: number): Buffer {
  const parts: Buffer[] = [];
  for (let position = offset; ; ) {
    const part = Buffer.allocUnsafe(1 << 16);
    const read = readSync(descriptor, part, 0, part.length, position);
    if (read === 0) return Buffer.concat(parts);
    parts.push(part.subarray(0, read));
    position += read;
  }
}

/** Reads and analyses files one after another, synchronously (a worker's batch, or this thread's share of one). */
export function readAndAnalyse(files: FileToAnalyse[], counter: TermCounter, reader: FileReader, options: ChunkOptions = {}): FileOutcome[] {
  return files.map((file) => {
    let bytes: Buffer;
    try {
      bytes = reader.read(file.absolute);
    } catch (error) {
      return { kind: "unreadable", message: (error as Error).message };
    }
    return analyseBytes(file, bytes, counter, options);
  });
}

export function buildFileRecord(
  file: { path: string; size: number; mtimeMs: number },
  bytes: Uint8Array,
  hash: string,
  counter: TermCounter,
  options: ChunkOptions = {},
): IndexedFile {
  const { text, invalidUtf8 } = decodeText(bytes);
  const lines = text.split("\n");
  const lineStarts = byteLineStarts(lines, text.length === bytes.length ? undefined : bytes);
  const { symbols, imports } = extractSymbols(file.path, text, lines);
  const pathText = file.path.replace(/\.[^./]+$/, "");
  const language = languageOf(file.path);
  const comments = commentLines(lines, language);
  // Symbols by line, so each chunk finds its own by a binary search (a chunk's order of terms does not matter).
  const byLine = [...symbols].sort((left, right) => left.line - right.line);
  const symbolLines = Int32Array.from(byLine, (symbol) => symbol.line);
  const places = chunkLines(lines, symbols, options).map((range) => {
    counter.addText(pathText);
    addLines(counter, bytes, lineStarts, comments, range.startLine - 1, range.endLine);
    for (let index = firstAtOrAfter(symbolLines, range.startLine); index < byLine.length && byLine[index]!.line <= range.endLine; index++) {
      counter.addText(byLine[index]!.name, SYMBOL_WEIGHT);
    }
    return { range, ...counter.finishChunk(range.startLine, range.endLine, lineStarts[range.startLine - 1]!, Math.min(bytes.length, lineStarts[range.endLine]!)) };
  });
  // One buffer per file holds every chunk's terms and counts.
  const numbers = counter.takeFile();
  const chunks: StoredChunk[] = places.map(({ range, termsAt, distinct, length }) => {
    const chunk: StoredChunk = { startLine: range.startLine, endLine: range.endLine, termsAt, distinct, length };
    if (range.symbol !== undefined) chunk.symbol = range.symbol;
    return chunk;
  });
  const record: IndexedFile = {
    path: file.path,
    size: file.size,
    mtimeMs: file.mtimeMs,
    hash,
    language,
    lines: text.endsWith("\n") ? lines.length - 1 : lines.length,
    symbols,
    imports,
    chunks,
    numbers,
  };
  const entry = entryPointReason(record.language, text);
  if (entry !== undefined) record.entry = entry;
  if (invalidUtf8) record.invalidUtf8 = true;
  return record;
}

/**
 * Adds the terms of lines [from, to) (0-based): each run of code lines once, each run of comment
 * lines with their extra weight on top, in one pass over the bytes (no identifier spans a line).
 */
function addLines(counter: TermCounter, bytes: Uint8Array, lineStarts: Int32Array, comments: Uint8Array, from: number, to: number): void {
  for (let line = from; line < to; ) {
    const comment = comments[line];
    let end = line + 1;
    while (end < to && comments[end] === comment) end++;
    const weight = comment === 1 ? 1 + COMMENT_EXTRA_WEIGHT : 1;
    counter.add(bytes, lineStarts[line]!, Math.min(bytes.length, lineStarts[end]!), weight);
    line = end;
  }
}

/**
 * The byte offset where each line starts, and one past the end. `bytes` is given only when the
 * text is not pure ASCII (then character and byte offsets differ); the line breaks are the same
 * either way, since a newline byte never belongs to a longer UTF-8 sequence.
 */
function byteLineStarts(lines: string[], bytes: Uint8Array | undefined): Int32Array {
  const starts = new Int32Array(lines.length + 1);
  if (bytes === undefined) {
    for (let line = 0; line < lines.length; line++) starts[line + 1] = starts[line]! + lines[line]!.length + 1;
    return starts;
  }
  const buffer = bytesOf(bytes, 0, bytes.length);
  let line = 1;
  for (let index = buffer.indexOf(10); index !== -1; index = buffer.indexOf(10, index + 1)) starts[line++] = index + 1;
  starts[line] = bytes.length + 1;
  return starts;
}

const ENTRY_PATTERNS: Array<[string, RegExp, string]> = [
  ["python", /^if\s+__name__\s*==\s*["']__main__["']/m, "runs as a script (__main__)"],
  ["go", /^func main\(\)/m, "func main"],
  ["rust", /^fn main\(\)/m, "fn main"],
  ["java", /public\s+static\s+void\s+main\s*\(/, "static void main"],
  ["c", /^int\s+main\s*\(/m, "int main"],
  ["cpp", /^int\s+main\s*\(/m, "int main"],
  ["javascript", /^#!.*\bnode\b/, "node script"],
  ["typescript", /^#!.*\b(node|tsx|ts-node|deno|bun)\b/, "script"],
];

/** Why a file looks like an entry point, from its language and text. */
function entryPointReason(language: string, text: string): string | undefined {
  for (const [name, pattern, reason] of ENTRY_PATTERNS) if (name === language && pattern.test(text)) return reason;
  return undefined;
}
