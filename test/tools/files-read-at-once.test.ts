/**
 * The read whose result comes at once (`FileTools.readAtOnceOrLater`, taken by FILE_OP read when
 * its path was checked) against the awaited read of a path resolved afresh (`FileTools.read`
 * without checked paths): the same result or the same error, for every kind of path a read meets.
 */
import { execFileSync } from "node:child_process";
import { closeSync, fstatSync, openSync, promises as fs, readlinkSync, readSync, renameSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileTools, type ReadResult, type SyncReads } from "../../tools/files/index.js";
import type { CheckedPaths } from "../../tools/workspace.js";
import { makeTempWorkspace, type TempWorkspace } from "./temp.js";

let temp: TempWorkspace;
beforeEach(async () => {
  temp = await makeTempWorkspace();
  await fs.writeFile(path.join(temp.base, "secret.txt"), "SECRET\n");
});
afterEach(async () => {
  await temp.remove();
});

type Outcome = { at: "once" | "later"; result?: ReadResult; error?: { code: string; message: string } };

/** The path as the manager's check resolves a FILE_OP read's path (from remembered folders in a run of reads): its resolution or its error. */
async function checkedFor(relative: string): Promise<CheckedPaths> {
  temp.workspace.readRunStarted();
  try {
    return new Map([[relative, await temp.workspace.resolveCommandPath(relative).catch((error: Error) => error)]]);
  } finally {
    temp.workspace.readRunEnded();
  }
}

function errorOf(error: unknown): { code: string; message: string } {
  const { code, message } = error as { code: string; message: string };
  return { code, message };
}

/** Reads through the at-once path with `checked`; says whether the outcome came at once. */
async function readAtOnce(relative: string, checked: CheckedPaths, syncReads?: SyncReads): Promise<Outcome> {
  const tools = new FileTools(temp.workspace, undefined, syncReads, undefined, checked);
  let reading: ReadResult | Promise<ReadResult>;
  try {
    reading = tools.readAtOnceOrLater(relative);
  } catch (error) {
    return { at: "once", error: errorOf(error) };
  }
  if (!(reading instanceof Promise)) return { at: "once", result: reading };
  return reading.then(
    (result) => ({ at: "later", result }),
    (error: unknown) => ({ at: "later", error: errorOf(error) }),
  );
}

/** The awaited read of the path resolved afresh. */
async function readAwaited(relative: string, syncReads?: SyncReads): Promise<Omit<Outcome, "at">> {
  return new FileTools(temp.workspace, undefined, syncReads).read(relative).then(
    (result) => ({ result }),
    (error: unknown) => ({ error: errorOf(error) }),
  );
}

async function expectSame(relative: string, at: Outcome["at"], syncReads?: SyncReads): Promise<Outcome> {
  const once = await readAtOnce(relative, await checkedFor(relative), syncReads);
  const { at: came, ...outcome } = once;
  expect(came).toBe(at);
  expect(outcome).toEqual(await readAwaited(relative, syncReads));
  return once;
}

describe("a read whose result comes at once", () => {
  it("gives a small text file's lines at once, as the awaited read does", async () => {
    await temp.write("src/a.ts", "one\ntwo\r\nthree");
    const { result } = await expectSame("src/a.ts", "once");
    expect(result).toMatchObject({ lines: ["one", "two", "three"], totalLines: 3, complete: true });
  });

  it("refuses a link leading outside at once, with the awaited read's error", async () => {
    symlinkSync(path.join(temp.base, "secret.txt"), path.join(temp.root, "escape.txt"));
    const { error } = await expectSame("escape.txt", "once");
    expect(error?.code).toBe("outside_workspace");
  });

  it("refuses a file swapped for a link after its check, reading nothing outside", async () => {
    await temp.write("notes.txt", "inside\n");
    const checked = await checkedFor("notes.txt");
    renameSync(path.join(temp.root, "notes.txt"), path.join(temp.root, "notes-old.txt"));
    symlinkSync(path.join(temp.base, "secret.txt"), path.join(temp.root, "notes.txt"));
    const once = await readAtOnce("notes.txt", checked);
    expect(once).toEqual({ at: "once", error: expect.objectContaining({ code: "stale_file" }) });
    // The promise API with the same check says the same; a fresh resolution sees the link lead outside.
    const promised = await new FileTools(temp.workspace, undefined, undefined, undefined, checked).read("notes.txt").catch(errorOf);
    expect(promised).toEqual(once.error);
    expect((await readAwaited("notes.txt")).error?.code).toBe("outside_workspace");
  });

  it("refuses a FIFO at once without blocking, as the awaited read does", async () => {
    execFileSync("mkfifo", [path.join(temp.root, "pipe")]);
    const { error } = await expectSame("pipe", "once");
    expect(error).toEqual({ code: "not_a_file", message: "pipe is a named pipe (FIFO), not a regular file; file commands only read and write regular files." });
  });

  it("gives a file over 1 MB later, read in windows, the same as the awaited read", async () => {
    await temp.write("big.txt", "a line of a big file\n".repeat(60_000));
    const { result } = await expectSame("big.txt", "later");
    expect(result).toMatchObject({ totalLines: 60_000, complete: false, firstLine: 1 });
  });

  it("refuses a binary file at once, with the awaited read's message", async () => {
    await temp.write("image.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    const { error } = await expectSame("image.png", "once");
    expect(error?.code).toBe("binary_file");
  });

  it("says a missing file does not exist, at once", async () => {
    await temp.write("src/present.ts", "x\n");
    const { error } = await expectSame("src/missing.ts", "once");
    expect(error).toEqual({ code: "not_found", message: "src/missing.ts does not exist." });
    const folderMissing = await expectSame("nowhere/missing.ts", "once");
    expect(folderMissing.error?.code).toBe("not_found");
  });

  it("refuses a path the file system denies at once, as the awaited read does", async () => {
    await temp.write("locked.txt", "hidden\n");
    // Tests may run as root, whom mode bits do not stop: the open is refused by the seam instead.
    const denied: SyncReads = {
      openSync: (target, flags, mode) => {
        if (String(target).endsWith("locked.txt")) throw Object.assign(new Error(`EACCES: permission denied, open '${String(target)}'`), { code: "EACCES" });
        return openSync(target, flags, mode);
      },
      fstatSync,
      readSync,
      closeSync,
      readlinkSync: (link) => readlinkSync(link),
    };
    const { error } = await expectSame("locked.txt", "once", denied);
    expect(error).toEqual({ code: "permission_denied", message: "locked.txt cannot be read: permission denied." });
  });

  it("refuses an offset past the end at once, with the awaited read's hint-bearing error", async () => {
    await temp.write("short.txt", "a\nb\n");
    const checked = await checkedFor("short.txt");
    const tools = new FileTools(temp.workspace, undefined, undefined, undefined, checked);
    expect(() => tools.readAtOnceOrLater("short.txt", { offset: 9 })).toThrow("short.txt has 2 lines; offset 9 is past its end.");
    await expect(new FileTools(temp.workspace).read("short.txt", { offset: 9 })).rejects.toThrow("short.txt has 2 lines; offset 9 is past its end.");
  });
});
