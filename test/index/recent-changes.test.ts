// The change check's find(1) (tools/index/recent-changes.ts), run for real: these tests need GNU
// findutils 4.9 or later (`-files0-from`), as Debian 12 has; the fallbacks are tested with a find
// that is missing or does not know the option.
import { spawn } from "node:child_process";
import { appendFile, chmod, mkdir, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChangeCheck, type ListingTimes, RACY_MS } from "../../tools/index/change-check.js";
import { EARLY_FIND_MS } from "../../tools/index/check-helpers.js";
import { CodeIndex, RESTAMP_REPORTED } from "../../tools/index/code-index.js";
import { beginCheckEarly } from "../../tools/index/early-check.js";
import { RecentChanges, type SpawnProcess } from "../../tools/index/recent-changes.js";
import type { SkippedFile } from "../../tools/index/walk.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: { path: string; remove(): Promise<void> };
const at = (relative: string) => path.join(folder.path, relative);
/** Longer than the grain of the kernel's clock for ctimes (one tick). */
const tick = () => new Promise((resolve) => setTimeout(resolve, 30));
/** The real spawn, counting its calls (of `command` instead of find, when given). */
const countedSpawn = (command?: string) => {
  const counted = {
    runs: 0,
    spawn: ((asked, args, options) => {
      counted.runs++;
      return spawn(command ?? asked, args, options);
    }) as SpawnProcess,
  };
  return counted;
};
const reportOf = (listed: string[], sinceMs: number, run: SpawnProcess = spawn) => RecentChanges.start(folder.path, listed, sinceMs, run)!;

beforeEach(async () => {
  folder = await temporaryFolder("clio-recent-");
  await mkdir(at("src"));
  await writeFile(at("src/one.ts"), "export const one = 1;\n");
  await writeFile(at("src/two.ts"), "export const two = 2;\n");
  await writeFile(at("src/name with spaces\nand a line.ts"), "export const three = 3;\n");
});
afterEach(() => folder.remove());

describe("find(1) for the paths changed since a moment", () => {
  const files = ["src/one.ts", "src/two.ts", "src/name with spaces\nand a line.ts"];

  it("reports the listed folders and their entries whose ctime is after the moment: an edit, a touch, a change of mode; and all of them for a moment long past", async () => {
    await tick();
    const moment = Date.now();
    await tick();
    expect(await reportOf(["src"], moment).reported).toEqual(new Set());
    await appendFile(at("src/one.ts"), "// more\n");
    // A mtime set back, as `cp -p` or `touch -d` would: the ctime still moves.
    await utimes(at("src/two.ts"), new Date(0), new Date(0));
    await chmod(at(files[2]!), 0o600);
    expect(await reportOf(["src"], moment).reported).toEqual(new Set(files));
    expect(await reportOf(["src"], moment - 3600_000).reported).toEqual(new Set(["src", ...files]));
    // The root's entries by their names; the root itself as ".".
    expect(await reportOf(["."], moment - 3600_000).reported).toEqual(new Set([".", "src"]));
  });

  it("reports a folder an entry was added to or removed from", async () => {
    await tick();
    const moment = Date.now();
    await tick();
    await rm(at("src/one.ts"));
    await writeFile(at("src/four.ts"), "export const four = 4;\n");
    expect(await reportOf([".", "src"], moment).reported).toEqual(new Set(["src", "src/four.ts"]));
  });

  it("leaves no list file behind", async () => {
    const recent = reportOf(["src"], 0);
    expect((await readdir(os.tmpdir())).filter((name) => name.startsWith(`clio-check-${process.pid}-`))).toEqual([]);
    expect(await recent.reported).toEqual(new Set(["src", ...files]));
  });

  it("answers nothing for a listed folder that is gone, without taking find for unusable", async () => {
    const recent = reportOf(["src", "lib"], Date.now());
    expect(await recent.reported).toBeUndefined();
    expect(recent.unusable).toBe(false);
  });

  it("answers nothing, and says so, when find is missing or does not know -files0-from", async () => {
    const missing = reportOf(["src"], 0, countedSpawn("clio-no-such-find").spawn);
    expect(await missing.reported).toBeUndefined();
    expect(missing.unusable).toBe(true);
    const older = reportOf(["src"], 0, (_, __, options) => spawn("sh", ["-c", "echo \"find: unknown predicate '-files0-from'\" >&2; exit 1"], options));
    expect(await older.reported).toBeUndefined();
    expect(older.unusable).toBe(true);
  });
});

