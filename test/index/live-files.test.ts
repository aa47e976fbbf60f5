import { mkdir, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodeIndex } from "../../tools/index/code-index.js";
import { searchIndex } from "../../tools/index/search.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: { path: string; remove(): Promise<void> };
const absolute = (relative: string) => path.join(folder.path, relative);
const write = async (relative: string, content: string) => {
  await mkdir(path.dirname(absolute(relative)), { recursive: true });
  await writeFile(absolute(relative), content);
};
const hourAgo = new Date(Date.now() - 3600_000);
const halfHourAgo = new Date(Date.now() - 1800_000);

/** Every file and folder of the tree (but .clio) an hour back, so no mtime is too recent to trust. */
async function ageTree(directory = folder.path): Promise<void> {
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    if (entry.name === ".clio") continue;
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) await ageTree(full);
    else await utimes(full, hourAgo, hourAgo);
  }
  await utimes(directory, hourAgo, hourAgo);
}

/** What `each` visits: path → [size, mtime]. */
function visited(index: CodeIndex): Map<string, [number, number]> {
  const seen = new Map<string, [number, number]>();
  index.files.each((filePath, size, mtimeMs) => {
    seen.set(filePath, [size, mtimeMs]);
    return true;
  });
  return seen;
}

/** Indexes the tree, then edits src/math.ts and rewrites src/strings.py with the same bytes (a touch), both half an hour back, and updates in a fresh process. */
async function editAndTouch() {
  await (await CodeIndex.open(folder.path)).update();
  await ageTree();
  await writeFile(absolute("src/math.ts"), "export function multiplyNumbers(a: number, b: number) {\n  return a * b;\n}\n");
  await utimes(absolute("src/math.ts"), hourAgo, halfHourAgo);
  await writeFile(absolute("src/strings.py"), await readFile(absolute("src/strings.py")));
  await utimes(absolute("src/strings.py"), hourAgo, halfHourAgo);
  return (await CodeIndex.open(folder.path)).update();
}

beforeEach(async () => {
  folder = await temporaryFolder("clio-live-files-");
  await write("src/math.ts", "export function addNumbers(a: number, b: number) {\n  return a + b;\n}\n");
  await write("src/strings.py", "def reverse_text(text):\n    return text[::-1]\n");
  await write("lib/util.go", "package lib\n\nfunc Clamp(value, low, high int) int {\n\treturn value\n}\n");
  await ageTree();
});
afterEach(() => folder.remove());

describe("the live files of an index over several segments, in a fresh process", () => {
  it("gives each path's newest file, with the size and mtime of a later touch, and leaves removed files out", async () => {
    // An edit (a new segment holds the file), a rewrite with the same bytes and another mtime (a touch), a removal.
    const updated = await editAndTouch();
    expect(updated).toMatchObject({ indexed: 1, removed: 0 });

    const index = await CodeIndex.open(folder.path);
    expect(index.segmentReaders.length).toBeGreaterThan(1);
    const expected = new Map<string, [number, number]>();
    for (const relative of ["lib/util.go", "src/math.ts", "src/strings.py"]) {
      const seen = await stat(absolute(relative));
      expected.set(relative, [seen.size, seen.mtimeMs]);
    }
    expect(new Map([...visited(index)].sort())).toEqual(expected);
    expect(index.files.size).toBe(3);
    for (const [relative, [size, mtimeMs]] of expected) {
      const entry = index.files.get(relative)!;
      expect({ path: entry.path, size: entry.size, mtimeMs: entry.mtimeMs }).toEqual({ path: relative, size, mtimeMs });
    }
    // The edited file is the newest segment's; its chunks are the live ones.
    const math = index.files.get("src/math.ts")!;
    expect(math.segment).toBe(index.segmentReaders.at(-1));
    expect(index.chunkIdsOf("src/math.ts").map((id) => index.chunkPlace(id).path)).toEqual(Array(math.chunkCount).fill("src/math.ts"));
    expect(index.definitions("multiplyNumbers").map((found) => found.path)).toEqual(["src/math.ts"]);
    expect(index.definitions("addNumbers")).toEqual([]);
    expect((await searchIndex(index, "multiply numbers")).hits[0]?.path).toBe("src/math.ts");

    // Nothing changed since: the check compares against the touched mtime and reads nothing.
    expect(await index.update()).toMatchObject({ indexed: 0, unchanged: 3 });
    // Edited in place after the touch (same size, another mtime): seen.
    await writeFile(absolute("src/strings.py"), "def reverse_words(text):\n    return text[::-2]\n");
    await utimes(absolute("src/strings.py"), hourAgo, new Date(Date.now() - 1200_000));
    const fresh = await CodeIndex.open(folder.path);
    expect(await fresh.update()).toMatchObject({ indexed: 1 });
    expect(fresh.definitions("reverse_words").map((found) => found.path)).toEqual(["src/strings.py"]);

    // Removed: gone from the view of the next fresh process.
    await rm(absolute("lib/util.go"));
    expect(await fresh.update()).toMatchObject({ removed: 1 });
    const after = await CodeIndex.open(folder.path);
    expect(after.files.has("lib/util.go")).toBe(false);
    expect([...after.files.keys()].sort()).toEqual(["src/math.ts", "src/strings.py"]);
    expect([...visited(after).keys()].sort()).toEqual(["src/math.ts", "src/strings.py"]);
  });

  it("visits with eachBeyond exactly the live files each visits that are larger than a size or at or after a mtime, a touched file by its touch", async () => {
    // An edit (its older record stays in the first segment, dead) and a touch.
    await editAndTouch();
    const index = await CodeIndex.open(folder.path);
    const all = visited(index);
    const sizes = [-1, ...[...all.values()].map(([size]) => size), Number.POSITIVE_INFINITY];
    const mtimes = [0, ...[...all.values()].map(([, mtimeMs]) => mtimeMs), Number.POSITIVE_INFINITY];
    let nonEmpty = 0;
    for (const size of sizes) {
      for (const mtimeMs of mtimes) {
        const beyond = new Map<string, [number, number]>();
        index.files.eachBeyond(size, mtimeMs, (filePath, fileSize, fileMtime) => {
          expect(beyond.has(filePath)).toBe(false);
          beyond.set(filePath, [fileSize, fileMtime]);
          return true;
        });
        const expected = [...all].filter(([, [fileSize, fileMtime]]) => fileSize > size || fileMtime >= mtimeMs);
        expect(new Map([...beyond].sort())).toEqual(new Map(expected.sort()));
        if (beyond.size > 0 && beyond.size < all.size) nonEmpty++;
      }
    }
    expect(nonEmpty).toBeGreaterThan(3);
    // The touched file counts by its touch (half an hour back), the edited one by its newest record.
    const recent = new Set<string>();
    const touchedAt = Math.min(all.get("src/math.ts")![1], all.get("src/strings.py")![1]);
    expect(touchedAt).toBeGreaterThan(all.get("lib/util.go")![1]);
    index.files.eachBeyond(Number.POSITIVE_INFINITY, touchedAt, (filePath) => recent.add(filePath).size > 0);
    expect([...recent].sort()).toEqual(["src/math.ts", "src/strings.py"]);
  });

  it("stops the visit when asked to", async () => {
    const index = await CodeIndex.open(folder.path);
    await index.update();
    let visits = 0;
    index.files.each(() => ++visits < 2);
    expect(visits).toBe(2);
  });
});
