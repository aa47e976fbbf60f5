/**
 * Folders remembered during a run of reads: a path in a folder met before is resolved without a
 * walk, and whatever changed since (a folder swapped for a link outside, a link put in place of a
 * name) is caught when the file is opened; nothing outside is ever read.
 */
import { promises as fs, renameSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileTools } from "../../tools/files/index.js";
import { makeTempWorkspace, type TempWorkspace } from "./temp.js";

let temp: TempWorkspace;
let outside: string;
/** Reads `input` as a FILE_OP command does: its path resolved as a command's, then handed to the tools. */
const files = {
  async read(input: string) {
    const checked = await temp.workspace.resolveCommandPath(input).catch((error: Error) => error);
    return new FileTools(temp.workspace, undefined, undefined, undefined, new Map([[input, checked]])).read(input);
  },
};
beforeEach(async () => {
  temp = await makeTempWorkspace();
  await temp.write("docs/a.txt", "inside a\n");
  await temp.write("docs/b.txt", "inside b\n");
  await temp.write("other/b.txt", "other b\n");
  outside = path.join(temp.base, "secret");
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, "a.txt"), "SECRET a\n");
  await fs.writeFile(path.join(outside, "b.txt"), "SECRET b\n");
});
afterEach(async () => {
  temp.workspace.readRunEnded();
  await temp.remove();
});

/** Swaps the workspace's `docs` for a link to the folder outside. */
function swapDocsOutside(): void {
  const docs = path.join(temp.root, "docs");
  renameSync(docs, `${docs}-old`);
  symlinkSync(outside, docs);
}

const lineText = (read: { lines: string[] }) => read.lines.join("\n");

