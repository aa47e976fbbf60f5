import { deflateSync, inflateSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inflateToSize, keptHandleInUse } from "../../../tools/git/inflater.js";

/** What inflateSync (the reference) gives for the same call: its bytes, or its error's message. */
function reference(compressed: Buffer, size: number): Buffer | string {
  try {
    return inflateSync(compressed, { chunkSize: Math.max(64, size + 1), maxOutputLength: Math.max(size, 1) });
  } catch (error) {
    return (error as Error).message;
  }
}

function ours(compressed: Buffer, size: number): Buffer | string {
  try {
    return Buffer.from(inflateToSize(compressed, size));
  } catch (error) {
    return (error as Error).message;
  }
}

const text = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }).map((bytes) => Buffer.from(bytes)),
  fc.array(fc.constantFrom("export const value = 1;\n", "line\n", "\r\n", "}", " "), { maxLength: 400 }).map((parts) => Buffer.from(parts.join(""))),
);

describe("inflateToSize (one kept zlib handle for a pack's many small streams)", () => {
  it("uses the kept handle on this node (else every test below would only check inflateSync against itself)", () => {
    expect(keptHandleInUse()).toBe(true);
  });

  it("gives what inflateSync gives for any stream and any claimed size, bytes after the stream ignored", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: -3, max: 3 }), fc.uint8Array({ maxLength: 40 }), fc.integer({ min: 0, max: 9 }), (plain, sizeOffset, after, level) => {
        const compressed = Buffer.concat([deflateSync(plain, { level }), after]);
        const size = Math.max(0, plain.length + sizeOffset);
        expect(ours(compressed, size)).toEqual(reference(compressed, size));
      }),
      { numRuns: 400 },
    );
  });

  it("a damaged or cut stream is inflateSync's error, and the streams after it still inflate", () => {
    const plain = Buffer.from("export const value = 42;\n".repeat(200));
    const whole = deflateSync(plain);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: whole.length - 1 }), fc.integer({ min: 1, max: 255 }), fc.boolean(), (at, flip, cut) => {
        const damaged = cut ? whole.subarray(0, at) : Buffer.from(whole);
        if (!cut) damaged[at]! ^= flip;
        expect(ours(damaged, plain.length)).toEqual(reference(damaged, plain.length));
        expect(ours(whole, plain.length)).toEqual(plain);
      }),
      { numRuns: 300 },
    );
  });

  it("a stream that needs a preset dictionary is an error, not bytes", () => {
    const compressed = deflateSync(Buffer.from("abcabcabc"), { dictionary: Buffer.from("abc") });
    expect(typeof ours(compressed, 9)).toBe("string");
    expect(ours(compressed, 9)).toEqual(reference(compressed, 9));
  });

  it("a size no stream of this length could reach is left to inflateSync, which refuses it", () => {
    const compressed = deflateSync(Buffer.from("small"));
    expect(ours(compressed, 2 ** 40)).toEqual(reference(compressed, 2 ** 40));
  });
});
