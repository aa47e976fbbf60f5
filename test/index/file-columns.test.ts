import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodeIndex } from "../../tools/index/code-index.js";
import { fileColumnsBytes, headersFromColumns } from "../../tools/index/file-columns.js";
import { checksumOf } from "../../tools/index/segment-bytes.js";
import type { SegmentFileHeader } from "../../tools/index/segment.js";
import { searchIndex } from "../../tools/index/search.js";
import { temporaryFolder } from "../support/workspace.js";

const headers: SegmentFileHeader[] = [
  {
    path: "src/main.go",
    size: 120,
    mtimeMs: 1795734744809.1917,
    hash: "a".repeat(40),
    language: "go",
    lines: 9,
    symbolCount: 2,
    chunks: 2,
    firstChunk: 0,
    meta: [8, 40],
    entry: "func main",
  },
  {
    path: "docs/ünïcode name.md",
    size: 5,
    mtimeMs: 1,
    hash: "b".repeat(40),
    language: "markdown",
    lines: 1,
    symbolCount: 0,
    chunks: 1,
    firstChunk: 2,
    meta: [48, 0],
    invalidUtf8: true,
  },
  { path: "gone.go", size: 0, mtimeMs: 2, hash: "", language: "go", lines: 0, symbolCount: 0, chunks: 0, firstChunk: 3, meta: [48, 0], state: "removed" },
  { path: "touched.go", size: 9, mtimeMs: 3, hash: "", language: "go", lines: 0, symbolCount: 0, chunks: 0, firstChunk: 3, meta: [48, 0], state: "touched" },
  { path: "odd.go", size: 9, mtimeMs: 3, hash: "not-a-sha1", language: "go", lines: 1, symbolCount: 0, chunks: 1, firstChunk: 3, meta: [48, 0] },
];

describe("a segment's file list as binary columns", () => {
  it("gives back the headers it was made from, rare fields, hashes that are not sha1s and first chunks included", () => {
    expect(headersFromColumns(fileColumnsBytes(headers))).toEqual(headers);
    expect(headersFromColumns(fileColumnsBytes([]))).toEqual([]);
  });

  it("reads columns that do not start at a multiple of 8 (a view into a larger buffer)", () => {
    const bytes = fileColumnsBytes(headers);
    const larger = new Uint8Array(bytes.length + 3);
    larger.set(bytes, 3);
    expect(headersFromColumns(larger.subarray(3))).toEqual(headers);
  });

  it("names what does not hold together instead of returning headers", () => {
    const bytes = fileColumnsBytes(headers);
    const changed = (at: number, value: number) => {
      const copy = new Uint8Array(bytes);
      copy[at] = value;
      return copy;
    };
    expect(headersFromColumns(bytes.subarray(0, 10))).toMatch(/cut short/);
    expect(headersFromColumns(bytes.subarray(0, bytes.length - 1))).toMatch(/length does not match/);
    expect(headersFromColumns(changed(0, 4))).toMatch(/length does not match/);
    // A byte of the sizes column changes: only the checksum sees it.
    expect(headersFromColumns(changed(17, bytes[17]! ^ 1))).toMatch(/checksum/);
    expect(headersFromColumns(changed(12, bytes[12]! ^ 1))).toMatch(/checksum/);
    // A flags byte of a state it does not know, with the checksum made to match.
    const flagsAt = 16 + headers.length * (24 + 20 + 20);
    for (const flag of [3, 7, 8, 255]) {
      const unknown = changed(flagsAt + 1, flag);
      new DataView(unknown.buffer).setUint32(12, checksumOf(unknown.subarray(16)), true);
      expect(headersFromColumns(unknown)).toMatch(/flag/);
    }
    // Flags the table knows: a touch with an empty hash (6), a removal (1).
    for (const flag of [6, 1]) {
      const known = changed(flagsAt + 1, flag);
      new DataView(known.buffer).setUint32(12, checksumOf(known.subarray(16)), true);
      expect(headersFromColumns(known)).not.toBeTypeOf("string");
    }
  });

  it("names a language number or a rare field that points nowhere, and a tail that is not JSON", () => {
    const withTail = (tail: string, languageOf = [0, 1, 0, 0, 0]) => {
      const bytes = fileColumnsBytes(headers);
      const view = new DataView(bytes.buffer);
      const tailLength = view.getUint32(8, true);
      const tailBytes = Buffer.from(tail, "utf8");
      const result = new Uint8Array(bytes.length - tailLength + tailBytes.length);
      result.set(bytes.subarray(0, bytes.length - tailLength));
      result.set(tailBytes, bytes.length - tailLength);
      const resultView = new DataView(result.buffer);
      resultView.setUint32(8, tailBytes.length, true);
      const languageColumn = 16 + headers.length * (24 + 16);
      languageOf.forEach((language, index) => resultView.setUint32(languageColumn + 4 * index, language, true));
      resultView.setUint32(12, checksumOf(result.subarray(16)), true);
      return result;
    };
    expect(headersFromColumns(withTail('{"languages":["go","markdown"],"rare":[]}'))).not.toBeTypeOf("string");
    expect(headersFromColumns(withTail('{"languages":["go"],"rare":[]}'))).toMatch(/language/);
    expect(headersFromColumns(withTail('{"languages":["go",5],"rare":[]}'))).toMatch(/language/);
    expect(headersFromColumns(withTail('{"languages":["go","markdown"],"rare":[]}', [0, 9, 0, 0, 0]))).toMatch(/language/);
    expect(headersFromColumns(withTail('{"languages":["go","markdown"],"rare":[[7,{"entry":"x"}]]}'))).toMatch(/rare fields/);
    expect(headersFromColumns(withTail('{"languages":["go","markdown"],"rare":[5,"x",[0,null]]}'))).toMatch(/rare fields/);
    expect(headersFromColumns(withTail('{"languages":["go","markdown"]}'))).toMatch(/missing columns/);
    expect(headersFromColumns(withTail("null"))).toMatch(/missing columns/);
    expect(headersFromColumns(withTail('{"languages":'))).toMatch(/not valid JSON/);
  });

  it("refuses to write a path holding a NUL character (it would split the paths wrongly)", () => {
    expect(() => fileColumnsBytes([{ ...headers[0]!, path: "a\0b" }])).toThrow(/NUL/);
  });
});

