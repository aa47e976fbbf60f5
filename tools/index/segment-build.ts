/**
 * Making segments: from freshly analysed file records (their term ids named by a dictionary),
 * and by merging segments into one, term by term in dictionary order, keeping only the files
 * still live. Both stream into a sink, so memory stays near one batch of records.
 */
import { compareCodeUnits } from "../../grammar/sorted.js";
import { CHUNK_ROW, SegmentWriter, type SegmentReader } from "./segment.js";
import type { SegmentSink } from "./segment-bytes.js";
import { CHUNK_HEADER } from "./store.js";
import type { TermList } from "./term-list.js";
import { chunkRowsOf, type WritableFile } from "./writable-file.js";

/** A path the segment marks removed, or whose size and mtime changed without its content. */
export interface FileChange {
  path: string;
  state: "removed" | "touched";
  size: number;
  mtimeMs: number;
}

const emptyMeta = new Uint8Array(0);

/** Writes `files` and `changes` as one segment; `terms` names the files' term ids, in term order. */
export function writeRecords(sink: SegmentSink, files: readonly WritableFile[], changes: readonly FileChange[], terms: TermList): Uint8Array | undefined {
  const writer = new SegmentWriter(sink);
  const symbolFiles = new Map<string, number[]>();
  const firstIds: number[] = [];
  files.forEach((file, fileIndex) => {
    firstIds.push(writer.addFile(file.header, file.meta, chunkRowsOf(file.numbers)));
    for (const key of file.symbolKeys) {
      const holders = symbolFiles.get(key);
      if (holders === undefined) symbolFiles.set(key, [fileIndex]);
      else if (holders[holders.length - 1] !== fileIndex) holders.push(fileIndex);
    }
  });
  addChanges(writer, changes);
  writePostings(writer, files, firstIds, terms);
  for (const name of [...symbolFiles.keys()].sort(compareCodeUnits)) writer.addSymbol(name, symbolFiles.get(name)!);
  return writer.finish();
}

/** Adds a row, with no chunks, for each path a segment marks removed or touched. */
function addChanges(writer: SegmentWriter, changes: readonly FileChange[]): void {
  for (const change of changes)
    writer.addFile({ path: change.path, size: change.size, mtimeMs: change.mtimeMs, hash: "", language: "", lines: 0, symbolCount: 0, state: change.state }, emptyMeta, []);
}

/** Lays the files' postings out by term id in one counting pass, then writes them in term order (ids are in term order already). */
function writePostings(writer: SegmentWriter, files: readonly WritableFile[], firstIds: readonly number[], terms: TermList): void {
  const starts = new Int32Array(terms.count + 1);
  for (const { numbers } of files) {
    for (let position = 0; position < numbers.length; ) {
      const distinct = numbers[position + CHUNK_HEADER - 1]!;
      const termsAt = position + CHUNK_HEADER;
      for (let index = termsAt; index < termsAt + distinct; index++) starts[numbers[index]! + 1]!++;
      position = termsAt + 2 * distinct;
    }
  }
  for (let term = 0; term < terms.count; term++) starts[term + 1]! += starts[term]!;
  const cursor = starts.slice();
  const ids = new Int32Array(starts[terms.count]!);
  const counts = new Int32Array(ids.length);
  for (let fileIndex = 0; fileIndex < files.length; fileIndex++) {
    const numbers = files[fileIndex]!.numbers;
    let chunkId = firstIds[fileIndex]!;
    for (let position = 0; position < numbers.length; chunkId++) {
      const distinct = numbers[position + CHUNK_HEADER - 1]!;
      const termsAt = position + CHUNK_HEADER;
      for (let index = termsAt; index < termsAt + distinct; index++) {
        const slot = cursor[numbers[index]!]!++;
        ids[slot] = chunkId;
        counts[slot] = numbers[index + distinct]!;
      }
      position = termsAt + 2 * distinct;
    }
  }
  const bytes = terms.bytes;
  for (let term = 0; term < terms.count; term++) {
    if (starts[term + 1]! > starts[term]!) writer.addTermBytes(bytes, terms.startOf(term), terms.endOf(term), ids, counts, starts[term]!, starts[term + 1]!);
  }
}

/** A segment to merge: which of its files are still live, with their current size and mtime. */
export interface MergeInput {
  reader: SegmentReader;
  live: Array<{ file: number; size: number; mtimeMs: number }>;
}

/**
 * Merges segments into one holding only their live files, and `changes`: what the merged
 * segments said about the files of older segments that stay (none when every segment is merged).
 */
export function mergeSegments(sink: SegmentSink, inputs: readonly MergeInput[], changes: readonly FileChange[] = []): Uint8Array | undefined {
  const writer = new SegmentWriter(sink);
  const chunkMaps: Int32Array[] = [];
  const fileMaps: Int32Array[] = [];
  for (const { reader, live } of inputs) {
    const chunkMap = new Int32Array(reader.chunkCount).fill(-1);
    const fileMap = new Int32Array(reader.files.length).fill(-1);
    for (const { file, size, mtimeMs } of live) {
      const header = reader.files[file]!;
      const { firstChunk, chunks, meta: _meta, state: _state, ...rest } = header;
      const rows = reader.chunkRows.subarray(CHUNK_ROW * firstChunk, CHUNK_ROW * (firstChunk + chunks));
      fileMap[file] = writer.fileCount;
      const first = writer.addFile({ ...rest, size, mtimeMs }, reader.metaBytes(file), rows);
      for (let chunk = 0; chunk < chunks; chunk++) chunkMap[firstChunk + chunk] = first + chunk;
    }
    chunkMaps.push(chunkMap);
    fileMaps.push(fileMap);
  }
  addChanges(writer, changes);
  const postingsOf = inputs.map(({ reader }) => reader.postingsInOrder());
  mergeInOrder(
    inputs.map(({ reader }) => reader.termEntries()),
    (entry) => entry.term,
    (term, entries) => {
      const ids: number[] = [];
      const counts: number[] = [];
      for (const [input, entry] of entries) {
        const map = chunkMaps[input]!;
        postingsOf[input]!(entry, (chunk, count) => {
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
