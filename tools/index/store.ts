/**
 * A file's index record as analysis makes it (its chunks' term ids and counts in one run of
 * numbers), the dictionary those ids refer to, and the manifest of the index on disk
 * (index-store.ts). Segments (segment.ts) store the records with their terms spelled out.
 */
import type { ListingTimes } from "./change-check.js";
import type { SymbolDefinition } from "./symbols.js";
import type { SkippedFile } from "./walk.js";

/**
 * 8: each file's symbol table stored with its names' parts split, stemmed and lower-cased
 * (symbol-table.ts), and a segment's file list and block index stored as binary; 7: a segment's
 * file list stored as JSON columns; 6: segments with a sorted term dictionary and postings read
 * on demand.
 */
export const INDEX_FORMAT_VERSION = 8;

/** Terms interned as numbers while files are analysed (segments store the terms themselves). */
export class TermDictionary {
  private readonly ids = new Map<string, number>();
  readonly terms: string[] = [];

  intern(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.ids.set(term, id);
      this.terms.push(term);
    }
    return id;
  }

  lookup(term: string): number | undefined {
    return this.ids.get(term);
  }

  get size(): number {
    return this.terms.length;
  }
}

/**
 * A file's chunks are stored as one run of 32-bit numbers, a record per chunk: startLine,
 * endLine, length, the number n of distinct terms, then n term ids and their n counts.
 */
export const CHUNK_HEADER = 4;

export interface StoredChunk {
  startLine: number;
  endLine: number;
  symbol?: string;
  /** Where its distinct term ids (of the index's dictionary) start in the file's `numbers`; their weighted counts follow them. */
  termsAt: number;
  /** How many distinct terms it holds. */
  distinct: number;
  /** Sum of counts: the chunk's length for BM25. */
  length: number;
}

export interface IndexedFile {
  path: string;
  size: number;
  mtimeMs: number;
  /** sha1 of the bytes. */
  hash: string;
  language: string;
  lines: number;
  symbols: SymbolDefinition[];
  imports: string[];
  chunks: StoredChunk[];
  /** The chunks' records as stored (see `CHUNK_HEADER`). */
  numbers: Uint32Array;
  /** Why the file looks like a program's entry point (`func main`, `__main__`), if it does. */
  entry?: string;
  /** The bytes were not valid UTF-8; they were read with replacement characters. */
  invalidUtf8?: boolean;
}

/** A file's content fields as a worker sends them: each chunk's symbol ("" for none); the rest of the chunks are in its numbers. */
type FileHeader = Omit<IndexedFile, "chunks" | "numbers"> & { chunkSymbols: string[] };

/** The JSON of a file's header fields that follow from its content, from `hash` on. */
export function contentJsonOf(file: IndexedFile): string {
  const fields: Omit<FileHeader, "path" | "size" | "mtimeMs"> = {
    hash: file.hash,
    language: file.language,
    lines: file.lines,
    symbols: file.symbols,
    imports: file.imports,
    chunkSymbols: file.chunks.map((chunk) => chunk.symbol ?? ""),
  };
  if (file.entry !== undefined) fields.entry = file.entry;
  if (file.invalidUtf8 !== undefined) fields.invalidUtf8 = file.invalidUtf8;
  return JSON.stringify(fields);
}

export interface IndexManifest {
  version: number;
  updatedAt: number;
  files: number;
  /** The files skipped by the last full walk, and why. */
  skipped: SkippedFile[];
  /** The segment files, oldest first. */
  segments: string[];
  /** What the last check of the whole workspace saw of its folders and .gitignore files (absent after an update of a subfolder). */
  listing?: ListingTimes;
}

export interface VectorRecord {
  hash: string;
  vectors: number[][];
}

/**
 * A file as a worker sends it: the JSON of its content fields and its chunk records, from which
 * `fileFromParts` rebuilds the record (cheaper to pass between threads than the record itself).
 */
export interface FileParts {
  path: string;
  size: number;
  mtimeMs: number;
  contentJson: string;
  numbers: Uint32Array;
}

export function partsOf(file: IndexedFile): FileParts {
  return { path: file.path, size: file.size, mtimeMs: file.mtimeMs, contentJson: contentJsonOf(file), numbers: file.numbers };
}

/** The record `parts` describe (its term ids are whatever dictionary's the numbers use). */
export function fileFromParts(parts: FileParts): IndexedFile {
  const { chunkSymbols, ...content } = JSON.parse(parts.contentJson) as Omit<FileHeader, "path" | "size" | "mtimeMs">;
  const { chunks, end } = readChunks(chunkSymbols, parts.numbers, 0, Number.POSITIVE_INFINITY);
  if (end !== parts.numbers.length) throw new Error(`the chunk records of ${parts.path} do not match its chunks`);
  return { path: parts.path, size: parts.size, mtimeMs: parts.mtimeMs, ...content, chunks, numbers: parts.numbers };
}

/**
 * The chunks named by `chunkSymbols`, read from the records in `numbers` from `first` on (their
 * `termsAt` counted from `first`), and where those records end. Throws when they are cut short
 * or name a term id of `dictionarySize` or more.
 */
function readChunks(chunkSymbols: string[], numbers: Uint32Array, first: number, dictionarySize: number): { chunks: StoredChunk[]; end: number } {
  let position = first;
  const chunks = chunkSymbols.map((symbol) => {
    const count = numbers[position + CHUNK_HEADER - 1];
    if (count === undefined || position + CHUNK_HEADER + 2 * count > numbers.length) throw new Error("a file record is damaged: its chunk records are cut short");
    const termsAt = position + CHUNK_HEADER;
    const chunk: StoredChunk = { startLine: numbers[position]!, endLine: numbers[position + 1]!, length: numbers[position + 2]!, termsAt: termsAt - first, distinct: count };
    if (symbol !== "") chunk.symbol = symbol;
    for (let term = termsAt; term < termsAt + count; term++) if (numbers[term]! >= dictionarySize) throw new Error("a file record names a term the dictionary does not hold");
    position = termsAt + 2 * count;
    return chunk;
  });
  return { chunks, end: position };
}
