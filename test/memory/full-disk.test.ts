/**
 * A failed write (a full disk, injected through the file-system seam) releases the MEMORY lock
 * at once and leaves no temporary file; temporaries a dead process left are removed at the
 * next start. The next writer is not kept waiting (its lock wait here is 500 ms, so a lock
 * left behind would fail it with "locked").
 */
import { spawnSync } from "node:child_process";
import nodeFileSystem, { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WriteFileSystem } from "../../tools/lock-file.js";
import { MemoryFile, type StoredMemory } from "../../tools/memory/memory-file.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let file: string;
beforeEach(async () => {
  folder = await temporaryFolder();
  file = path.join(folder.path, ".clio", "memory.json");
});
afterEach(async () => {
  await folder.remove();
});

const noSpace = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
const memory = (key: string): StoredMemory => ({ key, value: key, tags: [], metadata: {}, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z" });
const store = (target: MemoryFile, key: string) =>
  target.update((data) => {
    data.entries[key] = memory(key);
    return { changed: true, result: undefined };
  });
const quick = { timeoutMs: 500 };

/** A disk that fills up: writing a whole file writes half of it, then fails. */
const fullDisk: WriteFileSystem = {
  ...nodeFileSystem,
  writeFileSync(target, content) {
    nodeFileSystem.writeFileSync(target, String(content).slice(0, 10));
    throw noSpace();
  },
};

describe("a full disk", () => {
  it("while writing the memory file: the error comes back, the lock is gone, no temporary is left, the old file stands", async () => {
    await store(new MemoryFile(file, quick), "kept");
    const before = await fs.readFile(file, "utf8");
    await expect(store(new MemoryFile(file, { ...quick, fileSystem: fullDisk }), "lost")).rejects.toMatchObject({ code: "ENOSPC" });
    expect((await fs.readdir(path.dirname(file))).sort()).toEqual([".gitignore", "memory.json"]);
    expect(await fs.readFile(file, "utf8")).toBe(before);
    await store(new MemoryFile(file, quick), "next");
    expect(Object.keys((await new MemoryFile(file).read()).entries).sort()).toEqual(["kept", "next"]);
  });

  it("a change whose write failed is left out of later writes by the same process, and the file stays exact", async () => {
    let full = false;
    const fillingDisk: WriteFileSystem = {
      ...nodeFileSystem,
      writeFileSync: (target, content) => (full ? fullDisk : nodeFileSystem).writeFileSync(target, content),
    };
    const target = new MemoryFile(file, { ...quick, fileSystem: fillingDisk });
    const storeKey = (key: string) =>
      target.update((data) => {
        data.entries[key] = memory(key);
        return { changed: true, keys: [key], result: undefined };
      });
    await storeKey("kept");
    full = true;
    await expect(storeKey("lost")).rejects.toMatchObject({ code: "ENOSPC" });
    full = false;
    await storeKey("next");
    const text = await fs.readFile(file, "utf8");
    expect(Object.keys(JSON.parse(text).entries)).toEqual(["kept", "next"]);
    expect(text).toBe(JSON.stringify(JSON.parse(text)));
    expect(Object.keys((await target.read()).entries)).toEqual(["kept", "next"]);
  });

  it("while writing the lock itself: the empty lock is removed, so the next writer gets it", async () => {
    const lockDisk: WriteFileSystem = {
      ...nodeFileSystem,
      writeSync: () => {
        throw noSpace();
      },
    };
    await fs.mkdir(path.dirname(file), { recursive: true });
    await expect(store(new MemoryFile(file, { ...quick, fileSystem: lockDisk }), "lost")).rejects.toMatchObject({ code: "ENOSPC" });
    await expect(fs.access(`${file}.lock`)).rejects.toMatchObject({ code: "ENOENT" });
    await store(new MemoryFile(file, quick), "next");
  });
});

describe("temporaries a dead process left", () => {
  it("are removed at the next start; a live process's are left alone", async () => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    const deadPid = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout;
    const dead = `memory.json.tmp-${deadPid}-deadbeef`;
    const live = `memory.json.tmp-${process.ppid}-cafebabe`;
    await fs.writeFile(path.join(path.dirname(file), dead), "{half");
    await fs.writeFile(path.join(path.dirname(file), live), "{busy");
    await store(new MemoryFile(file, quick), "a");
    const left = await fs.readdir(path.dirname(file));
    expect(left).not.toContain(dead);
    expect(left).toContain(live);
  });
});
