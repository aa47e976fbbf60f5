/**
 * A segment's file list as stored: one JSON object of columns (all paths, all sizes, …) rather
 * than an object per file. A fresh process reads the whole list before its first search, and
 * columns are about half the bytes and parse in about a third of the time (no key repeated per
 * file, languages named once). The reader checks the columns' shape and lengths: a list that does
 * not hold together is a damaged segment.
 */
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

/** Fields a few files have: kept aside, by file number. */
type RareFields = Pick<SegmentFileHeader, "entry" | "invalidUtf8" | "state">;

interface FileColumns {
  paths: string[];
  sizes: number[];
  mtimes: number[];
  hashes: string[];
  /** Each distinct language once; `languageOf` holds each file's position in it. */
  languages: string[];
  languageOf: number[];
  lines: number[];
  symbolCounts: number[];
  chunks: number[];
  /** Each file's meta blob as offset, length (two numbers a file). */
  meta: number[];
  rare: [number, RareFields][];
}

/** The columns of `headers` as JSON text. */
export function fileColumnsJson(headers: readonly SegmentFileHeader[]): string {
  const languages: string[] = [];
  const languageNumbers = new Map<string, number>();
  const columns: FileColumns = { paths: [], sizes: [], mtimes: [], hashes: [], languages, languageOf: [], lines: [], symbolCounts: [], chunks: [], meta: [], rare: [] };
  headers.forEach((header, index) => {
    let language = languageNumbers.get(header.language);
    if (language === undefined) {
      language = languages.push(header.language) - 1;
      languageNumbers.set(header.language, language);
    }
    columns.paths.push(header.path);
    columns.sizes.push(header.size);
    columns.mtimes.push(header.mtimeMs);
    columns.hashes.push(header.hash);
    columns.languageOf.push(language);
    columns.lines.push(header.lines);
    columns.symbolCounts.push(header.symbolCount);
    columns.chunks.push(header.chunks);
    columns.meta.push(header.meta[0], header.meta[1]);
    const rare: RareFields = {};
    if (header.entry !== undefined) rare.entry = header.entry;
    if (header.invalidUtf8 !== undefined) rare.invalidUtf8 = header.invalidUtf8;
    if (header.state !== undefined) rare.state = header.state;
    if (Object.keys(rare).length > 0) columns.rare.push([index, rare]);
  });
  return JSON.stringify(columns);
}

const COLUMNS_PER_FILE = ["paths", "sizes", "mtimes", "hashes", "languageOf", "lines", "symbolCounts", "chunks"] as const;

/**
 * A segment's file list as parsed columns, read in place: what a fresh process needs of every
 * file (path, size, mtime, chunks) is read from the columns, and a file's header object is built
 * only when something asks for that file.
 */
export class FileTable {
  /** Each file's first chunk in the segment (counted from the chunks before it). */
  readonly firstChunks: Int32Array;
  private readonly rare = new Map<number, RareFields>();

  private constructor(private readonly columns: FileColumns) {
    this.firstChunks = new Int32Array(columns.paths.length);
  }

  /** The table the parsed columns describe, or an error message when they do not hold together. */
  static from(parsed: unknown): FileTable | string {
    if (typeof parsed !== "object" || parsed === null) return "its file list is not an object of columns";
    const columns = parsed as FileColumns;
    const count = Array.isArray(columns.paths) ? columns.paths.length : -1;
    for (const name of COLUMNS_PER_FILE) if (!Array.isArray(columns[name]) || columns[name].length !== count) return `its file list's ${name} column does not match its paths`;
    if (!Array.isArray(columns.languages) || !Array.isArray(columns.meta) || columns.meta.length !== 2 * count || !Array.isArray(columns.rare))
      return "its file list is missing columns";
    const table = new FileTable(columns);
    let firstChunk = 0;
    for (let index = 0; index < count; index++) {
      if (typeof columns.languages[columns.languageOf[index]!] !== "string") return "its file list names a language it does not hold";
      const chunks = columns.chunks[index]!;
      if (!Number.isInteger(chunks) || chunks < 0) return "its file list's chunks column holds a value that is not a count";
      if (typeof columns.paths[index] !== "string" || typeof columns.sizes[index] !== "number" || typeof columns.mtimes[index] !== "number")
        return "its file list holds a path, size or mtime of the wrong kind";
      table.firstChunks[index] = firstChunk;
      firstChunk += chunks;
    }
    for (const item of columns.rare as unknown[]) {
      const [index, rare] = Array.isArray(item) ? (item as [number, RareFields]) : [-1, null];
      if (!Number.isInteger(index) || index < 0 || index >= count || typeof rare !== "object" || rare === null) return "its file list's rare fields name a file it does not hold";
      table.rare.set(index, rare);
    }
    return table;
  }

  get length(): number {
    return this.columns.paths.length;
  }
  path(index: number): string {
    return this.columns.paths[index]!;
  }
  size(index: number): number {
    return this.columns.sizes[index]!;
  }
  mtimeMs(index: number): number {
    return this.columns.mtimes[index]!;
  }
  chunks(index: number): number {
    return this.columns.chunks[index]!;
  }
  symbolCount(index: number): number {
    return this.columns.symbolCounts[index]!;
  }
  /** Where the file's meta blob is, as [offset, length]. */
  meta(index: number): [number, number] {
    return [this.columns.meta[2 * index]!, this.columns.meta[2 * index + 1]!];
  }
  state(index: number): SegmentFileHeader["state"] {
    return this.rare.size === 0 ? undefined : this.rare.get(index)?.state;
  }

  /** The header of file `index`, built now. */
  header(index: number): SegmentFileHeader {
    const columns = this.columns;
    const header: SegmentFileHeader = {
      path: columns.paths[index]!,
      size: columns.sizes[index]!,
      mtimeMs: columns.mtimes[index]!,
      hash: columns.hashes[index]!,
      language: columns.languages[columns.languageOf[index]!]!,
      lines: columns.lines[index]!,
      symbolCount: columns.symbolCounts[index]!,
      chunks: columns.chunks[index]!,
      firstChunk: this.firstChunks[index]!,
      meta: this.meta(index),
    };
    const rare = this.rare.get(index);
    if (rare?.entry !== undefined) header.entry = rare.entry;
    if (rare?.invalidUtf8 !== undefined) header.invalidUtf8 = rare.invalidUtf8;
    if (rare?.state !== undefined) header.state = rare.state;
    return header;
  }
}

/** The headers the parsed columns describe (each file's first chunk counted from the chunks before it), or an error message when they do not hold together. */
export function headersFromColumns(parsed: unknown): SegmentFileHeader[] | string {
  const table = FileTable.from(parsed);
  if (typeof table === "string") return table;
  return Array.from({ length: table.length }, (_, index) => table.header(index));
}
