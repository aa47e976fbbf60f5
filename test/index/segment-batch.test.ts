import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { buildFileRecord } from "../../tools/index/file-record.js";
import { IndexStore } from "../../tools/index/index-store.js";
import { SegmentBatch, sortedIds } from "../../tools/index/segment-batch.js";
import { SegmentSet } from "../../tools/index/segment-set.js";
import { TermDictionary } from "../../tools/index/store.js";
import { TermCounter } from "../../tools/index/term-counter.js";
import { GrowingTermList, type TermList } from "../../tools/index/term-list.js";
import { writableOf } from "../../tools/index/writable-file.js";

const SOURCES: Array<[string, string]> = [
  ["src/parse.ts", "export function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n// reads the config file\n"],
  ["src/retry.ts", "export async function retryWithBackoff(task: () => Promise<void>, delayMs = 100) {\n  await task();\n}\n"],
  ["src/walk.ts", "export function walkTree(root: string) {\n  const folders = [root];\n  return folders.map((folder) => folder.toUpperCase());\n}\n"],
  ["src/merge.ts", "export function deepMerge(left: object, right: object) {\n  return { ...left, ...right, parseConfig: true };\n}\n"],
];

/** A counter whose dictionary already holds `seed` words, so its ids differ from a fresh one's. */
function counterWith(seed: string[]): { counter: TermCounter; terms: TermList } {
  const dictionary = new TermDictionary();
  for (const word of seed) dictionary.intern(word);
  return { counter: new TermCounter(dictionary), terms: dictionary };
}

function recordOf(index: number, counter: TermCounter) {
  const [filePath, text] = SOURCES[index]!;
  const bytes = Buffer.from(text, "utf8");
  return writableOf(buildFileRecord({ path: filePath, size: bytes.length, mtimeMs: 1000 + index }, bytes, `hash${index}`, counter));
}

describe("a segment batch", () => {
  const folders: string[] = [];
  afterEach(async () => {
    for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
  });

  /** Writes the records as two segments (the first two files, then the other two); returns each segment file's bytes. */
  async function segmentsOf(threadOf: (index: number) => number, threads: Array<{ counter: TermCounter; terms: TermList }>): Promise<Buffer[]> {
    const folder = await mkdtemp(path.join(os.tmpdir(), "clio-batch-"));
    folders.push(folder);
    const store = new IndexStore(folder);
    const segments = new SegmentSet();
    const batch = new SegmentBatch(store, segments, true, 1_000_000);
    for (const index of [0, 1, 2, 3]) {
      const thread = threads[threadOf(index)]!;
      batch.record(recordOf(index, thread.counter), thread.terms);
      if (index === 1 || index === 3) await batch.flush();
    }
    return segments.readers.map((reader) => readFileSync(path.join(folder, "segments", `${reader.name}.seg`)));
  }

  it("writes the same bytes whether one thread's dictionary or two differently numbered ones name the records' terms, as the lists grow between flushes", async () => {
    const single = await segmentsOf(() => 0, [counterWith([])]);
    const split = await segmentsOf((index) => index % 2, [counterWith(["zebra", "config", "walk"]), counterWith(["merge", "alpha", "retry", "tree"])]);
    expect(single).toHaveLength(2);
    expect(split).toHaveLength(2);
    for (const [position, bytes] of single.entries()) expect(Buffer.compare(bytes, split[position]!)).toBe(0);
  });
});

describe("the order of a list's new terms", () => {
  /** Checks `sortedIds` against a comparator sort of the terms' bytes, for lists of `term`s of up to `maxLength`. */
  function ordersAsComparator(term: fc.Arbitrary<string>, maxLength: number, numRuns: number): void {
    fc.assert(
      fc.property(fc.uniqueArray(term, { maxLength }), fc.nat(), (terms, cut) => {
        const from = terms.length === 0 ? 0 : cut % terms.length;
        const encoded = terms.map((text) => Buffer.from(text, "utf8"));
        const list = new GrowingTermList();
        for (const bytes of encoded) list.push(bytes, 0, bytes.length);
        const expected = Array.from({ length: terms.length - from }, (_, offset) => from + offset).sort((left, right) => Buffer.compare(encoded[left]!, encoded[right]!));
        expect([...sortedIds(list, from)]).toEqual(expected);
      }),
      { numRuns },
    );
  }

  it("is the order of a comparator sort of their bytes, for terms sharing prefixes, shorter than four characters, or not ASCII", () => {
    ordersAsComparator(fc.stringMatching(/^[abc_$0-9\u0000é😀]{0,7}$/u), 60, 500);
  });

  it("orders a term before a longer one it starts, however the longer one goes on (NUL bytes included)", () => {
    const list = new GrowingTermList();
    // "ab" followed by 0..19 NUL bytes, in a shuffled order: one run longer than a comparator's share, all sharing a key.
    const lengths = Array.from({ length: 20 }, (_, index) => (index * 7) % 20);
    for (const nuls of lengths) list.push(Buffer.from(`ab${"\u0000".repeat(nuls)}`, "latin1"), 0, 2 + nuls);
    const byLength = lengths.map((nuls, id) => ({ nuls, id })).sort((left, right) => left.nuls - right.nuls);
    expect([...sortedIds(list, 0)]).toEqual(byLength.map(({ id }) => id));
  });

  it("is the order of a comparator sort of their bytes for long ASCII terms sharing prefixes of many lengths (sorted four bytes at a time)", () => {
    ordersAsComparator(fc.stringMatching(/^(ab|a|b|\u0000|x){0,12}$/), 400, 200);
  });
});
