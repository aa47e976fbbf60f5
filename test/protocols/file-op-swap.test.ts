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
  };
  return new ProtocolManager({
    registry: new ProtocolRegistry([createFileOpProtocol({ fileSystem, syncReads })]),
    environment: { workspace: temp.workspace, config: {}, env: {}, now: () => Date.UTC(2026, 10, 26), userAgent: "clio-test" },
    // A deny rule that reads values: the manager works out every form of each path before it runs.
    permissions: new PermissionPolicy("yolo", { allow: [], deny: ["FILE_OP:*:private/*"] }),
  });
}

/** A manager whose swap comes at the write itself: when the tools open the folder the file goes in. */
function swappingAtWrite(swap: () => void): ProtocolManager {
  return managerWith((_target, flags) => {
    if (typeof flags === "number" && (flags & constants.O_DIRECTORY) !== 0) swap();
  });
}

async function run(manager: ProtocolManager, command: string) {
  const [result] = await manager.runAll(scriptSubmissions(command).submissions);
  return result!;
}

const outsideFiles = async () => (await fs.readdir(outside, { recursive: true })).map(String).sort();

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
});
