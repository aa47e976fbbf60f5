import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteBuffer, ByteReader } from "../../tools/index/segment-bytes.js";

/** Unsigned LEB128 of `value`, worked out with BigInt: the reference the writer must match. */
function leb128(value: number): number[] {
  const bytes: number[] = [];
  let rest = BigInt(value);
  while (rest >= 0x80n) {
    bytes.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  bytes.push(Number(rest));
  return bytes;
}

/** Whole numbers the segments store, weighted towards the edges of 7-bit groups and of 2^31 and 2^32, where the writer changes method. */
const storedNumber = fc.oneof(
  fc.nat(),
  fc.integer({ min: 2 ** 31 - 300, max: 2 ** 32 + 300 }),
  fc.constantFrom(0, 0x7f, 0x80, 2 ** 14 - 1, 2 ** 14, 2 ** 28, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 49, 2 ** 53 - 1),
  fc.integer({ min: 0, max: 2 ** 53 - 1 }),
);

describe("the segment byte writer", () => {
  it("writes a varint as unsigned LEB128 and reads it back, below and above 2^32", () => {
    fc.assert(
      fc.property(fc.array(storedNumber, { maxLength: 40 }), (values) => {
        const buffer = new ByteBuffer();
        for (const value of values) buffer.varint(value);
        expect([...buffer.view()]).toEqual(values.flatMap(leb128));
        const reader = new ByteReader(buffer.view());
        expect(values.map(() => reader.varint())).toEqual(values);
        expect(reader.done).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("writes a posting list (ids as deltas, each with its count) as the same varints one by one, for any range of the arrays", () => {
    const postings = fc.array(fc.tuple(fc.integer({ min: 0, max: 2 ** 20 }), storedNumber), { maxLength: 30 });
    fc.assert(
      fc.property(postings, fc.nat(), fc.nat(), (pairs, first, last) => {
        let id = 0;
        const ids = pairs.map(([gap]) => (id += gap));
        const counts = pairs.map(([, count]) => count);
        const from = pairs.length === 0 ? 0 : first % pairs.length;
        const to = from + (pairs.length === 0 ? 0 : last % (pairs.length - from + 1));
        const listed = new ByteBuffer();
        listed.varint(1);
        listed.deltaPairs(ids, counts, from, to);
        const oneByOne = new ByteBuffer();
        oneByOne.varint(1);
        for (let index = from; index < to; index++) {
          oneByOne.varint(ids[index]! - (index === from ? 0 : ids[index - 1]!));
          oneByOne.varint(counts[index]!);
        }
        expect([...listed.view()]).toEqual([...oneByOne.view()]);
      }),
      { numRuns: 300 },
    );
  });

  it("copies a range of bytes as raw() copies the same range", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), fc.nat(), (source, first, last) => {
        const start = source.length === 0 ? 0 : first % source.length;
        const end = start + (source.length === 0 ? 0 : last % (source.length - start + 1));
        const copied = new ByteBuffer();
        copied.bytesOf(source, start, end);
        copied.bytesOf(source, start, end);
        const raw = new ByteBuffer();
        raw.raw(source.subarray(start, end));
        raw.raw(source.subarray(start, end));
        expect([...copied.view()]).toEqual([...raw.view()]);
      }),
      { numRuns: 200 },
    );
  });
});
