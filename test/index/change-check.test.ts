import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChangeCheck, type ListingTimes } from "../../tools/index/change-check.js";
import { CodeIndex } from "../../tools/index/code-index.js";
import { StatThread } from "../../tools/index/stat-thread.js";
import type { SkippedFile } from "../../tools/index/walk.js";
import { searchIndex } from "../../tools/index/search.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: { path: string; remove(): Promise<void> };
const absolute = (relative: string) => path.join(folder.path, relative);
const write = async (relative: string, content: string) => {
  await mkdir(path.dirname(absolute(relative)), { recursive: true });
  await writeFile(absolute(relative), content);
};
const manifestFile = () => absolute(".clio/index/manifest.json");
const hour = new Date(Date.now() - 3600_000);

/** Sets every file and folder of the tree (but .clio) an hour back, so no mtime is too recent to trust. */
async function ageTree(directory = folder.path): Promise<void> {
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    if (entry.name === ".clio") continue;
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) await ageTree(full);
    else await utimes(full, hour, hour);
  }
  await utimes(directory, hour, hour);
}

const pathsFound = async (index: CodeIndex, query: string) => (await searchIndex(index, query)).hits.map((hit) => hit.path);

beforeEach(async () => {
  folder = await temporaryFolder("clio-change-check-");
  await write("src/math.ts", "export function addNumbers(a: number, b: number) {\n  return a + b;\n}\n");
  await write("src/strings.py", "def reverse_text(text):\n    return text[::-1]\n");
  await write("lib/util.go", "package lib\n\nfunc Clamp(value, low, high int) int {\n\treturn value\n}\n");
  await write(".gitignore", "*.log\n");
  await ageTree();
});
afterEach(() => folder.remove());

describe("the change check before a search", () => {
  it("writes nothing when nothing changed, and sees edits, additions, removals and renames in fresh processes", async () => {
    await (await CodeIndex.open(folder.path)).update();
    // Making .clio moved the root's mtime while the build ran: too recent to trust, so the next check walks again.
    await ageTree();
    expect(await (await CodeIndex.open(folder.path)).update()).toMatchObject({ indexed: 0, unchanged: 4 });
    const written = (await stat(manifestFile())).mtimeMs;
    const idle = await (await CodeIndex.open(folder.path)).update();
    expect(idle).toMatchObject({ files: 4, indexed: 0, unchanged: 4, removed: 0 });
    expect((await stat(manifestFile())).mtimeMs).toBe(written);

    // An edit in place moves no folder's mtime: the stat of the indexed files finds it.
    await writeFile(absolute("src/math.ts"), "export function subtractNumbers(a: number, b: number) {\n  return a - b;\n}\n");
    await utimes(absolute("src/math.ts"), new Date(), new Date(Date.now() - 1800_000));
    const edited = await CodeIndex.open(folder.path);
    expect(await edited.update()).toMatchObject({ indexed: 1, removed: 0 });
    expect(edited.definitions("subtractNumbers")).toHaveLength(1);
    expect(edited.definitions("addNumbers")).toEqual([]);

    await write("src/extra/queue.ts", "export class PriorityQueue {}\n");
    await rm(absolute("src/strings.py"));
    await rename(absolute("lib/util.go"), absolute("lib/clamp.go"));
    const moved = await CodeIndex.open(folder.path);
    expect(await moved.update()).toMatchObject({ files: 4, indexed: 2, removed: 2 });
    expect([...moved.files.keys()].sort()).toEqual([".gitignore", "lib/clamp.go", "src/extra/queue.ts", "src/math.ts"]);
    expect(moved.definitions("PriorityQueue")).toHaveLength(1);
    expect(await pathsFound(moved, "reverse text")).toEqual([]);
  });

  it("follows a .gitignore edited in place", async () => {
    await write("notes/todo.md", "remember the priority queue\n");
    await ageTree();
    await (await CodeIndex.open(folder.path)).update();
    await writeFile(absolute(".gitignore"), "*.log\nnotes/\n");
    await utimes(absolute(".gitignore"), hour, new Date(Date.now() - 1800_000));
    const index = await CodeIndex.open(folder.path);
    expect(await index.update()).toMatchObject({ removed: 1 });
    expect(index.files.has("notes/todo.md")).toBe(false);
  });

  it("reads again a file whose mtime is too recent to trust, so a change of the same size within one mtime tick is seen", async () => {
    const file = absolute("src/math.ts");
    // A file system whose mtimes have a grain of one second: both writes fall in the same second.
    const second = Math.floor(Date.now() / 1000);
    await writeFile(file, "export const alpha = 1;\n");
    await utimes(file, second, second);
    await (await CodeIndex.open(folder.path)).update();
    await writeFile(file, "export const omega = 1;\n");
    await utimes(file, second, second);
    expect((await stat(file)).mtimeMs).toBe(second * 1000);
    const index = await CodeIndex.open(folder.path);
    expect(await index.update()).toMatchObject({ indexed: 1 });
    expect(await pathsFound(index, "omega")).toEqual(["src/math.ts"]);
    expect(await pathsFound(index, "alpha")).toEqual([]);
  });

  it("re-reads a known binary or too-large file that changed, and a file grown past the size limit leaves the index", async () => {
    await writeFile(absolute("data.bin"), Buffer.from([0, 1, 2, 3]));
    await ageTree();
    await (await CodeIndex.open(folder.path, { maxFileBytes: 200 })).update();
    await writeFile(absolute("data.bin"), "export const decoded = 1;\n");
    await utimes(absolute("data.bin"), hour, new Date(Date.now() - 1800_000));
    await writeFile(absolute("lib/util.go"), `package lib\n// ${"x".repeat(300)}\n`);
    await utimes(absolute("lib/util.go"), hour, new Date(Date.now() - 1800_000));
    const index = await CodeIndex.open(folder.path, { maxFileBytes: 200 });
    const report = await index.update();
    expect(report.skipped.map((entry) => [entry.path, entry.reason])).toEqual([["lib/util.go", "too_large"]]);
    expect(index.files.has("data.bin")).toBe(true);
    expect(index.files.has("lib/util.go")).toBe(false);
  });

  it("walks the whole tree again when the manifest's listing is damaged", async () => {
    await (await CodeIndex.open(folder.path)).update();
    const manifest = JSON.parse(await readFile(manifestFile(), "utf8"));
    await writeFile(manifestFile(), JSON.stringify({ ...manifest, listing: { checkedAt: "yesterday", mtimes: null } }));
    await write("src/extra/queue.ts", "export class PriorityQueue {}\n");
    const index = await CodeIndex.open(folder.path);
    expect(await index.update()).toMatchObject({ indexed: 1, files: 5 });
    expect(index.definitions("PriorityQueue")).toHaveLength(1);
  });
});

