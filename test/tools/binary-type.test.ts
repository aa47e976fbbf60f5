import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { binaryType, binaryTypeOfDecoded, SNIFF_BYTES } from "../../tools/files/text.js";

/** Known openings, as the plain check compares them: name, bytes, offset. */
const SIGNATURES: Array<[string, number[], number]> = [
  ["PNG image", [0x89, 0x50, 0x4e, 0x47], 0],
  ["JPEG image", [0xff, 0xd8, 0xff], 0],
  ["GIF image", [0x47, 0x49, 0x46, 0x38], 0],
  ["WebP/RIFF media", [0x52, 0x49, 0x46, 0x46], 0],
  ["PDF document", [0x25, 0x50, 0x44, 0x46], 0],
  ["ZIP archive (or docx/xlsx/jar)", [0x50, 0x4b, 0x03, 0x04], 0],
  ["gzip archive", [0x1f, 0x8b], 0],
  ["bzip2 archive", [0x42, 0x5a, 0x68], 0],
  ["xz archive", [0xfd, 0x37, 0x7a, 0x58, 0x5a], 0],
  ["7-Zip archive", [0x37, 0x7a, 0xbc, 0xaf], 0],
  ["ELF executable", [0x7f, 0x45, 0x4c, 0x46], 0],
  ["Mach-O executable", [0xcf, 0xfa, 0xed, 0xfe], 0],
  ["Windows executable", [0x4d, 0x5a], 0],
  ["WebAssembly module", [0x00, 0x61, 0x73, 0x6d], 0],
  ["SQLite database", [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], 0],
  ["Java class file", [0xca, 0xfe, 0xba, 0xbe], 0],
  ["UTF-16 text (little-endian)", [0xff, 0xfe], 0],
  ["UTF-16 text (big-endian)", [0xfe, 0xff], 0],
  ["tar archive", [0x75, 0x73, 0x74, 0x61, 0x72], 257],
];

/** The plain spelling of the check: the first signature found, then a NUL, then more than 10% control characters. */
function plainBinaryType(head: Uint8Array): string | undefined {
  for (const [name, bytes, at] of SIGNATURES) {
    if (head.length >= at + bytes.length && bytes.every((byte, index) => head[at + index] === byte)) return name;
  }
  if (head.includes(0)) return "binary data";
  const control = [...head].filter((byte) => byte < 32 && ![9, 10, 12, 13, 27].includes(byte)).length;
  return head.length > 0 && control / head.length > 0.1 ? "binary data" : undefined;
}

/** Bytes that are mostly text, with signatures, NULs and control characters put in now and then. */
const heads = fc
  .tuple(
    fc.oneof(fc.constant([] as number[]), fc.constantFrom(...SIGNATURES.map(([, bytes]) => bytes)), fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 6 })),
    fc.array(fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 32, max: 126 }) }, { weight: 2, arbitrary: fc.integer({ min: 0, max: 31 }) }, fc.integer({ min: 0, max: 255 })), {
      maxLength: 400,
    }),
    fc.boolean(),
  )
  .map(([opening, rest, tar]) => {
    const bytes = [...opening, ...rest];
    if (tar && bytes.length >= 262) bytes.splice(257, 5, 0x75, 0x73, 0x74, 0x61, 0x72);
    return Uint8Array.from(bytes);
  });

describe("binaryType", () => {
  it("decides as the plain spelling does", () => {
    fc.assert(
      fc.property(heads, (head) => {
        expect(binaryType(head)).toBe(plainBinaryType(head));
        expect(binaryType(Buffer.from(head))).toBe(plainBinaryType(head));
      }),
      { numRuns: 2000 },
    );
  });

  it("names each signature, tar's at 257, and tells NULs and control characters", () => {
    for (const [name, bytes, at] of SIGNATURES) {
      const head = new Uint8Array(at + bytes.length + 10).fill(0x41);
      head.set(bytes, at);
      expect(binaryType(head)).toBe(name);
    }
    expect(binaryType(new Uint8Array([0x41, 0x00, 0x41]))).toBe("binary data");
    expect(binaryType(Uint8Array.from([1, 2, 3, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41]))).toBe("binary data");
    expect(binaryType(Uint8Array.from([1, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41]))).toBeUndefined();
    expect(binaryType(new Uint8Array())).toBeUndefined();
    expect(binaryType(Buffer.from("\t\n\f\r\u001b text"))).toBeUndefined();
  });

  it("from the decoded text of a whole file, decides as binaryType does on the file's first bytes", () => {
    // Long files too (the control characters past the first bytes then send it to the walk), and
    // bytes that are not UTF-8 next to control characters (a broken sequence never hides one).
    const files = fc
      .tuple(
        heads,
        fc.oneof(fc.constant(0), fc.integer({ min: 0, max: SNIFF_BYTES + 300 })),
        fc.array(fc.oneof(fc.integer({ min: 0x80, max: 0xff }), fc.integer({ min: 0, max: 31 }), fc.constant(0x41)), { maxLength: 40 }),
      )
      .map(([head, padding, tail]) => Buffer.concat([Buffer.from(head), Buffer.alloc(padding, 0x61), Uint8Array.from(tail)]));
    fc.assert(
      fc.property(files, (content) => {
        expect(binaryTypeOfDecoded(content, content.toString("utf8"))).toBe(plainBinaryType(content.subarray(0, SNIFF_BYTES)));
      }),
      { numRuns: 3000 },
    );
    for (const [name, bytes, at] of SIGNATURES) {
      const content = Buffer.alloc(at + bytes.length + 10, 0x41);
      content.set(bytes, at);
      expect(binaryTypeOfDecoded(content, content.toString("utf8"))).toBe(name);
    }
    // Every byte below 32 alone in a short text, at its start, middle and end: each control character is looked for.
    for (let byte = 0; byte < 32; byte++) {
      for (const content of [Buffer.from([byte, 0x41, 0x41, 0x41]), Buffer.from([0x41, byte, 0x41, 0x41]), Buffer.from([0x41, 0x41, 0x41, byte])]) {
        expect(binaryTypeOfDecoded(content, content.toString("utf8"))).toBe(plainBinaryType(content));
      }
    }
    const late = Buffer.concat([Buffer.alloc(SNIFF_BYTES, 0x41), Buffer.from([0, 1, 2])]);
    expect(binaryTypeOfDecoded(late, late.toString("utf8"))).toBeUndefined();
    const broken = Buffer.from([0xe2, 0x01, 0xf0, 0x9f, 0x02, 0xc3, 0x00]);
    expect(binaryTypeOfDecoded(broken, broken.toString("utf8"))).toBe("binary data");
  });
});
