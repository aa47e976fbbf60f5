import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodeIndex } from "../../tools/index/code-index.js";
import { fileColumnsJson, headersFromColumns } from "../../tools/index/file-columns.js";
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
];

describe("a segment's file list as columns", () => {
  it("gives back the headers it was made from, rare fields and first chunks included", () => {
    expect(headersFromColumns(JSON.parse(fileColumnsJson(headers)))).toEqual(headers);
  });

  it("names what does not hold together instead of returning headers", () => {
    const columns = JSON.parse(fileColumnsJson(headers));
    expect(headersFromColumns({ ...columns, sizes: [1] })).toMatch(/sizes column/);
    expect(headersFromColumns({ ...columns, languageOf: [0, 9, 0] })).toMatch(/language/);
    expect(headersFromColumns({ ...columns, languageOf: [0, "length", 0] })).toMatch(/language/);
    expect(headersFromColumns({ ...columns, rare: [[7, { entry: "x" }]] })).toMatch(/rare fields/);
    expect(headersFromColumns({ ...columns, rare: [5, "x", [0, null]] })).toMatch(/rare fields/);
    expect(headersFromColumns({ ...columns, meta: [] })).toMatch(/missing columns/);
    expect(headersFromColumns([headers])).toMatch(/column/);
    expect(headersFromColumns(null)).toMatch(/not an object/);
    expect(headersFromColumns({ ...columns, chunks: [2, -1, 0] })).toMatch(/not a count/);
    expect(headersFromColumns({ ...columns, chunks: [2, 0.5, 0] })).toMatch(/not a count/);
    expect(headersFromColumns({ ...columns, paths: ["a", 7, "c"] })).toMatch(/wrong kind/);
    expect(headersFromColumns({ ...columns, mtimes: [1, "2", 3] })).toMatch(/wrong kind/);
  });
});

describe("an index whose file list is damaged or of the previous format", () => {
  let folder: { path: string; remove(): Promise<void> };
  beforeEach(async () => {
    folder = await temporaryFolder("clio-columns-");
    await writeFile(path.join(folder.path, "math.ts"), "export function addNumbers(a: number, b: number) {\n  return a + b;\n}\n");
  });
  afterEach(() => folder.remove());

  it("rebuilds an index of format 6 (headers as objects) cleanly", async () => {
    await (await CodeIndex.open(folder.path)).update();
    const manifestFile = path.join(folder.path, ".clio/index/manifest.json");
    const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as { version: number };
    await writeFile(manifestFile, JSON.stringify({ ...manifest, version: 6 }));
    const reopened = await CodeIndex.open(folder.path);
    expect(reopened.built).toBe(false);
    expect((await reopened.update()).indexed).toBe(1);
    expect((await searchIndex(reopened, "add numbers")).hits[0]?.path).toBe("math.ts");
  });

  it("rebuilds when a segment's columns do not line up (same length, so only the columns' check sees it)", async () => {
    await (await CodeIndex.open(folder.path)).update();
    const segments = path.join(folder.path, ".clio/index/segments");
    const [name] = await readdir(segments);
    const file = path.join(segments, name!);
    const bytes = await readFile(file);
    const text = bytes.toString("latin1");
    const at = text.indexOf('"sizes":[');
    expect(at).toBeGreaterThan(0);
    // `"sizes":[` becomes `"sizez":[`: the file keeps its length and its footer, which does not cover the file list.
    bytes[at + 6] = "z".charCodeAt(0);
    await writeFile(file, bytes);
    const reopened = await CodeIndex.open(folder.path);
    expect(reopened.built).toBe(false);
    expect((await reopened.update()).indexed).toBe(1);
    expect((await searchIndex(reopened, "add numbers")).hits[0]?.path).toBe("math.ts");
  });
});