describe("a change check begun on another thread while this one answers from what is stored", () => {
  const threaded = { threadMinPaths: 0, coreToSpare: () => true, checkAfterOpen: true, spawnFind: false as const };
  /** The stats left to find(1), which reports what changed since the last check (recent-changes.ts). */
  const finding = { threadMinPaths: 0, checkAfterOpen: true };
  const thread = StatThread.start()!;
  afterAll(() => thread.stop());
  /** src/math.ts edited in place: the same size, and a mtime half an hour back (not too recent to trust, so only a stat sees it). */
  const editMathInPlace = async () => {
    await writeFile(absolute("src/math.ts"), "export function addNumbers(a: number, b: number) {\n  return b + a;\n}\n");
    await utimes(absolute("src/math.ts"), hour, new Date(Date.now() - 1800_000));
  };
  const listingOf = async () => JSON.parse(await readFile(manifestFile(), "utf8")) as { listing: ListingTimes; skipped: SkippedFile[] };
  const built = async () => {
    await (await CodeIndex.open(folder.path)).update();
    await ageTree();
    // Once more with the tree aged: the listing it records is old enough to trust.
    await (await CodeIndex.open(folder.path)).update();
  };

  it("finds what the same check finds on this thread alone: nothing, an edit in place of the same size, a removal", async () => {
    await built();
    const index = await CodeIndex.open(folder.path);
    const { listing, skipped } = await listingOf();
    const both = () => [thread, undefined].map((shared) => ChangeCheck.begin(folder.path, listing, index.files, skipped, () => shared, 0)!.finish(1 << 20));
    expect(both()).toEqual([[], []]);
    await editMathInPlace();
    const [onThread, here] = both();
    expect(onThread).toEqual(here);
    expect(onThread!.map((file) => file.path)).toEqual(["src/math.ts"]);
    await rm(absolute("lib/util.go"));
    expect(both()).toEqual([undefined, undefined]);
  });

  it("leaves the stats to the other thread when it is done first, and this thread stats everything when it has none", async () => {
    await built();
    await editMathInPlace();
    const index = await CodeIndex.open(folder.path);
    const { listing, skipped } = await listingOf();
    const onThread = ChangeCheck.begin(folder.path, listing, index.files, skipped, () => thread, 0)!;
    for (let waited = 0; onThread.statted < onThread.pathCount && waited < 10_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(onThread.finish(1 << 20)!.map((file) => file.path)).toEqual(["src/math.ts"]);
    expect(onThread.stattedHere).toBe(0);
    const here = ChangeCheck.begin(folder.path, listing, index.files, skipped, () => thread)!;
    expect(here.finish(1 << 20)!.map((file) => file.path)).toEqual(["src/math.ts"]);
    // Fewer paths than the default threshold: no thread.
    expect(here.stattedHere).toBe(here.pathCount);
  });

  it("one thread serves check after check, also after a check was cancelled while it stat'd", async () => {
    await built();
    const index = await CodeIndex.open(folder.path);
    const { listing, skipped } = await listingOf();
    const begin = () => ChangeCheck.begin(folder.path, listing, index.files, skipped, () => thread, 0)!;
    begin().cancel();
    await editMathInPlace();
    for (let round = 0; round < 3; round++) {
      const check = begin();
      for (let waited = 0; check.statted < check.pathCount && waited < 10_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(check.finish(1 << 20)!.map((file) => file.path)).toEqual(["src/math.ts"]);
      expect(check.stattedHere).toBe(0);
    }
  });

  it.each([
    ["the stat thread", threaded],
    ["find", finding],
  ])("a search answered while the check ran (with %s) is answered again when the check finds an edit, a new file or a removal", async (_, options) => {
    await built();
    const searchFresh = async (query: string) => {
      const index = await CodeIndex.open(folder.path, options);
      const stamp = index.stamp;
      index.beginCheck();
      const first = await pathsFound(index, query);
      await index.update();
      return index.stamp === stamp ? { first, changed: false } : { first, changed: true, again: await pathsFound(index, query) };
    };
    expect(await searchFresh("add numbers")).toEqual({ first: ["src/math.ts"], changed: false });

    await writeFile(absolute("src/math.ts"), "export function pelicanFlamingo(a: number, b: number) {\n  return a * b;\n}\n");
    await utimes(absolute("src/math.ts"), hour, new Date(Date.now() - 1800_000));
    expect(await searchFresh("pelican flamingo")).toEqual({ first: [], changed: true, again: ["src/math.ts"] });

    await write("src/extra/queue.ts", "export class PriorityQueue {}\n");
    expect(await searchFresh("priority queue")).toEqual({ first: [], changed: true, again: ["src/extra/queue.ts"] });

    await rm(absolute("src/strings.py"));
    expect(await searchFresh("reverse text")).toEqual({ first: ["src/strings.py"], changed: true, again: [] });
  });

  it("a thread that has ended leaves every stat to this thread, with the same result", async () => {
    await built();
    await editMathInPlace();
    const index = await CodeIndex.open(folder.path);
    const { listing, skipped } = await listingOf();
    const ended = StatThread.start()!;
    await ended.stop();
    const check = ChangeCheck.begin(folder.path, listing, index.files, skipped, () => ended, 0)!;
    expect(check.finish(1 << 20)!.map((file) => file.path)).toEqual(["src/math.ts"]);
    expect(check.stattedHere).toBe(check.pathCount);
  });

  it("readWhileChecking answers from the files as they are: again after a change, also when the first read failed", async () => {
    await built();
    const index = await CodeIndex.open(folder.path, threaded);
    let reads = 0;
    const readPaths = (query: string) => async () => {
      reads++;
      const found = await pathsFound(index, query);
      if (found.length === 0) throw new Error(`nothing for ${query}`);
      return found;
    };
    const update = () => index.update();
    expect(await index.readWhileChecking(readPaths("add numbers"), update)).toEqual(["src/math.ts"]);
    expect(reads).toBe(1);
    await write("src/extra/queue.ts", "export class PriorityQueue {}\n");
    expect(await index.readWhileChecking(readPaths("priority queue"), update)).toEqual(["src/extra/queue.ts"]);
    expect(reads).toBe(3);
    await expect(index.readWhileChecking(readPaths("pelican flamingo"), update)).rejects.toThrow("nothing for pelican flamingo");
    expect(reads).toBe(4);
  });

  it("drops a begun check when the index changed before it was finished, and when it is cancelled", async () => {
    await built();
    const index = await CodeIndex.open(folder.path, threaded);
    index.beginCheck();
    await write("src/extra/queue.ts", "export class PriorityQueue {}\n");
    // An update of a folder changes the index: the check begun before it is not trusted afterwards.
    await index.update(absolute("src"));
    await writeFile(absolute("lib/util.go"), "package lib\n\nfunc Clamp(value, low, HIGH int) int {\n\treturn value\n}\n");
    await utimes(absolute("lib/util.go"), hour, new Date(Date.now() - 1800_000));
    expect(await index.update()).toMatchObject({ indexed: 1 });
    index.beginCheck();
    index.cancelCheck();
    expect(await index.update()).toMatchObject({ indexed: 0 });
  });
});
