import { describe, expect, it } from "vitest";
import { SegmentReader, SegmentWriter } from "../../tools/index/segment.js";
import { MemorySink, MemorySource } from "../../tools/index/segment-bytes.js";
import { mergeSegments } from "../../tools/index/segment-build.js";

/** A segment held in memory whose reads are counted. */
class CountedSource extends MemorySource {
  reads = 0;
  override read(offset: number, length: number): Uint8Array {
    this.reads++;
    return super.read(offset, length);
  }
}

const termOf = (number: number) => `term${String(number).padStart(6, "0")}`;

/** A segment of one file with `terms` terms, term n posted at chunk n % 4 with count n % 7 + 1. */
function segmentWith(terms: number, metaPadding = 0): CountedSource {
  const writer = new SegmentWriter(new MemorySink());
  const meta = Buffer.from(JSON.stringify({ symbols: [], imports: [], chunkSymbols: ["", "", "", ""], padding: "x".repeat(metaPadding) }));
  writer.addFile(
    { path: "a.ts", size: 1, mtimeMs: 1, hash: "h", language: "typescript", lines: 40, symbolCount: 0 },
    meta,
    [1, 10, 5, 0, 90, 11, 20, 5, 90, 180, 21, 30, 5, 180, 270, 31, 40, 5, 270, 360],
  );
  for (let number = 0; number < terms; number++) writer.addTerm(termOf(number), [number % 4], [(number % 7) + 1]);
  return new CountedSource(writer.finish()!);
}

const postingsOf = (reader: SegmentReader, term: string) => {
  const entry = reader.term(term);
  const found: Array<[number, number]> = [];
  if (entry !== undefined) reader.postings(entry, (chunk, count) => found.push([chunk, count]));
  return found;
};

describe("reading a segment", () => {
  it("looks a word up again from its decoded dictionary block, without reading the segment", () => {
    const source = segmentWith(500);
    const reader = new SegmentReader("one", source);
    const terms = Array.from({ length: 500 }, (_, number) => termOf(number));
    for (const term of terms) expect(reader.term(term)?.term).toBe(term);
    const afterFirst = source.reads;
    for (const term of terms) expect(reader.term(term)?.term).toBe(term);
    expect(reader.term("term000250x")).toBeUndefined();
    expect(reader.term("a-word-before-all")).toBeUndefined();
    expect(source.reads).toBe(afterFirst);
    expect(postingsOf(reader, termOf(13))).toEqual([[1, 7]]);
  });

  it("reads every entry for a merge without filling the lookup cache, and answers lookups the same way", () => {
    const source = segmentWith(300);
    const reader = new SegmentReader("one", source);
    const entries = [...reader.termEntries()];
    expect(entries.map((entry) => entry.term)).toEqual(Array.from({ length: 300 }, (_, number) => termOf(number)));
    const before = source.reads;
    for (const entry of entries) expect(reader.term(entry.term)).toEqual(entry);
    expect(source.reads).toBeGreaterThan(before);
  });

  it("keeps a bounded number of blocks: past the bound, the least recently used block is read again", () => {
    const source = segmentWith(530 * 32);
    const reader = new SegmentReader("one", source);
    for (let block = 0; block < 530; block++) reader.term(termOf(block * 32));
    const before = source.reads;
    reader.term(termOf(529 * 32 + 1));
    expect(source.reads).toBe(before);
    reader.term(termOf(1));
    expect(source.reads).toBe(before + 1);
  });

  it("decodes a word's postings once: later queries get the same list without reading the segment", () => {
    const source = segmentWith(100);
    const reader = new SegmentReader("one", source);
    const entry = reader.term(termOf(41))!;
    const list = reader.postingList(entry);
    expect([...list.ids].map((id, at) => [id, list.counts[at]])).toEqual(postingsOf(reader, termOf(41)));
    const before = source.reads;
    expect(reader.postingList(entry)).toBe(list);
    expect(source.reads).toBe(before);
  });

  it("reads the chunk table wherever it lies in the bytes, at a multiple of 4 or not", () => {
    for (let padding = 0; padding < 4; padding++) {
      const reader = new SegmentReader("one", segmentWith(10, padding));
      expect([...reader.chunkRows]).toEqual([1, 10, 5, 0, 90, 11, 20, 5, 90, 180, 21, 30, 5, 180, 270, 31, 40, 5, 270, 360]);
    }
  });

  it("merges segments reading their dictionaries and postings a window at a time, into the same postings and symbols", () => {
    const withSymbols = (terms: number, offset: number) => {
      const writer = new SegmentWriter(new MemorySink());
      const meta = Buffer.from(JSON.stringify({ symbols: [], imports: [], chunkSymbols: ["", ""] }));
      writer.addFile({ path: `f${offset}.ts`, size: 1, mtimeMs: 1, hash: "h", language: "typescript", lines: 20, symbolCount: 0 }, meta, [1, 10, 5, 0, 90, 11, 20, 5, 90, 180]);
      for (let number = 0; number < terms; number++) writer.addTerm(termOf(offset + 2 * number), [number % 2], [(number % 5) + 1]);
      for (let number = 0; number < terms; number++) writer.addSymbol(`name${String(offset + 2 * number).padStart(6, "0")}`, [0]);
      return new CountedSource(writer.finish()!);
    };
    const sources = [withSymbols(3000, 0), withSymbols(3000, 1)];
    const inputs = sources.map((source, at) => ({ reader: new SegmentReader(`s${at}`, source), live: [{ file: 0, size: 1, mtimeMs: 1 }] }));
    for (const source of sources) source.reads = 0;
    const merged = new SegmentReader("merged", new MemorySource(mergeSegments(new MemorySink(), inputs)!));
    // 6,000 terms and 6,000 symbols: a read each would be over 12,000; a window at a time, a few.
    for (const source of sources) expect(source.reads).toBeLessThan(20);
    for (const number of [0, 1, 2, 2999, 5998, 5999]) {
      const input = number % 2;
      const local = (number - input) / 2;
      expect(postingsOf(merged, termOf(number))).toEqual([[input * 2 + (local % 2), (local % 5) + 1]]);
      expect(merged.symbolFiles(`name${String(number).padStart(6, "0")}`)).toEqual([input]);
    }
    expect([...merged.termEntries()]).toHaveLength(6000);
  });
});
