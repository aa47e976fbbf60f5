import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { objectListingFileSystem, sharedObjectCache } from "../../../tools/git/object-store.js";

let gitdir: string;

beforeEach(async () => {
  gitdir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "clio-object-store-")), ".git");
  await fs.mkdir(path.join(gitdir, "objects", "pack"), { recursive: true });
  await fs.mkdir(path.join(gitdir, "objects", "ab"));
  await fs.writeFile(path.join(gitdir, "objects", "ab", "c".repeat(38)), "loose");
});

afterEach(async () => {
  await fs.rm(path.dirname(gitdir), { recursive: true, force: true });
});

const loose = (folder: string, name: string) => path.join(gitdir, "objects", folder, name);

describe("the object-listing file system", () => {
  it("answers a missing loose object from the folder's listing and reads present ones", async () => {
    const { promises } = objectListingFileSystem(gitdir);
    expect(String(await promises.readFile(loose("ab", "c".repeat(38))))).toBe("loose");
    await expect(promises.readFile(loose("ab", "d".repeat(38)))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(promises.readFile(loose("ef", "d".repeat(38)))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("sees objects and packs that the action itself writes", async () => {
    const { promises } = objectListingFileSystem(gitdir);
    await expect(promises.readFile(loose("ef", "1".repeat(38)))).rejects.toMatchObject({ code: "ENOENT" });
    expect(await promises.readdir(path.join(gitdir, "objects", "pack"))).toEqual([]);
    await promises.mkdir(path.join(gitdir, "objects", "ef"));
    await promises.writeFile(loose("ef", "1".repeat(38)), "new");
    await promises.writeFile(path.join(gitdir, "objects", "pack", "pack-1.idx"), "");
    expect(String(await promises.readFile(loose("ef", "1".repeat(38))))).toBe("new");
    expect(await promises.readdir(path.join(gitdir, "objects", "pack"))).toEqual(["pack-1.idx"]);
  });

  it("lists again in the next action: objects written by another program are seen", async () => {
    await expect(objectListingFileSystem(gitdir).promises.readFile(loose("ab", "2".repeat(38)))).rejects.toMatchObject({ code: "ENOENT" });
    await fs.writeFile(loose("ab", "2".repeat(38)), "by git");
    expect(String(await objectListingFileSystem(gitdir).promises.readFile(loose("ab", "2".repeat(38))))).toBe("by git");
  });

  it("shares isomorphic-git's cache between actions until the set of packs changes", async () => {
    const first = await sharedObjectCache(gitdir);
    expect(await sharedObjectCache(gitdir)).toBe(first);
    await fs.writeFile(path.join(gitdir, "objects", "pack", "pack-2.pack"), "");
    expect(await sharedObjectCache(gitdir)).not.toBe(first);
  });
});
