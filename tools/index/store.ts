/**
 * A file's index record as analysis makes it (its chunks' term ids and counts in one run of
 * numbers), the dictionary those ids refer to, and the manifest of the index on disk
 * (index-store.ts). Segments (segment.ts) store the records with their terms spelled out.
 */
import path from "node:path";
import type { ListingTimes } from "./change-check.js";
import { ByteInterner, hashOfBytes } from "./int-tables.js";
import type { SymbolDefinition } from "./symbols.js";
import type { TermList } from "./term-list.js";
import type { SkippedFile } from "./walk.js";

/**
 * 10: each file's symbol table stored as fixed-width columns, read in place (symbol-table.ts);
 * 9: sections checked with CRC-32 instead of FNV-1a; 8: each file's symbol table stored with its names' parts split, stemmed and lower-cased
 * (symbol-table.ts), and a segment's file list and block index stored as binary; 7: a segment's
 * file list stored as JSON columns; 6: segments with a sorted term dictionary and postings read
 * on demand.
 */
export const INDEX_FORMAT_VERSION = 10;

/** Where a workspace keeps its index, relative to its root. */
export const INDEX_DIRECTORY = path.join(".clio", "index");

/**
 * Terms interned as numbers while files are analysed (segments store the terms themselves), by
 * their bytes, kept in one pool (a `TermList`): no string is made for a term, new or met before.
 */
export class TermDictionary implements TermList {
  private readonly table: ByteInterner;
  private encoded = Buffer.alloc(64);

  /** An empty dictionary; with `sizedLike`, its table starts with that dictionary's room (one started afresh fills about as far). */
  constructor(sizedLike?: TermDictionary) {
    this.table = sizedLike?.table.emptyCopy() ?? new ByteInterner(1 << 12, 1 << 15, 1 << 12);
  }

  /** The id of the term spelled by source[start, end) (ASCII; FNV-1a hash `hash`). */
  internBytes(source: Uint8Array, start: number, end: number, hash: number): number {
    return this.table.idOf(source, start, end, hash);
  }

  /** The id of a term given as a string (keyed by its UTF-8 bytes, which for ASCII are the bytes `internBytes` takes). */
  intern(term: string): number {
    const length = Buffer.byteLength(term, "utf8");
    if (length > this.encoded.length) this.encoded = Buffer.alloc(Math.max(length, 2 * this.encoded.length));
    this.encoded.write(term, 0, "utf8");
    return this.table.idOf(this.encoded, 0, length, hashOfBytes(this.encoded, 0, length));
  }

  /** Forgets every term, keeping the tables: for a thread whose old ids nothing names any more. */
  clear(): void {
    this.table.clear();
  }

  get count(): number {
    return this.table.count;
  }

  get bytes(): Uint8Array {
    return this.table.bytes;
  }

  startOf(id: number): number {
    return this.table.startOf(id);
  }

  endOf(id: number): number {
    return this.table.endOf(id);
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

/** `manifest` (JSON as found on disk) when this version can open the index it names: its format, with a list of segments. */
export function usableManifest(manifest: unknown): IndexManifest | undefined {
  const found = manifest as IndexManifest | undefined;
  return found?.version === INDEX_FORMAT_VERSION && Array.isArray(found.segments) ? found : undefined;
}

export interface VectorRecord {
  hash: string;
  vectors: number[][];
}
