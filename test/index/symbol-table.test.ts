import { cp, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodeIndex } from "../../tools/index/code-index.js";
import { planQuery } from "../../tools/index/query-plan.js";
import { nameScore } from "../../tools/index/rank-files.js";
import { searchIndex } from "../../tools/index/search.js";
import { checksumOf, FileSource, SegmentDamage } from "../../tools/index/segment-bytes.js";
import { SegmentReader } from "../../tools/index/segment.js";
import { INDEX_FORMAT_VERSION } from "../../tools/index/store.js";
import { encodeFileMeta, FileMeta, nameParts } from "../../tools/index/symbol-table.js";
import type { SymbolDefinition } from "../../tools/index/symbols.js";
import { stem } from "../../tools/index/tokenize.js";
import { temporaryFolder } from "../support/workspace.js";

const symbols: SymbolDefinition[] = [
  { name: "RetryPolicy", kind: "class", line: 1, endLine: 9 },
  { name: "backoffDelay", kind: "method", line: 2, endLine: 4, parent: "RetryPolicy" },
  { name: "parse_HTTPRequest_v2", kind: "function", line: 11, endLine: 20 },
  { name: "délai_retry", kind: "variable", line: 21, endLine: 21 },
  { name: "of", kind: "constant", line: 22, endLine: 22 },
  { name: "retryRetry", kind: "macro", line: 23, endLine: 30, parent: "RetryPolicy" },
];

describe("a file's stored symbol table", () => {
  it("gives back the definitions, imports and chunk symbols it was given, and each name's parts as nameParts cuts them", () => {
    const meta = FileMeta.read(encodeFileMeta(symbols, ["./http", "json"], ["RetryPolicy", "", "parse_HTTPRequest_v2"]));
    expect(meta.symbols).toEqual(symbols);
    expect(meta.imports).toEqual(["./http", "json"]);
    expect(meta.chunkSymbols).toEqual(["RetryPolicy", "", "parse_HTTPRequest_v2"]);
    const { names } = meta;
    expect(names.count).toBe(symbols.length);
    symbols.forEach((symbol, at) => {
      const parts = Array.from(names.partNumbers.subarray(names.partStarts[at], names.partStarts[at + 1]), (number) => names.parts[number]);
      expect(parts).toEqual(nameParts(symbol.name));
      expect(names.name(at)).toBe(symbol.name);
      expect(names.parent(at)).toBe(symbol.parent);
      expect(names.line(at)).toBe(symbol.line);
    });
    // Each distinct part is stored once for the file; a name of stopwords only has none.
    expect(new Set(names.parts).size).toBe(names.parts.length);
    expect(names.parts.filter((part) => part === stem("retry"))).toHaveLength(1);
    expect(names.partStarts[5]! - names.partStarts[4]!).toBe(0);
  });

  it("reads an empty blob (a removed file) as a file with nothing", () => {
    const meta = FileMeta.read(new Uint8Array(0));
    expect([meta.symbols, meta.imports, meta.chunkSymbols, meta.names.count]).toEqual([[], [], [], 0]);
  });

  it("reads a table whose bytes do not start at a multiple of 4 (a view into a larger buffer) as it reads an aligned one", () => {
    const bytes = encodeFileMeta(symbols, ["./http"], ["RetryPolicy"]);
    const larger = new Uint8Array(bytes.length + 3);
    larger.set(bytes, 1);
    const meta = FileMeta.read(larger.subarray(1, 1 + bytes.length));
    expect([meta.symbols, meta.imports, meta.names.parts]).toEqual([symbols, ["./http"], FileMeta.read(bytes).names.parts]);
  });

  it("reports a damaged table as segment damage (which rebuilds the index), never as a wrong answer or a crash", () => {
    const bytes = encodeFileMeta(symbols, [], []);
    const damaged = (change: (copy: Uint8Array) => Uint8Array) => () => FileMeta.read(change(bytes.slice()));
    expect(damaged((copy) => copy.subarray(0, 20))).toThrow(SegmentDamage);
    // The symbol count (the header's second word) says far more symbols than the bytes can hold: damage, not an array to allocate.
    expect(damaged((copy) => ((copy[7] = 0x7f), copy))).toThrow(/counts more than it holds/);
    // Any changed byte of the table (here one of its part numbers' columns, and one of its names) fails its checksum.
    for (const at of [40, FileMeta.read(bytes).names.end - 3]) expect(damaged((copy) => ((copy[at] = copy[at]! ^ 1), copy))).toThrow(/checksum/);
    const garbledJson = bytes.slice();
    garbledJson[garbledJson.length - 1] = 0x41;
    const meta = FileMeta.read(garbledJson);
    expect(meta.symbols[0]?.name).toBe("RetryPolicy");
    expect(() => meta.imports).toThrow(SegmentDamage);
  });

  it("names a kind, a parent, a name or a part count that points nowhere, even under a checksum that matches", () => {
    // One symbol: header (8 words), its name's end, line, end line, parent, part starts (2), part number 0, then kind, "ab", "ab".
    const single = encodeFileMeta([{ name: "ab", kind: "function", line: 1, endLine: 2 }], [], []);
    const word = (at: number) => new DataView(single.buffer).getUint32(4 * at, true);
    expect(Array.from({ length: 15 }, (_, at) => word(at))).toEqual([word(0), 1, 1, 1, 0, 2, 2, 0, 2, 1, 2, 0, 0, 1, 0]);
    expect(Array.from(single.subarray(60, 65))).toEqual([0, 97, 98, 97, 98]);
    /** A copy with one word or byte changed and the checksum made to match again. */
    const changed = (change: (copy: Uint8Array, words: DataView) => void) => {
      const copy = single.slice();
      change(copy, new DataView(copy.buffer));
      new DataView(copy.buffer).setUint32(0, checksumOf(copy.subarray(4, 65)), true);
      return copy;
    };
    expect(() => FileMeta.read(changed((copy) => (copy[60] = 40))).symbols).toThrow(/kind/);
    expect(() => FileMeta.read(changed((_, words) => words.setUint32(44, 3, true))).symbols).toThrow(/parent/);
    expect(() => FileMeta.read(changed((_, words) => words.setUint32(32, 9, true))).names.name(0)).toThrow(/beyond its pool/);
    expect(() => FileMeta.read(changed((_, words) => words.setUint32(12, 2, true)))).toThrow(/parts do not match/);
  });
});

