/**
 * Check and use: a folder of the workspace is swapped for a link to a folder outside it after the
 * manager resolved and judged the path and before the file tools open it (the swap is made by the
 * injected file-system seam, at the tools' first open). The I/O must not land outside.
 */
import { closeSync, constants, fstatSync, openSync, promises as fs, readlinkSync, readSync, renameSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileOpProtocol } from "../../protocols/file-op.js";
import { ProtocolManager } from "../../src/manager/manager.js";
import { PermissionPolicy } from "../../src/manager/permissions.js";
import { ProtocolRegistry } from "../../src/registry.js";
import { scriptSubmissions } from "../../src/replay/replay.js";
import type { FileSystem, SyncReads } from "../../tools/files/index.js";
import { makeTempWorkspace, type TempWorkspace } from "../tools/temp.js";

let temp: TempWorkspace;
let outside: string;
beforeEach(async () => {
  temp = await makeTempWorkspace();
  await temp.write("docs/notes.txt", "inside\n");
  await temp.write("docs/sub/kept.txt", "inside\n");
  outside = path.join(temp.base, "secret");
  await fs.mkdir(path.join(outside, "sub"), { recursive: true });
  await fs.writeFile(path.join(outside, "notes.txt"), "SECRET\n");
});
afterEach(async () => {
  await temp.remove();
});

/** Swaps the workspace's `docs` folder for a link to the outside folder, once. */
function swapper(): { swap(): void; swapped: () => boolean } {
  let done = false;
  return {
    swap() {
      if (done) return;
      done = true;
      // Synchronous, so nothing else runs between the swap and the open that follows it.
      const docs = path.join(temp.root, "docs");
      renameSync(docs, `${docs}-old`);
      symlinkSync(outside, docs);
    },
    swapped: () => done,
  };
}

/** A manager over FILE_OP whose file-system seams call `before` right before the tools open anything. */
function managerWith(before: (target: string, flags: unknown) => void): ProtocolManager {
  const syncReads: SyncReads = {
    openSync: (target, flags, mode) => {
      before(String(target), flags);
      return openSync(target, flags, mode);
    },
    fstatSync,
    readSync,
    closeSync,
    readlinkSync: (link) => readlinkSync(link),
  };
  const fileSystem: FileSystem = {
    ...fs,
    open: (target, flags, mode) => {
      before(String(target), flags);
      return fs.open(target, flags, mode);
    },
    mkdir: ((target: string, options: unknown) => {
      before(String(target), "mkdir");
      return fs.mkdir(target, options as never);
    }) as FileSystem["mkdir"],
    ...changesCallingFirst(before),
  };
  return new ProtocolManager({
    registry: new ProtocolRegistry([createFileOpProtocol({ fileSystem, syncReads })]),
    environment: { workspace: temp.workspace, config: {}, env: {}, now: () => Date.UTC(2026, 10, 26), userAgent: "clio-test" },
    // A deny rule that reads values: the manager works out every form of each path before it runs.
    permissions: new PermissionPolicy("yolo", { allow: [], deny: ["FILE_OP:*:private/*"] }),
  });
}

/** The calls that change the file system, each calling `before` first (with the call's name as its flags). */
function changesCallingFirst(before: (target: string, flags: unknown) => void): Partial<FileSystem> {
  const seams: Partial<FileSystem> = {};
  for (const name of ["unlink", "rm", "rename", "copyFile", "cp"] as const) {
    const original = fs[name] as (...parameters: unknown[]) => Promise<unknown>;
    (seams as Record<string, unknown>)[name] = (target: unknown, ...rest: unknown[]) => {
      before(String(target), name);
      return original(target, ...rest);
    };
  }
  return seams;
}

/** A manager whose swap comes at the write itself: when the tools open the folder the file goes in. */
function swappingAtWrite(swap: () => void): ProtocolManager {
  return managerWith((_target, flags) => {
    if (typeof flags === "number" && (flags & constants.O_DIRECTORY) !== 0) swap();
  });
}

/**
 * A manager whose swap comes at the change itself: at the first call that changes the file system
 * (unlink, rm, rename, copy, mkdir) or opens a folder to change something in it; reads before
 * (of the file a delete saves for undo, say) see the workspace unswapped.
 */
