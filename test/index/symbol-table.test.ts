import { cp, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodeIndex } from "../../tools/index/code-index.js";
import { planQuery } from "../../tools/index/query-plan.js";
import { nameScore } from "../../tools/index/rank-files.js";
import { searchIndex } from "../../tools/index/search.js";
import { SegmentDamage } from "../../tools/index/segment-bytes.js";
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

  it("reports a damaged table as segment damage (which rebuilds the index), never as a wrong answer", () => {
    const bytes = encodeFileMeta(symbols, [], []);
    const damaged = (change: (copy: Uint8Array) => Uint8Array) => () => FileMeta.read(change(bytes.slice()));
    expect(damaged((copy) => copy.subarray(0, 20))).toThrow(SegmentDamage);
    // The first count says far more symbols than the bytes can hold.
    expect(damaged((copy) => ((copy[0] = 0x7f), copy))).toThrow(/counts more than it holds/);
    // A symbol's kind, parent or part number out of range.
    const single = encodeFileMeta([{ name: "ab", kind: "function", line: 1, endLine: 2 }], [], []);
    // count 1, part total 1, 1 part "ab", 0 parents, then name "ab", kind, line, end line, parent, 1 part, part 0.
    expect(Array.from(single.subarray(0, 15))).toEqual([1, 1, 1, 2, 97, 98, 0, 2, 97, 98, 0, 1, 2, 0, 1]);
    const broken = (at: number, value: number) => () => {
      const copy = single.slice();
      copy[at] = value;
      return FileMeta.read(copy);
    };
    expect(broken(10, 40)).toThrow(/kind/);
    // A part count of 2^28 (a five-byte varint) is damage, not an array to allocate.
    const huge = new Uint8Array([1, 1, 0x80, 0x80, 0x80, 0x80, 0x01, ...single.subarray(3)]);
    expect(() => FileMeta.read(huge)).toThrow(/counts more than it holds/);
    expect(broken(13, 3)).toThrow(/parent/);
    expect(broken(15, 4)).toThrow(/part its file does not list/);
    // Parts are kept in code-unit order (ranking finds the parts a word begins by binary search): a table out of order is damaged.
    const two = encodeFileMeta([{ name: "zz_ab", kind: "function", line: 1, endLine: 1 }], [], []);
    expect(Array.from(two.subarray(0, 9))).toEqual([1, 2, 2, 2, 97, 98, 2, 122, 122]);
    two.set([122, 122, 2, 97, 98], 4);
    expect(() => FileMeta.read(two)).toThrow(/out of order/);
    const garbledJson = single.slice();
    garbledJson[garbledJson.length - 1] = 0x41;
    const meta = FileMeta.read(garbledJson);
    expect(meta.symbols[0]?.name).toBe("ab");
    expect(() => meta.imports).toThrow(SegmentDamage);
  });
});

describe("ranking on the stored table", () => {
  let folder: { path: string; remove(): Promise<void> };
  beforeEach(async () => {
    folder = await temporaryFolder("clio-symbol-table-");
  });
  afterEach(() => folder.remove());

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

describe("an index of format 7", () => {
  let folder: { path: string; remove(): Promise<void> };
  const fixture = path.join(import.meta.dirname, "../fixtures/index-format-7");
  beforeEach(async () => {
    folder = await temporaryFolder("clio-format-7-");
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
    expect((await readFile(path.join(folder.path, ".clio/index/segments", segments[0]!))).subarray(0, 8).toString("latin1")).toBe(`CLIOSEG${INDEX_FORMAT_VERSION}`);
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
