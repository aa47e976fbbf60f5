import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildFileRecord, FileReader, looksBinary } from "../../tools/index/file-record.js";
import { CHUNK_HEADER, TermDictionary, type IndexedFile } from "../../tools/index/store.js";
import { TermCounter } from "../../tools/index/term-counter.js";
import { termText } from "../../tools/index/term-list.js";

/** For each chunk of the record: its lines and the set of its terms. */
function chunkTerms(record: IndexedFile, dictionary: TermDictionary) {
  return record.chunks.map((chunk) => ({
    lines: [chunk.startLine, chunk.endLine],
    terms: new Set(Array.from({ length: chunk.distinct }, (_, offset) => termText(dictionary, record.numbers[chunk.termsAt + offset]!))),
  }));
}

/** Twelve-line blocks, each naming its own identifier on its middle line, after `filler` lines. */
function blocks(filler: string): Buffer[] {
  return [0, 1, 2, 3].map((block) => Buffer.from(`${Array.from({ length: 12 }, (_, line) => (line === 6 ? `marker${"ABCD"[block]}Name = 1;` : filler)).join("\n")}\n`, "utf8"));
}

describe("a file's record", () => {
  const cases: Array<[string, Buffer]> = [
    ["ASCII text", Buffer.concat(blocks("// plain filler text"))],
    ["multi-byte UTF-8 text", Buffer.concat(blocks("// héllo wörld ✓ ünïcode 😀 filler"))],
    ["invalid UTF-8 beside valid multi-byte characters", Buffer.concat(blocks("// filler é").flatMap((block) => [Buffer.from([0xff, 0xc3, 0x28, 0x0a]), block]))],
  ];

  for (const [name, bytes] of cases) {
    it(`gives each chunk the byte range of its lines for ${name}`, () => {
      const record = buildFileRecord({ path: "src/sample.js", size: bytes.length, mtimeMs: 0 }, bytes, "hash", new TermCounter(new TermDictionary()), {
        maxLines: 12,
        minLines: 1,
      });
      // Where each line starts in the bytes, found without decoding them.
      const lineStarts = [0];
      bytes.forEach((byte, index) => {
        if (byte === 10) lineStarts.push(index + 1);
      });
      for (const chunk of record.chunks) {
        const header = chunk.termsAt - CHUNK_HEADER;
        expect([record.numbers[header + 3], record.numbers[header + 4]]).toEqual([
          lineStarts[chunk.startLine - 1],
          Math.min(bytes.length, lineStarts[chunk.endLine] ?? bytes.length),
        ]);
      }
    });

    it(`counts each chunk's own lines, by byte offset, for ${name}`, () => {
      const dictionary = new TermDictionary();
      const record = buildFileRecord({ path: "src/sample.js", size: bytes.length, mtimeMs: 0 }, bytes, "hash", new TermCounter(dictionary), { maxLines: 12, minLines: 1 });
      const text = bytes.toString("utf8");
      const lines = text.split("\n");
      expect(record.chunks.length).toBeGreaterThanOrEqual(4);
      for (const letter of "ABCD") {
        const line = lines.findIndex((content) => content.includes(`marker${letter}Name`)) + 1;
        for (const {
          lines: [start, end],
          terms,
        } of chunkTerms(record, dictionary)) {
          expect(terms.has(`marker${letter.toLowerCase()}name`)).toBe(line >= start! && line <= end!);
        }
      }
    });
  }
});

describe("reading files into one reused buffer", () => {
  it("gives each file's whole bytes, for empty, small and larger-than-the-buffer files read one after another", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "clio-reader-"));
    try {
      const contents = [
        Buffer.alloc(0),
        Buffer.from("small\n"),
        Buffer.alloc(300_000, "x"),
        Buffer.from("after the large one\n"),
        Buffer.alloc(65_536, "y"),
        Buffer.alloc(5_000_000, "z"),
        Buffer.from("after one past the reused size\n"),
      ];
      const files = await Promise.all(
        contents.map(async (content, position) => {
          const file = path.join(folder, `file${position}`);
          await writeFile(file, content);
          return file;
        }),
      );
      const reader = new FileReader();
      for (const [position, file] of files.entries()) expect(Buffer.compare(reader.read(file), contents[position]!)).toBe(0);
      expect(() => reader.read(path.join(folder, "missing"))).toThrow(/ENOENT/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe("the binary check", () => {
  /** `length` bytes of text with a NUL at `nul` (none when undefined), seen through a view that starts `offset` bytes into its memory. */
  function bytes(length: number, nul: number | undefined, offset = 0): Uint8Array {
    const memory = new Uint8Array(offset + length).fill(0x61);
    if (offset > 0) memory[offset - 1] = 0;
    if (nul !== undefined) memory[offset + nul] = 0;
    return memory.subarray(offset);
  }

  it("finds a NUL byte in the first 8 KiB only (git's rule), wherever the bytes sit in their memory", () => {
    for (const offset of [0, 3]) {
      expect(looksBinary(bytes(0, undefined, offset))).toBe(false);
      expect(looksBinary(bytes(10_000, undefined, offset))).toBe(false);
      expect(looksBinary(bytes(10_000, 0, offset))).toBe(true);
      expect(looksBinary(bytes(10_000, 8191, offset))).toBe(true);
      expect(looksBinary(bytes(10_000, 8192, offset))).toBe(false);
      expect(looksBinary(bytes(100, 99, offset))).toBe(true);
    }
  });
});