describe("a change check that stats only what find reports", () => {
  const listingOf = async () => JSON.parse(await readFile(at(".clio/index/manifest.json"), "utf8")) as { listing: ListingTimes; skipped: SkippedFile[] };
  /** A check of the stored index, with find asked from the last check's moment on (no margin) or, without `find`, stats of every path. */
  const check = async (find: boolean) => {
    const index = await CodeIndex.open(folder.path);
    const { listing, skipped } = await listingOf();
    const recentFor = find ? (listed: readonly string[], checkedAt: number) => RecentChanges.start(folder.path, listed, checkedAt, spawn) : undefined;
    const begun = ChangeCheck.begin(folder.path, listing, index.files, skipped, () => undefined, 0, recentFor)!;
    await begun.ready();
    return { changed: begun.finish(1 << 20)?.map((file) => file.path), stattedHere: begun.stattedHere, paths: begun.pathCount };
  };
  const bothAgree = async () => {
    const [found, statted] = [await check(true), await check(false)];
    expect(found.changed).toEqual(statted.changed);
    return found;
  };
  const indexed = async () => {
    const hour = new Date(Date.now() - 3600_000);
    for (const file of ["src/one.ts", "src/two.ts", "src/name with spaces\nand a line.ts", "src", "."]) await utimes(at(file), hour, hour);
    await (await CodeIndex.open(folder.path)).update();
    // Once more with the tree's mtimes an hour back: a listing old enough to trust, and ctimes before its check.
    for (const file of [".clio", "src", "."]) await utimes(at(file), hour, hour);
    await tick();
    await (await CodeIndex.open(folder.path)).update();
    await tick();
  };

  it("stats nothing here when nothing indexed changed, one file when one was edited in place, and agrees with stats of every path", async () => {
    await indexed();
    expect(await bothAgree()).toMatchObject({ changed: [], stattedHere: 0 });
    // An entry of the root that is not indexed (.clio) is reported by find and passed over.
    await writeFile(at(".clio/scratch"), "not indexed\n");
    expect(await bothAgree()).toMatchObject({ changed: [], stattedHere: 0 });
    await writeFile(at("src/one.ts"), "export const uno = 1;\n");
    await utimes(at("src/one.ts"), new Date(Date.now() - 1800_000), new Date(Date.now() - 1800_000));
    const edited = await bothAgree();
    expect(edited).toMatchObject({ changed: ["src/one.ts"], stattedHere: 1 });
    expect(edited.paths).toBeGreaterThan(3);
  });

  it("reads again, as stats of every path do, a file find passes over whose mtime is in the future (too recent to trust)", async () => {
    await indexed();
    const ahead = new Date(Date.now() + 3600_000);
    await utimes(at("src/two.ts"), ahead, ahead);
    await tick();
    await (await CodeIndex.open(folder.path)).update();
    await tick();
    // The mtime set, and the ctime with it, before the last check began: find does not report the file.
    expect(await bothAgree()).toMatchObject({ changed: ["src/two.ts"], stattedHere: 0 });
  });

  it("the live files' bounds are at least the largest size and latest mtime of each file, and a file's record is what each gives", async () => {
    await indexed();
    await writeFile(at("src/two.ts"), "export const two = 2; // grown\n");
    await (await CodeIndex.open(folder.path)).update();
    const index = await CodeIndex.open(folder.path);
    const bounds = index.files.bounds();
    index.files.each((relative, size, mtimeMs) => {
      expect(bounds.size).toBeGreaterThanOrEqual(size);
      expect(bounds.mtimeMs).toBeGreaterThanOrEqual(mtimeMs);
      expect(index.files.recorded(relative)).toEqual({ size, mtimeMs });
      return true;
    });
    expect(bounds.size).toBe(Math.max(...[...index.files.values()].map((entry) => entry.size)));
  });

  it("walks again (as stats of every path do) after a file was added or removed", async () => {
    await indexed();
    await writeFile(at("src/three.ts"), "export const three = 3;\n");
    expect(await bothAgree()).toMatchObject({ changed: undefined });
    await indexed();
    await rm(at("src/two.ts"));
    expect(await bothAgree()).toMatchObject({ changed: undefined });
  });

  it("records a check whose find reported many paths none of which changed (a chmod of every file), so the next process's find reports none of them", async () => {
    const many = Array.from({ length: RESTAMP_REPORTED + 20 }, (_, index) => `src/many/file${index}.ts`);
    await mkdir(at("src/many"));
    for (const [index, file] of many.entries()) await writeFile(at(file), `export const value${index} = ${index};\n`);
    const hour = new Date(Date.now() - 3600_000);
    for (const file of many) await utimes(at(file), hour, hour);
    await utimes(at("src/many"), hour, hour);
    await indexed();
    const before = (await listingOf()).listing.checkedAt;
    for (const file of many) await chmod(at(file), 0o600);
    // Past the margin a check gives ctimes: the next check's find sees these as older than it.
    await new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
    expect(await check(true)).toMatchObject({ changed: [], stattedHere: many.length });
    const report = await (await CodeIndex.open(folder.path, { threadMinPaths: 0 })).update();
    expect(report).toMatchObject({ indexed: 0, removed: 0 });
    expect((await listingOf()).listing.checkedAt).toBeGreaterThan(before);
    expect(await bothAgree()).toMatchObject({ changed: [], stattedHere: 0 });
    // A few reported paths are not worth a write: the manifest stays as it is.
    await chmod(at(many[0]!), 0o644);
    const recorded = await readFile(at(".clio/index/manifest.json"), "utf8");
    await (await CodeIndex.open(folder.path, { threadMinPaths: 0 })).update();
    expect(await readFile(at(".clio/index/manifest.json"), "utf8")).toBe(recorded);
  });

  it("stats every path here when find cannot answer, and finds the same", async () => {
    await indexed();
    await writeFile(at("src/one.ts"), "export const uno = 1;\n");
    const index = await CodeIndex.open(folder.path);
    const { listing, skipped } = await listingOf();
    const failing = (listed: readonly string[], checkedAt: number) => RecentChanges.start(folder.path, listed, checkedAt, countedSpawn("clio-no-such-find").spawn);
    const begun = ChangeCheck.begin(folder.path, listing, index.files, skipped, () => undefined, 0, failing)!;
    await begun.ready();
    expect(begun.finish(1 << 20)?.map((file) => file.path)).toEqual(["src/one.ts"]);
    expect(begun.stattedHere).toBe(begun.pathCount);
  });

  it("an index in a fresh process sees an edit, a new file and a removal through find, and goes on without a find that fails", async () => {
    await indexed();
    const fresh = (spawnFind?: SpawnProcess) => CodeIndex.open(folder.path, { threadMinPaths: 0, ...(spawnFind ? { spawnFind } : {}) });
    await writeFile(at("src/one.ts"), "export const uno = 1;\n");
    expect(await (await fresh()).update()).toMatchObject({ indexed: 1 });
    await writeFile(at("src/four.ts"), "export const four = 4;\n");
    await rm(at("src/two.ts"));
    expect(await (await fresh()).update()).toMatchObject({ indexed: 1, removed: 1 });
    const broken = countedSpawn("clio-no-such-find");
    const index = await fresh(broken.spawn);
    await writeFile(at("src/one.ts"), "export const eins = 1;\n");
    expect(await index.update()).toMatchObject({ indexed: 1 });
    await writeFile(at("src/one.ts"), "export const un = 1;\n");
    expect(await index.update()).toMatchObject({ indexed: 1 });
    expect(broken.runs).toBe(1);
  });

  it("a find started as the manifest is read serves the first check, and a later check starts its own", async () => {
    await indexed();
    const counted = countedSpawn();
    await writeFile(at("src/two.ts"), "export const zwei = 2;\n");
    const index = await CodeIndex.open(folder.path, { threadMinPaths: 0, checkAfterOpen: true, spawnFind: counted.spawn });
    const opened = Date.now();
    expect(counted.runs).toBe(1);
    await tick();
    expect(await index.update()).toMatchObject({ indexed: 1 });
    expect(counted.runs).toBe(1);
    // The listing written is dated from find's start, not the check's: a change made in between is after it.
    const { listing } = JSON.parse(await readFile(at(".clio/index/manifest.json"), "utf8")) as { listing: ListingTimes };
    expect(listing.checkedAt).toBeLessThanOrEqual(opened);
    await writeFile(at("src/two.ts"), "export const deux = 2;\n");
    expect(await index.update()).toMatchObject({ indexed: 1 });
    expect(counted.runs).toBe(2);
  });

  it("a find started as the manifest was read is not used by a check begun much later: an edit made in between is seen", async () => {
    await indexed();
    const counted = countedSpawn();
    const index = await CodeIndex.open(folder.path, { threadMinPaths: 0, checkAfterOpen: true, spawnFind: counted.spawn });
    await new Promise((resolve) => setTimeout(resolve, EARLY_FIND_MS + 100));
    await writeFile(at("src/one.ts"), "export const uno = 1;\n");
    await utimes(at("src/one.ts"), new Date(Date.now() - 1800_000), new Date(Date.now() - 1800_000));
    expect(await index.update()).toMatchObject({ indexed: 1 });
    expect(counted.runs).toBe(2);
  });

  it("a find begun before the index code loads (early-check.ts) is the one the opened index's first check uses", async () => {
    await indexed();
    const counted = countedSpawn();
    await writeFile(at("src/two.ts"), "export const zwei = 2;\n");
    const helpers = beginCheckEarly(folder.path, { threadMinPaths: 0, spawnFind: counted.spawn });
    expect(counted.runs).toBe(1);
    const index = await CodeIndex.open(folder.path, { threadMinPaths: 0, checkAfterOpen: true, spawnFind: counted.spawn, helpers });
    expect(counted.runs).toBe(1);
    expect(await index.update()).toMatchObject({ indexed: 1 });
    expect(counted.runs).toBe(1);
  });

  it("a find begun early for a listing that another check has since replaced is not used: the edit after it is seen", async () => {
    await indexed();
    const counted = countedSpawn();
    const helpers = beginCheckEarly(folder.path, { threadMinPaths: 0, spawnFind: counted.spawn });
    // Another process finds an edit and writes a newer listing; then a file changes with its mtime set back.
    await tick();
    await writeFile(at("src/two.ts"), "export const zwei = 2;\n");
    expect(await (await CodeIndex.open(folder.path)).update()).toMatchObject({ indexed: 1 });
    await tick();
    await writeFile(at("src/one.ts"), "export const uno = 1;\n");
    await utimes(at("src/one.ts"), new Date(Date.now() - 1800_000), new Date(Date.now() - 1800_000));
    const index = await CodeIndex.open(folder.path, { threadMinPaths: 0, checkAfterOpen: true, spawnFind: counted.spawn, helpers });
    expect(counted.runs).toBe(2);
    expect(await index.update()).toMatchObject({ indexed: 1 });
    expect(counted.runs).toBe(2);
  });

  it("begins nothing without a stored index, or with one of another format", async () => {
    const counted = countedSpawn();
    beginCheckEarly(folder.path, { threadMinPaths: 0, spawnFind: counted.spawn });
    await indexed();
    const manifest = at(".clio/index/manifest.json");
    const stored = JSON.parse(await readFile(manifest, "utf8")) as { version: number };
    await writeFile(manifest, JSON.stringify({ ...stored, version: stored.version + 1 }));
    beginCheckEarly(folder.path, { threadMinPaths: 0, spawnFind: counted.spawn });
    await writeFile(manifest, "{ not json");
    beginCheckEarly(folder.path, { threadMinPaths: 0, spawnFind: counted.spawn });
    expect(counted.runs).toBe(0);
  });
});