describe("an index whose file list is damaged or of the previous format", () => {
  let folder: { path: string; remove(): Promise<void> };
  beforeEach(async () => {
    folder = await temporaryFolder("clio-columns-");
    await writeFile(path.join(folder.path, "math.ts"), "export function addNumbers(a: number, b: number) {\n  return a + b;\n}\n");
  });
  afterEach(() => folder.remove());

  /** Indexes the folder, then flips the last byte of a section of its one segment (read on demand, so not checked at open). */
  async function indexAndDamage(section: "blocks" | "chunks"): Promise<{ segments: string; name: string }> {
    await (await CodeIndex.open(folder.path)).update();
    const segments = path.join(folder.path, ".clio/index/segments");
    const [name] = await readdir(segments);
    const file = path.join(segments, name!);
    const bytes = await readFile(file);
    const footerLength = bytes.readUInt32LE(bytes.length - 16);
    const footer = JSON.parse(bytes.toString("utf8", bytes.length - 16 - footerLength, bytes.length - 16)) as Record<typeof section, [number, number]>;
    const [at, length] = footer[section];
    expect(length).toBeGreaterThan(8);
    bytes[at + length - 1] = bytes[at + length - 1]! ^ 1;
    await writeFile(file, bytes);
    return { segments, name: name! };
  }

  it("rebuilds an index of format 7 (columns as JSON) cleanly", async () => {
    await (await CodeIndex.open(folder.path)).update();
    const manifestFile = path.join(folder.path, ".clio/index/manifest.json");
    const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as { version: number };
    await writeFile(manifestFile, JSON.stringify({ ...manifest, version: 7 }));
    const reopened = await CodeIndex.open(folder.path);
    expect(reopened.built).toBe(false);
    expect((await reopened.update()).indexed).toBe(1);
    expect((await searchIndex(reopened, "add numbers")).hits[0]?.path).toBe("math.ts");
  });

  it("rebuilds when a byte of a segment's file list changes (same length, so only the list's checksum sees it)", async () => {
    await (await CodeIndex.open(folder.path)).update();
    const segments = path.join(folder.path, ".clio/index/segments");
    const [name] = await readdir(segments);
    const file = path.join(segments, name!);
    const bytes = await readFile(file);
    const text = bytes.toString("latin1");
    const at = text.indexOf('"languages":["typescript"');
    expect(at).toBeGreaterThan(0);
    // `typescript` becomes `typescripu`: still JSON, the file keeps its length and its footer, which does not cover the file list.
    bytes[at + 23] = "u".charCodeAt(0);
    await writeFile(file, bytes);
    const reopened = await CodeIndex.open(folder.path);
    expect(reopened.built).toBe(false);
    expect((await reopened.update()).indexed).toBe(1);
    expect((await searchIndex(reopened, "add numbers")).hits[0]?.path).toBe("math.ts");
  });

  it.each([
    ["block index (each dictionary block's first term)", "blocks"],
    ["chunk table", "chunks"],
  ] as const)("rebuilds at the first search when a byte of a segment's %s changes; an update never reads it", async (_, section) => {
    const { segments, name } = await indexAndDamage(section);
    const reopened = await CodeIndex.open(folder.path);
    expect(reopened.built).toBe(true);
    expect((await reopened.update()).indexed).toBe(0);
    const { hits } = await reopened.reading(() => searchIndex(reopened, "add numbers"));
    expect(hits[0]?.path).toBe("math.ts");
    expect(await readdir(segments)).not.toContain(name);
  });

  it.each(["blocks", "chunks"] as const)("rebuilds, instead of failing, when the update that merges the segments meets a damaged %s", async (section) => {
    const { segments, name } = await indexAndDamage(section);
    const reopened = await CodeIndex.open(folder.path);
    // Each edit adds a segment; past eight, the update merges them all (the first holds no live file), which reads every section of each.
    for (let edit = 1; edit <= 8; edit++) {
      await writeFile(path.join(folder.path, "math.ts"), `export function addNumbers(a: number, b: number) {\n  return a + b;\n}\n${"// edited\n".repeat(edit)}`);
      await reopened.update();
    }
    expect(reopened.segmentReaders.length).toBe(1);
    expect(await readdir(segments)).not.toContain(name);
    expect((await searchIndex(reopened, "add numbers")).hits[0]?.path).toBe("math.ts");
  });
});