function swappingAtChange(swap: () => void): ProtocolManager {
  return managerWith((_target, flags) => {
    if (typeof flags === "string" || (typeof flags === "number" && (flags & constants.O_DIRECTORY) !== 0)) swap();
  });
}

async function run(manager: ProtocolManager, command: string) {
  const [result] = await manager.runAll(scriptSubmissions(command).submissions);
  return result!;
}

const outsideFiles = async () => (await fs.readdir(outside, { recursive: true })).map(String).sort();

/**
 * Runs `command` with the workspace's `docs` swapped for the outside folder when `trigger` says,
 * and checks that the swap happened, the command failed as changed-under-it, and the outside
 * folder's files are as before, contents included.
 */
async function refusedLeavingOutsideAlone(command: string, trigger: (swap: () => void) => ProtocolManager = swappingAtChange) {
  const { swap, swapped } = swapper();
  const snapshot = async () => Promise.all((await outsideFiles()).map(async (name) => [name, await fs.readFile(path.join(outside, name), "utf8").catch(() => "folder")]));
  const before = await snapshot();
  const result = await run(trigger(swap), command);
  expect(swapped()).toBe(true);
  expect(result.ok).toBe(false);
  expect(["outside_workspace", "stale_file"]).toContain(result.error?.code);
  expect(await snapshot()).toEqual(before);
  return result;
}

