import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildFileRecord, FileReader } from "../../tools/index/file-record.js";
import { TermDictionary, type IndexedFile } from "../../tools/index/store.js";
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
