import { mkdir, readFile, rm, symlink, truncate, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CodeIndex, type IndexProgress } from "../../tools/index/code-index.js";
import { LiveFiles } from "../../tools/index/live-files.js";
import { searchIndex } from "../../tools/index/search.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: { path: string; remove(): Promise<void> };
const write = async (relative: string, content: string | Buffer) => {
  const file = path.join(folder.path, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
};

beforeEach(async () => {
  folder = await temporaryFolder("clio-index-");
  await write("src/math.ts", "export function addNumbers(a: number, b: number) {\n  return a + b;\n}\n");
  await write("src/strings.py", "def reverse_text(text):\n    return text[::-1]\n");
  await write("lib/util.go", "package lib\n\nfunc Clamp(value, low, high int) int {\n\treturn value\n}\n");
});
afterEach(() => folder.remove());

describe("CodeIndex", () => {
  it("indexes the workspace, persists under .clio/index, and loads it back without re-reading", async () => {
    const first = await CodeIndex.open(folder.path);
    const report = await first.update();
    expect(report).toMatchObject({ files: 3, indexed: 3, unchanged: 0, removed: 0, skipped: [] });
    const manifest = JSON.parse(await readFile(path.join(folder.path, ".clio/index/manifest.json"), "utf8"));
    expect(manifest.files).toBe(3);

    const second = await CodeIndex.open(folder.path);
    expect(second.built).toBe(true);
    expect(second.definitions("addNumbers")[0]).toMatchObject({ path: "src/math.ts", symbol: { kind: "function", line: 1 } });
    const again = await second.update();
    expect(again).toMatchObject({ indexed: 0, unchanged: 3 });
  });

  it("counts a report's symbols when the report is read, as the files are after the update: an update nobody reads the count of passes over no file for it", async () => {
    const index = await CodeIndex.open(folder.path);
    const built = await index.update();
    expect(built.symbols).toBe(3);
    await rm(path.join(folder.path, "src/strings.py"));
    const counting = vi.spyOn(LiveFiles.prototype, "symbolCount");
    try {
      const report = await index.update();
      await index.update();
      expect(counting).not.toHaveBeenCalled();
      expect(report).toMatchObject({ files: 2, removed: 1, symbols: 2 });
      expect(JSON.parse(JSON.stringify(report)).symbols).toBe(2);
    } finally {
      counting.mockRestore();
    }
  });

  it("re-reads only changed files, keeps unchanged content whose mtime moved, and drops deleted files", async () => {
    const index = await CodeIndex.open(folder.path);
    await index.update();
    await write("src/math.ts", "export function multiplyNumbers(a: number, b: number) {\n  return a * b;\n}\n");
    const touched = path.join(folder.path, "lib/util.go");
    await utimes(touched, new Date(), new Date(Date.now() + 5000));
    await rm(path.join(folder.path, "src/strings.py"));
    const report = await index.update();
    expect(report).toMatchObject({ files: 2, indexed: 1, unchanged: 0, removed: 1 });
    expect(index.definitions("addNumbers")).toEqual([]);
    expect(index.definitions("multiplyNumbers")).toHaveLength(1);
    expect(index.definitions("reverse_text")).toEqual([]);
    const { hits } = await searchIndex(index, "reverse text");
    expect(hits.map((hit) => hit.path)).not.toContain("src/strings.py");
    expect((await searchIndex(index, "multiply numbers")).hits[0]?.path).toBe("src/math.ts");
    expect((await searchIndex(index, "clamp value")).hits[0]?.path).toBe("lib/util.go");
    const reloaded = await CodeIndex.open(folder.path);
    expect([...reloaded.files.keys()].sort()).toEqual(["lib/util.go", "src/math.ts"]);
  });

  it("respects nested .gitignore files and never indexes .git, .clio or node_modules", async () => {
    await write(".gitignore", "*.log\nbuild/\n");
    await write("src/.gitignore", "generated.ts\n!keep.log\n");
    await write("src/generated.ts", "export const generated = 1;\n");
    await write("src/keep.log", "kept log\n");
    await write("debug.log", "noise\n");
    await write("build/out.js", "var x = 1;\n");
    await write("node_modules/pkg/index.js", "module.exports = 1;\n");
    await write(".git/config", "[core]\n");
    const index = await CodeIndex.open(folder.path);
    await index.update();
    expect([...index.files.keys()].sort()).toEqual([".gitignore", "lib/util.go", "src/.gitignore", "src/keep.log", "src/math.ts", "src/strings.py"]);
  });

  it("skips binary files, files over the size limit (a sparse 100 MB file), and symbolic links (a loop included), saying why", async () => {
    await write("image.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x01]));
    await write("huge.txt", "");
    await truncate(path.join(folder.path, "huge.txt"), 100 * 1024 * 1024);
    await symlink(folder.path, path.join(folder.path, "loop"));
    await symlink("src/math.ts", path.join(folder.path, "alias.ts"));
    const index = await CodeIndex.open(folder.path);
    const report = await index.update();
    expect(report.files).toBe(3);
    const reasons = Object.fromEntries(report.skipped.map((entry) => [entry.path, entry.reason]));
    expect(reasons).toEqual({ "image.png": "binary", "huge.txt": "too_large", loop: "symlink", "alias.ts": "symlink" });
    expect(report.skipped.find((entry) => entry.path === "huge.txt")?.detail).toContain("104857600 bytes");
  });

  it("indexes a file with invalid UTF-8 with replacement characters and reports it", async () => {
    await write("latin1.c", Buffer.concat([Buffer.from("/* caf"), Buffer.from([0xe9]), Buffer.from(" */\nint brew_coffee(void)\n{\n  return 1;\n}\n")]));
    const index = await CodeIndex.open(folder.path);
    const report = await index.update();
    expect(report.invalidUtf8).toEqual(["latin1.c"]);
    expect(index.definitions("brew_coffee")[0]?.path).toBe("latin1.c");
  });

  it("indexes a subfolder without dropping files elsewhere", async () => {
    const index = await CodeIndex.open(folder.path);
    await index.update();
    await rm(path.join(folder.path, "lib/util.go"));
    const report = await index.update(path.join(folder.path, "src"));
    expect(report.removed).toBe(0);
    expect(index.files.has("lib/util.go")).toBe(true);
  });

  it("ranks a symbol's definition first, the source before a build output's copy", async () => {
    await write("dist/bundle.js", `class WidgetFactory {\n  make() { return new WidgetFactory(); }\n}\n${"var WidgetFactory$1 = WidgetFactory;\n".repeat(5)}`);
    await write("src/widget.ts", "export class WidgetFactory {\n  make(): WidgetFactory {\n    return new WidgetFactory();\n  }\n}\n");
    await write("src/use.ts", 'import { WidgetFactory } from "./widget.js";\nconst factory = new WidgetFactory();\nfactory.make();\n');
    const index = await CodeIndex.open(folder.path);
    await index.update();
    const { hits } = await searchIndex(index, "WidgetFactory");
    expect(hits.map((hit) => hit.path).slice(0, 2)).toEqual(["src/widget.ts", "dist/bundle.js"]);
  });

  it("reports progress through the callback", async () => {
    const seen: IndexProgress[] = [];
    const index = await CodeIndex.open(folder.path, { onProgress: (progress) => seen.push(progress) });
    await index.update();
    expect(seen.map((progress) => progress.phase)).toEqual(expect.arrayContaining(["scanning", "reading", "writing"]));
    expect(seen.find((progress) => progress.phase === "reading" && progress.done === 3)).toBeDefined();
  });

  it("stays consistent when two processes update the same index in turn (each with its own term ids)", async () => {
    const first = await CodeIndex.open(folder.path);
    await first.update();
    const second = await CodeIndex.open(folder.path);
    await write("src/alpha.ts", "export function alphaOnlyHelper() {\n  return zebraQuokka;\n}\n");
    await first.update();
    await write("lib/beta.py", "def beta_only_helper():\n    return walrus_narwhal\n");
    await second.update(path.join(folder.path, "lib"));
    const third = await CodeIndex.open(folder.path);
    await third.update();
    expect((await searchIndex(third, "zebra quokka")).hits[0]?.path).toBe("src/alpha.ts");
    expect((await searchIndex(third, "walrus narwhal")).hits[0]?.path).toBe("lib/beta.py");
    expect((await searchIndex(third, "reverse text")).hits[0]).toMatchObject({ path: "src/strings.py", symbol: "reverse_text" });
  });

  it("refuses to index a folder or file that the whole-workspace index leaves out, saying why", async () => {
    await write(".gitignore", "build/\n*.log\n");
    await write("build/out.ts", "export const compiled = 1;\n");
    await write("debug.log", "trace\n");
    await write("node_modules/pkg/index.js", "module.exports = 1;\n");
    const index = await CodeIndex.open(folder.path);
    for (const [scope, why] of [
      ["build", /\.gitignore/],
      ["build/out.ts", /\.gitignore/],
      ["debug.log", /\.gitignore/],
      ["node_modules/pkg", /node_modules/],
      [".clio", /\.clio/],
    ] as const) {
      await expect(index.update(path.join(folder.path, scope))).rejects.toMatchObject({ code: "invalid_argument", message: expect.stringMatching(why) });
    }
    expect(index.files.size).toBe(0);
    await write("src/.gitignore", "!keep.log\n");
    await write("src/keep.log", "kept\n");
    await index.update(path.join(folder.path, "src/keep.log"));
    expect([...index.files.keys()]).toEqual(["src/keep.log"]);
  });

  it("says what to remove when something that is not a folder stands where the index is kept", async () => {
    await write(".clio/index", "not a folder");
    const index = await CodeIndex.open(folder.path);
    await expect(index.update()).rejects.toMatchObject({ code: "corrupt_file", message: expect.stringContaining(path.join(folder.path, ".clio/index")) });
  });

  it("rebuilds from scratch when the stored index is damaged", async () => {
    const index = await CodeIndex.open(folder.path);
    await index.update();
    await writeFile(path.join(folder.path, ".clio/index/manifest.json"), '{"version": 1, "upd');
    const reopened = await CodeIndex.open(folder.path);
    expect(reopened.built).toBe(false);
    expect((await reopened.update()).indexed).toBe(3);
  });

  it("rebuilds when a segment file is cut short, instead of loading its files with their words missing", async () => {
    const index = await CodeIndex.open(folder.path);
    await index.update();
    const manifest = JSON.parse(await readFile(path.join(folder.path, ".clio/index/manifest.json"), "utf8")) as { segments: string[] };
    const segment = path.join(folder.path, ".clio/index/segments", `${manifest.segments[0]}.seg`);
    const bytes = await readFile(segment);
    await writeFile(segment, bytes.subarray(0, bytes.length - 8));
    const reopened = await CodeIndex.open(folder.path);
    expect(reopened.built).toBe(false);
    await reopened.update();
    expect((await searchIndex(reopened, "number")).hits[0]?.path).toBe("src/math.ts");
  });

  it("rebuilds an index a newer clio wrote (another format version) instead of reading it", async () => {
    const index = await CodeIndex.open(folder.path);
    await index.update();
    const manifestFile = path.join(folder.path, ".clio/index/manifest.json");
    const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as { version: number };
    await writeFile(manifestFile, JSON.stringify({ ...manifest, version: manifest.version + 1 }));
    const reopened = await CodeIndex.open(folder.path);
    expect(reopened.built).toBe(false);
    expect((await reopened.update()).indexed).toBe(3);
    expect((await searchIndex(reopened, "number")).hits[0]?.path).toBe("src/math.ts");
  });

  it("rebuilds at the first search that reads a garbled part of a segment, and answers it", async () => {
    const index = await CodeIndex.open(folder.path);
    await index.update();
    const manifest = JSON.parse(await readFile(path.join(folder.path, ".clio/index/manifest.json"), "utf8")) as { segments: string[] };
    const segment = path.join(folder.path, ".clio/index/segments", `${manifest.segments[0]}.seg`);
    const bytes = await readFile(segment);
    const footerLength = bytes.readUInt32LE(bytes.length - 16);
    const footer = JSON.parse(bytes.toString("utf8", bytes.length - 16 - footerLength, bytes.length - 16)) as { terms: { start: number; end: number } };
    // The term dictionary's blocks: found only when a search looks a word up.
    bytes.fill(0x7f, footer.terms.start, footer.terms.end);
    await writeFile(segment, bytes);
    const reopened = await CodeIndex.open(folder.path);
    expect(reopened.built).toBe(true);
    const { hits } = await reopened.reading(() => searchIndex(reopened, "number"));
    expect(hits[0]?.path).toBe("src/math.ts");
    const rebuilt = JSON.parse(await readFile(path.join(folder.path, ".clio/index/manifest.json"), "utf8")) as { segments: string[] };
    expect(rebuilt.segments).not.toContain(manifest.segments[0]);
  });
});
