/**
 * A file record in the form a segment writes it, made in the thread that analysed the file: the
 * header fields, the meta blob's bytes (symbols, imports, chunk symbols), the keys its symbols are
 * listed under, and its chunk records. So a worker sends a few strings and two byte arrays per
 * file, and the thread that writes segments neither parses nor serialises a record's objects.
 */
import type { SegmentFileHeader } from "./file-columns.js";
import { CHUNK_HEADER, type IndexedFile } from "./store.js";
import { encodeFileMeta } from "./symbol-table.js";

/** A file's header as `SegmentWriter.addFile` takes it. */
export type WritableHeader = Omit<SegmentFileHeader, "firstChunk" | "meta" | "chunks">;

export interface WritableFile {
  header: WritableHeader;
  /** The meta blob as stored. */
  meta: Uint8Array;
  /** The symbol dictionary's key of each symbol (its lower-cased name), in file order. */
  symbolKeys: string[];
  /** The chunk records (see `CHUNK_HEADER` in store.ts), one after another; term ids of the analysing thread's dictionary. */
  numbers: Uint32Array;
}

/** The record as a segment writes it (its `numbers` are shared, not copied). */
export function writableOf(file: IndexedFile): WritableFile {
  const header: WritableHeader = {
    path: file.path,
    size: file.size,
    mtimeMs: file.mtimeMs,
    hash: file.hash,
    language: file.language,
    lines: file.lines,
    symbolCount: file.symbols.length,
  };
  if (file.entry !== undefined) header.entry = file.entry;
  if (file.invalidUtf8) header.invalidUtf8 = true;
  // The encoded table owns its buffer, so a worker can hand it over.
  const meta = encodeFileMeta(
    file.symbols,
    file.imports,
    file.chunks.map((chunk) => chunk.symbol ?? ""),
  );
  return { header, meta, symbolKeys: file.symbols.map((symbol) => symbol.name.toLowerCase()), numbers: file.numbers };
}

/**
 * Calls `each` for every chunk record in `numbers`, in order: where its term ids start, how
 * many there are (their counts follow them), and its position among the file's chunks.
 */
export function forEachChunk(numbers: Uint32Array, each: (termsAt: number, distinct: number, chunk: number) => void): void {
  let chunk = 0;
  for (let position = 0; position < numbers.length; chunk++) {
    const distinct = numbers[position + CHUNK_HEADER - 1]!;
    each(position + CHUNK_HEADER, distinct, chunk);
    position += CHUNK_HEADER + 2 * distinct;
  }
}

/** The chunks' rows as a segment stores them: start line, end line, length, start byte and end byte of each (the record's header without its term count). */
export function chunkRowsOf(numbers: Uint32Array): number[] {
  const rows: number[] = [];
  forEachChunk(numbers, (termsAt) => {
    for (let field = termsAt - CHUNK_HEADER; field < termsAt - 1; field++) rows.push(numbers[field]!);
  });
  return rows;
}