describe("folders remembered during a run of reads", () => {
  it("resolve a second path in a remembered folder to the folder's real place, without a walk", async () => {
    temp.workspace.readRunStarted();
    await files.read("docs/a.txt");
    // Swapped now, a fresh walk would see the link; the remembered folder still answers:
    swapDocsOutside();
    const resolved = await temp.workspace.resolveCommandPath("docs/b.txt");
    expect(resolved.real).toBe(path.join(temp.root, "docs", "b.txt"));
  });

  it("refuse a read when the remembered folder was swapped for a link outside, and read nothing there", async () => {
    temp.workspace.readRunStarted();
    expect(lineText(await files.read("docs/a.txt"))).toContain("inside a");
    swapDocsOutside();
    const refused = await files.read("docs/b.txt").catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "outside_workspace", message: expect.stringContaining("changed while it was being used") });
    expect(JSON.stringify(refused)).not.toContain("SECRET");
    // The refusal dropped what was remembered: the next resolution walks again and words the link.
    await expect(temp.workspace.resolveCommandPath("docs/b.txt")).rejects.toMatchObject({ code: "outside_workspace", message: expect.stringContaining("symbolic link") });
  });

  it("refuse a second read of the same path after its folder was swapped for a link outside (the path's real place given again is confirmed at the open)", async () => {
    temp.workspace.readRunStarted();
    expect(lineText(await files.read("docs/a.txt"))).toContain("inside a");
    expect((await temp.workspace.resolveCommandPath("docs/a.txt")).real).toBe(path.join(temp.root, "docs", "a.txt"));
    swapDocsOutside();
    const refused = await files.read("docs/a.txt").catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "outside_workspace", message: expect.stringContaining("changed while it was being used") });
    expect(JSON.stringify(refused)).not.toContain("SECRET");
    await expect(temp.workspace.resolveCommandPath("docs/a.txt")).rejects.toMatchObject({ code: "outside_workspace", message: expect.stringContaining("symbolic link") });
  });

  it("refuse a link put in place of a name after its folder was listed, then resolve that link afresh", async () => {
    temp.workspace.readRunStarted();
    await files.read("docs/a.txt");
    await fs.rm(path.join(temp.root, "docs/b.txt"));
    symlinkSync(path.join(temp.root, "other/b.txt"), path.join(temp.root, "docs/b.txt"));
    await expect(files.read("docs/b.txt")).rejects.toMatchObject({ code: "stale_file", message: expect.stringContaining("a link was put in its place") });
    // Run again, as the error says: the link (to a file inside) is followed and read.
    expect(lineText(await files.read("docs/b.txt"))).toContain("other b");
  });

  it("follow a link that was already there when the folder was listed, and refuse one that leads outside", async () => {
    symlinkSync(path.join(temp.root, "other/b.txt"), path.join(temp.root, "docs/inside-link.txt"));
    symlinkSync(path.join(outside, "a.txt"), path.join(temp.root, "docs/outside-link.txt"));
    temp.workspace.readRunStarted();
    await files.read("docs/a.txt");
    expect((await temp.workspace.resolveCommandPath("docs/inside-link.txt")).real).toBe(path.join(temp.root, "other", "b.txt"));
    expect(lineText(await files.read("docs/inside-link.txt"))).toContain("other b");
    await expect(files.read("docs/outside-link.txt")).rejects.toMatchObject({ code: "outside_workspace" });
  });

  it("read where a link on the way led when its folder was remembered, if it is turned to another folder inside", async () => {
    symlinkSync(path.join(temp.root, "docs"), path.join(temp.root, "current"));
    temp.workspace.readRunStarted();
    expect(lineText(await files.read("current/b.txt"))).toContain("inside b");
    await fs.rm(path.join(temp.root, "current"));
    symlinkSync(path.join(temp.root, "other"), path.join(temp.root, "current"));
    // The file the check judged (docs/b.txt), not other/b.txt; after the run, the link as it is now.
    expect(lineText(await files.read("current/b.txt"))).toContain("inside b");
    temp.workspace.readRunEnded();
    expect(lineText(await files.read("current/b.txt"))).toContain("other b");
  });

  it("are used only for a command's paths: any other resolution walks afresh", async () => {
    temp.workspace.readRunStarted();
    await files.read("docs/a.txt");
    swapDocsOutside();
    await expect(temp.workspace.resolve("docs/b.txt")).rejects.toMatchObject({ code: "outside_workspace", message: expect.stringContaining("symbolic link") });
    await expect(new FileTools(temp.workspace).read("docs/b.txt")).rejects.toMatchObject({ code: "outside_workspace" });
  });

  it("never remember a folder that really lies outside: each path in it is refused as a link outside", async () => {
    symlinkSync(outside, path.join(temp.root, "away"));
    temp.workspace.readRunStarted();
    for (const name of ["a.txt", "b.txt", "a.txt"]) {
      await expect(temp.workspace.resolveCommandPath(`away/${name}`)).rejects.toMatchObject({ code: "outside_workspace", message: expect.stringContaining("symbolic link") });
    }
  });

  it("list a big folder only once enough of its paths were met in the run: until then each path is walked afresh", async () => {
    for (let index = 0; index < 40; index++) await temp.write(`docs/f${index}.txt`, "x\n");
    const docs = path.join(temp.root, "docs");
    const restoreDocs = async () => {
      await fs.rm(docs);
      renameSync(`${docs}-old`, docs);
    };
    // 42 entries: met twice, too big to list yet (8 entries a meeting), so the third path is walked and sees the swap.
    temp.workspace.readRunStarted();
    await files.read("docs/a.txt");
    await files.read("docs/f1.txt");
    swapDocsOutside();
    await expect(temp.workspace.resolveCommandPath("docs/b.txt")).rejects.toMatchObject({ code: "outside_workspace" });
    temp.workspace.readRunEnded();
    await restoreDocs();
    // Met eight times, it is listed (64 entries allowed) and answers from memory, as a small folder does at once.
    temp.workspace.readRunStarted();
    for (const name of ["a.txt", "f1.txt", "f2.txt", "f3.txt", "f4.txt", "f5.txt", "f6.txt", "f7.txt"]) expect(lineText(await files.read(`docs/${name}`))).not.toContain("SECRET");
    swapDocsOutside();
    expect((await temp.workspace.resolveCommandPath("docs/b.txt")).real).toBe(path.join(docs, "b.txt"));
    const refused = await files.read("docs/b.txt").catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "outside_workspace", message: expect.stringContaining("changed while it was being used") });
  });

  it("forget everything when state changes and when the run ends; outside a run nothing is remembered", async () => {
    const docs = path.join(temp.root, "docs");
    symlinkSync(outside, path.join(temp.root, "docs-link"));
    /** `docs` becomes the link outside (the real folder set aside), or the real folder again. */
    const docsLeadsOutside = (outsideNow: boolean) => {
      renameSync(docs, path.join(temp.root, outsideNow ? "docs-real" : "docs-link"));
      renameSync(path.join(temp.root, outsideNow ? "docs-link" : "docs-real"), docs);
    };
    const freshCheck = () =>
      temp.workspace.resolveCommandPath("docs/b.txt").then(
        (resolved) => resolved.real,
        (error: { code: string }) => error.code,
      );

    await files.read("docs/a.txt");
    docsLeadsOutside(true);
    expect(await freshCheck()).toBe("outside_workspace");
    docsLeadsOutside(false);

    temp.workspace.readRunStarted();
    await files.read("docs/a.txt");
    docsLeadsOutside(true);
    temp.workspace.stateChanging();
    expect(await freshCheck()).toBe("outside_workspace");
    docsLeadsOutside(false);

    await files.read("docs/a.txt");
    docsLeadsOutside(true);
    temp.workspace.readRunEnded();
    expect(await freshCheck()).toBe("outside_workspace");
  });
});
