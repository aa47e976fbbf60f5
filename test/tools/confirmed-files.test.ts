/**
 * Files confirmed during a run of reads: a file the run opened and confirmed through
 * /proc/self/fd is known again by its descriptor's stat (device, inode, birth and change time,
 * size) and not looked up there a second time. Whatever a folder or link swapped on the way leads
 * the open to instead is another file, confirmed in full: a look-alike outside is refused.
 */
import { promises as fs, renameSync, symlinkSync, utimesSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileTools, type SyncReads } from "../../tools/files/index.js";
import { nodeSyncReads } from "../../tools/files/file-system.js";
import { makeTempWorkspace, type TempWorkspace } from "./temp.js";

let temp: TempWorkspace;
let outside: string;
/** Descriptors looked up under /proc so far. */
let lookups = 0;
const countingReads: SyncReads = {
  ...nodeSyncReads,
  readlinkSync: (link) => {
    lookups++;
    return nodeSyncReads.readlinkSync(link);
  },
};
/** Reads `input` as a FILE_OP command does (its path resolved as a command's), its lines as one text or the error's code and message. */
async function read(input: string): Promise<string> {
  const checked = await temp.workspace.resolveCommandPath(input).catch((error: Error) => error);
  const tools = new FileTools(temp.workspace, undefined, countingReads, undefined, new Map([[input, checked]]));
  return tools.read(input).then(
    (result) => result.lines.join("\n"),
    (error: { code: string; message: string }) => `${error.code}: ${error.message}`,
  );
}
/** Gives `target` the size and times of `model`, as a look-alike would have them. */
async function lookAlike(target: string, model: string, content: string): Promise<void> {
  await fs.writeFile(target, content);
  const stat = await fs.stat(model);
  expect((await fs.stat(target)).size).toBe(stat.size);
  utimesSync(target, stat.atime, stat.mtime);
}

beforeEach(async () => {
  temp = await makeTempWorkspace();
  await temp.write("docs/a.txt", "inside a\n");
  await temp.write("docs/b.txt", "inside b\n");
  outside = path.join(temp.base, "secret");
  await fs.mkdir(outside);
  lookups = 0;
});
afterEach(async () => {
  temp.workspace.readRunEnded();
  await temp.remove();
});

describe("files confirmed during a run of reads", () => {
  it("are looked up under /proc once a run: a second read of the same file, unchanged, is known by its stat", async () => {
    temp.workspace.readRunStarted();
    for (let round = 0; round < 3; round++) expect(await read("docs/a.txt")).toBe("inside a");
    expect(lookups).toBe(1);
    expect(await read("docs/b.txt")).toBe("inside b");
    expect(lookups).toBe(2);
    // State changing forgets them; so does the end of the run, and outside a run each read looks.
    temp.workspace.stateChanging();
    await read("docs/a.txt");
    expect(lookups).toBe(3);
    temp.workspace.readRunEnded();
    await read("docs/a.txt");
    await read("docs/a.txt");
    expect(lookups).toBe(5);
  });

  it("refuse a look-alike outside (same name, size and times) after a folder on the way was swapped for a link to it", async () => {
    await lookAlike(path.join(outside, "a.txt"), path.join(temp.root, "docs/a.txt"), "SECRET a\n");
    temp.workspace.readRunStarted();
    expect(await read("docs/a.txt")).toBe("inside a");
    const docs = path.join(temp.root, "docs");
    renameSync(docs, `${docs}-old`);
    symlinkSync(outside, docs);
    const refused = await read("docs/a.txt");
    expect(refused).toMatch(/^outside_workspace: docs\/a.txt changed while it was being used/);
    expect(refused).not.toContain("SECRET");
    expect(lookups).toBe(2);
  });

  it("confirm in full a file put in place of a confirmed one, however alike (same size and times)", async () => {
    temp.workspace.readRunStarted();
    expect(await read("docs/a.txt")).toBe("inside a");
    const replacement = path.join(temp.root, "docs/new.tmp");
    await lookAlike(replacement, path.join(temp.root, "docs/a.txt"), "second a\n");
    renameSync(replacement, path.join(temp.root, "docs/a.txt"));
    // Inside the workspace, so shown; but looked up again, not taken for the file confirmed before.
    expect(await read("docs/a.txt")).toBe("second a");
    expect(lookups).toBe(2);
  });

  it("read a confirmed file, unchanged, whose folder was moved out and linked back: that very file; any other file there is refused", async () => {
    temp.workspace.readRunStarted();
    expect(await read("docs/a.txt")).toBe("inside a");
    const docs = path.join(temp.root, "docs");
    const moved = path.join(outside, "docs");
    renameSync(docs, moved);
    symlinkSync(moved, docs);
    // The file the run confirmed inside, its bytes unchanged since (its change time and size say so).
    expect(await read("docs/a.txt")).toBe("inside a");
    expect(await read("docs/b.txt")).toMatch(/^outside_workspace: /);
    // The refusal forgot what the run remembered: now the confirmed file is looked up and refused too.
    expect(await read("docs/a.txt")).toMatch(/^outside_workspace: /);
  });
});
