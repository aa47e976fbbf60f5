import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openRepository, readIndex } from "../../../tools/git/repository.js";
import { makeSandbox, type Sandbox } from "./support.js";

let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = await makeSandbox();
  await sandbox.commit("base", { "a.txt": "a\n", "dir/b.txt": "b\n" });
});

afterEach(async () => {
  await sandbox.cleanup();
});

const paths = async () => (await readIndex(await openRepository(sandbox.repo))).entries.map((entry) => entry.path);

describe("the index is parsed once while it is the same file", () => {
  it("a second read of an unchanged index is the same parse; it is frozen", async () => {
    const repository = await openRepository(sandbox.repo);
    const first = await readIndex(repository);
    expect(await readIndex(repository)).toBe(first);
    expect(() => (first.entries as unknown[]).push({})).toThrow(TypeError);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it("an index git writes anew is read anew, at once", async () => {
    expect(await paths()).toEqual(["a.txt", "dir/b.txt"]);
    await sandbox.write("c.txt", "c\n");
    await sandbox.git(["add", "c.txt"]);
    expect(await paths()).toEqual(["a.txt", "c.txt", "dir/b.txt"]);
    await sandbox.git(["rm", "-q", "--cached", "a.txt"]);
    expect(await paths()).toEqual(["c.txt", "dir/b.txt"]);
  });

  it("an index rewritten in place with the same size is read anew (its times changed)", async () => {
    const file = path.join(sandbox.repo, ".git", "index");
    const repository = await openRepository(sandbox.repo);
    const before = await readIndex(repository);
    await sandbox.git(["update-index", "--chmod=+x", "a.txt"]);
    const changed = await fs.readFile(file);
    await sandbox.git(["update-index", "--chmod=-x", "a.txt"]);
    const handle = await fs.open(file, "r+");
    await handle.write(changed, 0, changed.length, 0);
    await handle.close();
    const after = await readIndex(repository);
    expect(after).not.toBe(before);
    expect(after.entries.find((entry) => entry.path === "a.txt")?.mode).toBe(0o100755);
  });

  it("a missing index is an empty one, and one that appears later is read", async () => {
    await fs.rm(path.join(sandbox.repo, ".git", "index"));
    expect(await paths()).toEqual([]);
    await sandbox.git(["read-tree", "HEAD"]);
    expect(await paths()).toEqual(["a.txt", "dir/b.txt"]);
  });
});

describe("index entries read as git lists them", () => {
  it("paths of 4,095 bytes or more (stored without their length), paths outside ASCII, in versions 2, 3 and 4", async () => {
    await fs.writeFile(path.join(sandbox.repo, "blob.txt"), "content\n");
    const oid = (await sandbox.git(["hash-object", "-w", "blob.txt"])).trim();
    const long = `${Array.from({ length: 17 }, (_, level) => `${String(level).padStart(2, "0")}${"d".repeat(240)}`).join("/")}/file.txt`;
    expect(Buffer.byteLength(long)).toBeGreaterThan(0xfff);
    for (const name of [long, "ünïcødé/名前.txt", "z.txt"]) await sandbox.git(["update-index", "--add", "--cacheinfo", `100644,${oid},${name}`]);
    for (const version of ["2", "3", "4"]) {
      await sandbox.git(["update-index", "--index-version", version]);
      const listed = (await sandbox.git(["ls-files", "--stage", "-z"]))
        .split("\0")
        .filter((line) => line !== "")
        .map((line) => {
          const [info, name] = line.split("\t");
          const [mode, entryOid] = info!.split(" ");
          return { path: name!, oid: entryOid!, mode: Number.parseInt(mode!, 8) };
        });
      const entries = (await readIndex(await openRepository(sandbox.repo))).entries.map(({ path: name, oid: entryOid, mode }) => ({ path: name, oid: entryOid, mode }));
      expect(entries, `version ${version}`).toEqual(listed);
      expect(entries.map((entry) => entry.path)).toContain(long);
    }
  });
});
