import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { walkFiles } from "../../tools/index/walk.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: { path: string; remove(): Promise<void> };

beforeEach(async () => {
  folder = await temporaryFolder("clio-walk-");
  for (const file of ["c.ts", "a.ts", "b/x.ts", "a/z.ts", "a/b/y.ts", "a/b/ignored.log", "node_modules/m.js"]) {
    await mkdir(path.dirname(path.join(folder.path, file)), { recursive: true });
    await writeFile(path.join(folder.path, file), "x\n");
  }
  await writeFile(path.join(folder.path, ".gitignore"), "*.log\n");
});
afterEach(() => folder.remove());

describe("the index walk", () => {
  it("hands on each folder's files as found, folder by folder in a fixed order, and returns them all sorted", async () => {
    const handed: string[][] = [];
    const { files } = await walkFiles(folder.path, folder.path, { onFiles: (found) => handed.push(found.map((file) => file.path)) });
    expect(handed).toEqual([[".gitignore", "a.ts", "c.ts"], ["a/z.ts"], ["a/b/y.ts"], ["b/x.ts"]]);
    expect(files.map((file) => file.path)).toEqual([".gitignore", "a.ts", "a/b/y.ts", "a/z.ts", "b/x.ts", "c.ts"]);
  });

  it("hands on a huge folder's files a few hundred at a time, in name order", async () => {
    await mkdir(path.join(folder.path, "many"));
    const names = Array.from({ length: 600 }, (_, index) => `f${String(index).padStart(3, "0")}.ts`);
    for (const name of names) await writeFile(path.join(folder.path, "many", name), "x\n");
    const handed: string[][] = [];
    await walkFiles(folder.path, path.join(folder.path, "many"), { onFiles: (found) => handed.push(found.map((file) => file.path)) });
    expect(handed.length).toBeGreaterThan(1);
    expect(handed.flat()).toEqual(names.map((name) => `many/${name}`));
  });
});