describe("tables in an index on disk", () => {
  let folder: { path: string; remove(): Promise<void> };
  beforeEach(async () => {
    folder = await temporaryFolder("clio-symbol-table-");
  });
  afterEach(() => folder.remove());

  describe("a damaged symbol table in a segment on disk", () => {
    it("is found by the first search that reads it, which rebuilds the index and answers", async () => {
      await writeFile(path.join(folder.path, "math.ts"), "export function addNumbers(a: number, b: number) {\n  return a + b;\n}\n");
      await (await CodeIndex.open(folder.path)).update();
      const segments = path.join(folder.path, ".clio/index/segments");
      const [name] = await readdir(segments);
      const file = path.join(segments, name!);
      const reader = new SegmentReader(name!, new FileSource(file));
      const [at, length] = reader.table.meta(0);
      reader.close();
      expect(length).toBeGreaterThan(40);
      const bytes = await readFile(file);
      // A byte of the table's columns: the file keeps its length, and no section checksum covers the meta blobs.
      bytes[at + 36] = bytes[at + 36]! ^ 1;
      await writeFile(file, bytes);
      const reopened = await CodeIndex.open(folder.path);
      expect(reopened.built).toBe(true);
      expect((await reopened.update()).indexed).toBe(0);
      const { hits } = await reopened.reading(() => searchIndex(reopened, "add numbers"));
      expect([hits[0]?.path, hits[0]?.nameMatch]).toEqual(["math.ts", "addNumbers"]);
      expect(await readdir(segments)).not.toContain(name);
    });
  });

  describe("ranking on the stored table", () => {
    it("names the definition whose name reads best as the query, as nameScore on each name would", async () => {
      const words = ["parse", "config", "cache", "retry", "delay", "backoff", "json", "schema", "tree", "walk", "http", "headers"];
      const joined = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 });
      const camel = (parts: string[]) => parts.map((part, at) => (at === 0 ? part : part[0]!.toUpperCase() + part.slice(1))).join("");
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(joined.map(camel), { minLength: 1, maxLength: 12 }),
          fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }),
          async (names, queryWords) => {
            const source = names.map((name, at) => `function ${name}() {\n  return ${at};\n}\n`).join("\n");
            await writeFile(path.join(folder.path, "code.js"), `// ${queryWords.join(" ")}\n${source}`);
            const index = await CodeIndex.open(folder.path);
            await index.update();
            const query = queryWords.join(" ");
            const plan = planQuery(index.queryTerms(), query);
            let best: { name: string; score: number } | undefined;
            for (const name of names) {
              const score = nameScore(plan, name);
              if (score > 0 && (best === undefined || score > best.score)) best = { name, score };
            }
            const [hit] = (await searchIndex(index, query)).hits;
            expect(hit?.path).toBe("code.js");
            // A name is given as the reason when it reads well enough (search.ts: 0.3).
            expect(hit?.nameMatch).toBe(best !== undefined && best.score >= 0.3 ? best.name : undefined);
          },
        ),
        { numRuns: 40 },
      );
    });
  });
});

describe.each(["7", "9"])("an index of format %s", (format) => {
  let folder: { path: string; remove(): Promise<void> };
  const fixture = path.join(import.meta.dirname, `../fixtures/index-format-${format}`);
  beforeEach(async () => {
    folder = await temporaryFolder(`clio-format-${format}-`);
    for (const file of ["math.ts", "config.py"]) await cp(path.join(fixture, file), path.join(folder.path, file));
    await cp(path.join(fixture, "index"), path.join(folder.path, ".clio/index"), { recursive: true });
  });
  afterEach(() => folder.remove());

  it("is not read: the next update rebuilds it, removes its segment and searches find the files", async () => {
    const index = await CodeIndex.open(folder.path);
    expect(index.built).toBe(false);
    const report = await index.update();
    expect([report.indexed, report.files]).toEqual([2, 2]);
    const segments = await readdir(path.join(folder.path, ".clio/index/segments"));
    expect(segments).toHaveLength(1);
    expect((await readFile(path.join(folder.path, ".clio/index/segments", segments[0]!))).subarray(0, 8).toString("latin1")).toBe(`CLIOSG${INDEX_FORMAT_VERSION}`);
    const [hit] = (await searchIndex(index, "backoff delay")).hits;
    expect([hit?.path, hit?.nameMatch]).toEqual(["math.ts", "RetryPolicy.backoffDelay"]);
    expect((await searchIndex(await CodeIndex.open(folder.path), "parse config file")).hits[0]?.path).toBe("config.py");
  });

  it("named by a manifest of the current version (a segment of the old format) is rebuilt as well", async () => {
    const manifestFile = path.join(folder.path, ".clio/index/manifest.json");
    const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as { version: number };
    await writeFile(manifestFile, JSON.stringify({ ...manifest, version: INDEX_FORMAT_VERSION }));
    const index = await CodeIndex.open(folder.path);
    expect(index.built).toBe(false);
    expect((await index.update()).indexed).toBe(2);
    expect((await searchIndex(index, "add numbers")).hits[0]?.path).toBe("math.ts");
  });
});