describe("a link swapped between the check and the use", () => {
  it("reads the checked file when nothing is swapped (the seams themselves change nothing)", async () => {
    const result = await run(
      managerWith(() => undefined),
      '[FILE_OP:action=read:path="docs/notes.txt"] ',
    );
    expect(result.ok).toBe(true);
    expect(result.output).toContain("inside");
  });

  it("cannot redirect a read outside the workspace through a folder on the way", async () => {
    const { swap, swapped } = swapper();
    const result = await run(
      managerWith(() => swap()),
      '[FILE_OP:action=read:path="docs/notes.txt"]',
    );
    expect(swapped()).toBe(true);
    // The swap is real: the same path read plainly now shows the outside file.
    expect(await fs.readFile(path.join(temp.root, "docs/notes.txt"), "utf8")).toBe("SECRET\n");
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("outside_workspace");
    expect(result.error?.message).toContain("changed while it was being used");
    expect(result.output).not.toContain("SECRET");
    expect(JSON.stringify(result)).not.toContain("SECRET");
  });

  it("remembers no folder past a run of reads: a swap between two runs is refused at the check", async () => {
    const { swap, swapped } = swapper();
    const manager = managerWith(() => undefined);
    expect((await run(manager, '[FILE_OP:action=read:path="docs/notes.txt"]')).ok).toBe(true);
    swap();
    const result = await run(manager, '[FILE_OP:action=read:path="docs/notes.txt"]');
    expect(swapped()).toBe(true);
    expect(result.error).toMatchObject({ code: "outside_workspace", message: expect.stringContaining("symbolic link") });
  });

  it("cannot redirect a read when the file itself is replaced by a link", async () => {
    let done = false;
    const result = await run(
      managerWith(() => {
        if (done) return;
        done = true;
        const notes = path.join(temp.root, "docs/notes.txt");
        rmSync(notes);
        symlinkSync(path.join(outside, "notes.txt"), notes);
      }),
      '[FILE_OP:action=read:path="docs/notes.txt"]',
    );
    expect(done).toBe(true);
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("stale_file");
    expect(JSON.stringify(result)).not.toContain("SECRET");
  });

  it("cannot redirect a new file's write outside: the folder it is written in is confirmed after it is opened", async () => {
    const { swap, swapped } = swapper();
    const before = await outsideFiles();
    const result = await run(swappingAtWrite(swap), '[FILE_OP:action=write:path="docs/sub/new.txt":content="planted\\n"]');
    expect(swapped()).toBe(true);
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("outside_workspace");
    expect(await outsideFiles()).toEqual(before);
  });

  it("cannot redirect a replace outside: the old file stays unread and the outside file unchanged", async () => {
    await fs.writeFile(path.join(outside, "sub", "kept.txt"), "inside\n");
    const { swap, swapped } = swapper();
    const result = await run(swappingAtWrite(swap), '[FILE_OP:action=replace:path="docs/sub/kept.txt":old="inside":new="planted"]');
    expect(swapped()).toBe(true);
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("outside_workspace");
    expect(await fs.readFile(path.join(outside, "sub", "kept.txt"), "utf8")).toBe("inside\n");
    expect(await outsideFiles()).toEqual(["notes.txt", "sub", "sub/kept.txt"]);
    // The workspace's own file, now moved aside by the swap, is untouched too.
    expect(await fs.readFile(path.join(temp.root, "docs-old", "sub", "kept.txt"), "utf8")).toBe("inside\n");
  });

  it("cannot redirect a delete outside: the file outside with the same name stays", async () => {
    await fs.writeFile(path.join(outside, "sub", "kept.txt"), "SECRET\n");
    await refusedLeavingOutsideAlone('[FILE_OP:action=delete:path="docs/sub/kept.txt"]');
    expect(await fs.readFile(path.join(temp.root, "docs-old", "sub", "kept.txt"), "utf8")).toBe("inside\n");
  });

  it("cannot delete a folder outside: a recursive delete stops at the swapped folder", async () => {
    await fs.writeFile(path.join(outside, "sub", "kept.txt"), "SECRET\n");
    await refusedLeavingOutsideAlone('[FILE_OP:action=delete:path="docs/sub":recursive=true]');
    expect(await fs.readFile(path.join(temp.root, "docs-old", "sub", "kept.txt"), "utf8")).toBe("inside\n");
  });

  it("cannot move a file out of a folder outside: the source is taken only from its checked folder", async () => {
    await fs.writeFile(path.join(outside, "sub", "kept.txt"), "SECRET\n");
    await refusedLeavingOutsideAlone('[FILE_OP:action=move:path="docs/sub/kept.txt":to="taken.txt"]');
    expect(await fs.readdir(temp.root)).not.toContain("taken.txt");
  });

  it("cannot move a file into a folder outside: the target folder is held and confirmed", async () => {
    await temp.write("top.txt", "planted\n");
    await refusedLeavingOutsideAlone('[FILE_OP:action=move:path="top.txt":to="docs/sub/moved.txt"]');
    expect(await fs.readFile(path.join(temp.root, "top.txt"), "utf8")).toBe("planted\n");
  });

  it("cannot copy a file into a folder outside", async () => {
    await temp.write("top.txt", "planted\n");
    await refusedLeavingOutsideAlone('[FILE_OP:action=copy:path="top.txt":to="docs/sub/copied.txt"]');
    expect(await fs.readdir(path.join(temp.root, "docs-old", "sub"))).toEqual(["kept.txt"]);
  });

  it("creates no folder outside when a folder is swapped while missing parents are being made", async () => {
    const atFirstFolder = (swap: () => void) =>
      managerWith((_target, flags) => {
        if (flags === "mkdir") swap();
      });
    await refusedLeavingOutsideAlone('[FILE_OP:action=write:path="docs/sub/new/deeper/file.txt":content="planted\\n"]', atFirstFolder);
    // The first folder was made in the workspace's own (held) folder, and no further.
    expect(await fs.readdir(path.join(temp.root, "docs-old", "sub", "new"))).toEqual([]);
  });
});

describe("a link put in place of a copy's target after the check", () => {
  it("is replaced by the copy, never written through", async () => {
    await temp.write("top.txt", "planted\n");
    const kept = path.join(temp.root, "docs/sub/kept.txt");
    let done = false;
    const manager = managerWith((_target, flags) => {
      if (flags !== "copyFile" || done) return;
      done = true;
      rmSync(kept);
      symlinkSync(path.join(outside, "notes.txt"), kept);
    });
    const result = await run(manager, '[FILE_OP:action=copy:path="top.txt":to="docs/sub/kept.txt":overwrite=true]');
    expect(done).toBe(true);
    expect(result.ok).toBe(true);
    expect(await fs.readFile(path.join(outside, "notes.txt"), "utf8")).toBe("SECRET\n");
    expect((await fs.lstat(kept)).isFile()).toBe(true);
    expect(await fs.readFile(kept, "utf8")).toBe("planted\n");
  });
});
