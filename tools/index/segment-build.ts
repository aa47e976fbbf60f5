/**
 * Making segments: from freshly analysed file records (their term ids named by a dictionary),
 * and by merging segments into one, term by term in dictionary order, keeping only the files
 * still live. Both stream into a sink, so memory stays near one batch of records.
 */
import { SegmentWriter, type SegmentFileHeader, type SegmentReader } from "./segment.js";
import type { SegmentSink } from "./segment-bytes.js";
import { encodeFileMeta } from "./symbol-table.js";
import type { IndexedFile } from "./store.js";

/** A path the segment marks removed, or whose size and mtime changed without its content. */
export interface FileChange {
  path: string;
  state: "removed" | "touched";
  size: number;
  mtimeMs: number;
}

const emptyMeta = new Uint8Array(0);

function metaOf(file: IndexedFile): Uint8Array {
  return encodeFileMeta(
    file.symbols,
    file.imports,
    file.chunks.map((chunk) => chunk.symbol ?? ""),
  );
}

function headerOf(file: IndexedFile): Omit<SegmentFileHeader, "firstChunk" | "meta" | "chunks"> {
  const header: Omit<SegmentFileHeader, "firstChunk" | "meta" | "chunks"> = {
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
  return header;
}

/** Writes `records` and `changes` as one segment; `terms` names the records' term ids. */
export function writeRecords(sink: SegmentSink, records: readonly IndexedFile[], changes: readonly FileChange[], terms: readonly string[]): Uint8Array | undefined {
  const writer = new SegmentWriter(sink);
  const symbolFiles = new Map<string, number[]>();
  const firstIds: number[] = [];
  records.forEach((file, fileIndex) => {
    const rows: number[] = [];
    for (const chunk of file.chunks) rows.push(chunk.startLine, chunk.endLine, chunk.length);
    firstIds.push(writer.addFile(headerOf(file), metaOf(file), rows));
    for (const symbol of file.symbols) {
      const key = symbol.name.toLowerCase();
      const files = symbolFiles.get(key);
      if (files === undefined) symbolFiles.set(key, [fileIndex]);
      else if (files[files.length - 1] !== fileIndex) files.push(fileIndex);
    }
  });
  for (const change of changes)
    writer.addFile({ path: change.path, size: change.size, mtimeMs: change.mtimeMs, hash: "", language: "", lines: 0, symbolCount: 0, state: change.state }, emptyMeta, []);
  writePostings(writer, records, firstIds, terms);
  for (const name of [...symbolFiles.keys()].sort(byCodeUnits)) writer.addSymbol(name, symbolFiles.get(name)!);
  return writer.finish();
}

function byCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Lays the records' postings out by term id in one counting pass, then writes them in term order. */
function writePostings(writer: SegmentWriter, records: readonly IndexedFile[], firstIds: readonly number[], terms: readonly string[]): void {
  const frequency = new Int32Array(terms.length + 1);
  for (const file of records) {
    for (const { termsAt, distinct } of file.chunks) for (let position = termsAt; position < termsAt + distinct; position++) frequency[file.numbers[position]! + 1]!++;
  }
  const starts = new Int32Array(terms.length + 1);
  for (let term = 0; term < terms.length; term++) starts[term + 1] = starts[term]! + frequency[term + 1]!;
  const cursor = starts.slice();
  const ids = new Int32Array(starts[terms.length]!);
  const counts = new Int32Array(ids.length);
  records.forEach((file, fileIndex) => {
    const first = firstIds[fileIndex]!;
    file.chunks.forEach(({ termsAt, distinct }, chunkIndex) => {
      for (let position = termsAt; position < termsAt + distinct; position++) {
        const slot = cursor[file.numbers[position]!]!++;
        ids[slot] = first + chunkIndex;
        counts[slot] = file.numbers[position + distinct]!;
      }
    });
  });
  const present: number[] = [];
  for (let term = 0; term < terms.length; term++) if (starts[term + 1]! > starts[term]!) present.push(term);
  present.sort((left, right) => byCodeUnits(terms[left]!, terms[right]!));
  for (const term of present) writer.addTerm(terms[term]!, ids.subarray(starts[term]!, starts[term + 1]!), counts.subarray(starts[term]!, starts[term + 1]!));
}

/** A segment to merge: which of its files are still live, with their current size and mtime. */
export interface MergeInput {
  reader: SegmentReader;
  live: Array<{ file: number; size: number; mtimeMs: number }>;
}

/** Merges segments into one holding only their live files (removals are dropped: nothing older remains). */
export function mergeSegments(sink: SegmentSink, inputs: readonly MergeInput[]): Uint8Array | undefined {
  const writer = new SegmentWriter(sink);
  const chunkMaps: Int32Array[] = [];
  const fileMaps: Int32Array[] = [];
  for (const { reader, live } of inputs) {
    const chunkMap = new Int32Array(reader.chunkCount).fill(-1);
    const fileMap = new Int32Array(reader.files.length).fill(-1);
    for (const { file, size, mtimeMs } of live) {
      const header = reader.files[file]!;
      const { firstChunk, chunks, meta: _meta, state: _state, ...rest } = header;
      const rows = reader.chunkRows.subarray(3 * firstChunk, 3 * (firstChunk + chunks));
      fileMap[file] = writer.fileCount;
      const first = writer.addFile({ ...rest, size, mtimeMs }, reader.metaBytes(file), rows);
      for (let chunk = 0; chunk < chunks; chunk++) chunkMap[firstChunk + chunk] = first + chunk;
    }
    chunkMaps.push(chunkMap);
    fileMaps.push(fileMap);
  }
  mergeInOrder(
    inputs.map(({ reader }) => reader.termEntries()),
    (entry) => entry.term,
    (term, entries) => {
      const ids: number[] = [];
      const counts: number[] = [];
      for (const [input, entry] of entries) {
        const map = chunkMaps[input]!;
        inputs[input]!.reader.postings(entry, (chunk, count) => {
          if (map[chunk]! < 0) return;
          ids.push(map[chunk]!);
          counts.push(count);
        });
      }
      if (ids.length > 0) writer.addTerm(term, ids, counts);
    },
  );
  mergeInOrder(
    inputs.map(({ reader }) => reader.symbolEntries()),
    (entry) => entry.name,
    (name, entries) => {
      const files: number[] = [];
      for (const [input, entry] of entries) for (const file of entry.files) if (fileMaps[input]![file]! >= 0) files.push(fileMaps[input]![file]!);
      if (files.length > 0) writer.addSymbol(name, files);
    },
  );
  return writer.finish();
}

/** Walks sorted streams together, calling `each` once per key with the entries (by input) that hold it. */
function mergeInOrder<Entry>(streams: Array<Iterator<Entry>>, keyOf: (entry: Entry) => string, each: (key: string, entries: Array<[number, Entry]>) => void): void {
  const heads = streams.map((stream) => stream.next());
  for (;;) {
    let smallest: string | undefined;
    for (const head of heads) if (!head.done && (smallest === undefined || keyOf(head.value) < smallest)) smallest = keyOf(head.value);
    if (smallest === undefined) return;
    const entries: Array<[number, Entry]> = [];
    heads.forEach((head, input) => {
      if (head.done || keyOf(head.value) !== smallest) return;
      entries.push([input, head.value]);
      heads[input] = streams[input]!.next();
    });
    each(smallest, entries);
  }
}
