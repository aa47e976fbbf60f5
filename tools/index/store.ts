/**
 * A file's index record as analysis makes it (its chunks' term ids and counts in one run of
 * numbers), the dictionary those ids refer to, and the manifest of the index on disk
 * (index-store.ts). Segments (segment.ts) store the records with their terms spelled out.
 */
import type { ListingTimes } from "./change-check.js";
import type { SymbolDefinition } from "./symbols.js";
import type { SkippedFile } from "./walk.js";

/**
 * 9: sections checked with CRC-32 instead of FNV-1a; 8: each file's symbol table stored with its names' parts split, stemmed and lower-cased
 * (symbol-table.ts), and a segment's file list and block index stored as binary; 7: a segment's
 * file list stored as JSON columns; 6: segments with a sorted term dictionary and postings read
 * on demand.
 */
export const INDEX_FORMAT_VERSION = 9;

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
 * endLine, length, startByte and endByte (the chunk's bytes in the file as indexed), the number n
 * of distinct terms, then n term ids and their n counts.
 */
export const CHUNK_HEADER = 6;

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
