import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolError } from "../../../tools/errors.js";
import { applyDelta } from "../../../tools/git/object-reader.js";

type Operation = { copy: [from: number, length: number] } | { insert: Buffer };

/** git's variable-length size (7 bits a byte, least significant first). */
function size(value: number): number[] {
  const bytes: number[] = [];
  do {
    const low = value % 128;
    value = Math.floor(value / 128);
    bytes.push(value > 0 ? low | 0x80 : low);
  } while (value > 0);
  return bytes;
}

/** A copy instruction: only the nonzero bytes of offset and length are written, as git writes them. */
function copy(from: number, length: number): number[] {
  let instruction = 0x80;
  const bytes: number[] = [];
  for (let bit = 0; bit < 4; bit++) {
    const byte = Math.floor(from / 2 ** (8 * bit)) & 0xff;
    if (byte !== 0) {
      instruction |= 1 << bit;
      bytes.push(byte);
    }
  }
  const written = length === 0x10000 ? 0 : length;
  for (let bit = 0; bit < 3; bit++) {
    const byte = (written >> (8 * bit)) & 0xff;
    if (byte !== 0) {
      instruction |= 0x10 << bit;
      bytes.push(byte);
    }
  }
  return [instruction, ...bytes];
}

function deltaOf(baseLength: number, operations: readonly Operation[]): { delta: Buffer; expected: (base: Buffer) => Buffer } {
  const body: number[] = [];
  let resultLength = 0;
  for (const operation of operations) {
    if ("copy" in operation) {
      body.push(...copy(...operation.copy));
      resultLength += operation.copy[1];
    } else {
      body.push(operation.insert.length, ...operation.insert);
      resultLength += operation.insert.length;
    }
  }
  const delta = Buffer.from([...size(baseLength), ...size(resultLength), ...body]);
  const expected = (base: Buffer) =>
    Buffer.concat(operations.map((operation) => ("copy" in operation ? base.subarray(operation.copy[0], operation.copy[0] + operation.copy[1]) : operation.insert)));
  return { delta, expected };
}

/** The pack a broken delta is reported against. */
const corrupt = "objects/pack/pack-test.pack";

describe("applyDelta (git's copy and insert instructions)", () => {
  it("rebuilds what the instructions say, for short and long copies and inserts of any length", () => {
    const scenario = fc.uint8Array({ minLength: 1, maxLength: 70_000 }).chain((base) =>
      fc.record({
        base: fc.constant(Buffer.from(base)),
        operations: fc.array(
          fc.oneof(
            fc.tuple(fc.nat(base.length - 1), fc.integer({ min: 1, max: 200 })).map(([from, length]): Operation => ({ copy: [from, Math.min(length, base.length - from)] })),
            fc.uint8Array({ minLength: 1, maxLength: 127 }).map((bytes): Operation => ({ insert: Buffer.from(bytes) })),
          ),
          { maxLength: 40 },
        ),
      }),
    );
    fc.assert(
      fc.property(scenario, ({ base, operations }) => {
        const { delta, expected } = deltaOf(base.length, operations);
        expect(applyDelta(base, delta, corrupt).equals(expected(base))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("reads a copy of length 0 as 65,536 bytes, and an offset in the fourth byte", () => {
    const base = Buffer.alloc(0x01000000 + 0x20, "abcdefghijklm");
    const { delta, expected } = deltaOf(base.length, [{ copy: [3, 0x10000] }, { copy: [0x01000005, 9] }, { insert: Buffer.from("end") }]);
    const result = applyDelta(base, delta, corrupt);
    expect(result.length).toBe(0x10000 + 12);
    expect(result.equals(expected(base))).toBe(true);
  });

  it("refuses a copy whose offset has the top bit set (not read as a negative number), and every other damage", () => {
    const base = Buffer.from("0123456789");
    const cases: Array<[string, Buffer, RegExp]> = [
      ["offset 2^31 + 1", Buffer.from([10, 1, 0x80 | 0x01 | 0x08 | 0x10, 1, 0x80, 1]), /copies from outside/],
      ["offset 2^32 - 1", Buffer.from([10, 1, 0x80 | 0x0f | 0x10, 0xff, 0xff, 0xff, 0xff, 1]), /copies from outside/],
      ["copy past the end", Buffer.from([10, 5, 0x80 | 0x01 | 0x10, 8, 5]), /copies from outside/],
      ["insert cut short", Buffer.from([10, 5, 5, 65, 66]), /inserts more/],
      ["reserved instruction", Buffer.from([10, 1, 0]), /reserved/],
      ["other base size", Buffer.from([9, 1, 1, 65]), /another size/],
      ["fewer bytes", Buffer.from([10, 4, 1, 65]), /fewer bytes/],
      ["size cut short", Buffer.from([10, 0x80]), /cut short/],
      ["copy bytes missing", Buffer.from([10, 1, 0x80 | 0x01 | 0x02 | 0x10]), /copies from outside/],
    ];
    for (const [name, delta, message] of cases) {
      expect(() => applyDelta(base, delta, corrupt), name).toThrow(message);
      expect(() => applyDelta(base, delta, corrupt), name).toThrow(ToolError);
    }
  });
});
