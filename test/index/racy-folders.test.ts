import { execFileSync } from "node:child_process";
import { mkdir, readdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ListingTimes } from "../../tools/index/change-check.js";
import { RACY_MS } from "../../tools/index/change-check.js";
import { CodeIndex } from "../../tools/index/code-index.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: { path: string; remove(): Promise<void> };
const absolute = (relative: string) => path.join(folder.path, relative);
const write = async (relative: string, content: string) => {
  await mkdir(path.dirname(absolute(relative)), { recursive: true });
  await writeFile(absolute(relative), content);
};
const listing = async () => (JSON.parse(await readFile(absolute(".clio/index/manifest.json"), "utf8")) as { listing: ListingTimes }).listing;
const hour = new Date(Date.now() - 3600_000);

/** Waits until `mtimeMs` is old enough to be trusted against the clock. */
async function outlive(mtimeMs: number): Promise<void> {
  const wait = mtimeMs + RACY_MS + 50 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** Puts a file into `folder` and sets the folder's mtime back to the nanosecond (touch(1)), so only a walk can see the file. */
async function slipInto(relativeFolder: string, name: string, content: string): Promise<void> {
  const { mtimeNs } = await stat(absolute(relativeFolder), { bigint: true });
  await writeFile(absolute(path.join(relativeFolder, name)), content);
  await utimes(absolute(path.join(relativeFolder, name)), hour, hour);
  const nanoseconds = (mtimeNs % 1_000_000_000n).toString().padStart(9, "0");
  execFileSync("touch", ["-m", "-d", `@${mtimeNs / 1_000_000_000n}.${nanoseconds}`, absolute(relativeFolder)]);
}

beforeEach(async () => {
  folder = await temporaryFolder("clio-racy-folders-");
  await write("src/math.ts", "export function addNumbers(a: number, b: number) {\n  return a + b;\n}\n");
  await write("notes.md", "# Notes\n");
  for (const relative of ["src/math.ts", "notes.md", "src"]) await utimes(absolute(relative), hour, hour);
  // The root keeps a recent mtime: the build creates .clio in it just before its check begins.
});
afterEach(() => folder.remove());

describe("a folder whose mtime was too recent to trust at the last walk", () => {
  it("is listed again by the next check and trusted when it holds the same names: no walk (the root after a build made .clio in it)", async () => {
    await (await CodeIndex.open(folder.path)).update();
    const built = await listing();
    expect(built.names?.["."]).toEqual((await readdir(folder.path)).sort());
    expect(built.names?.["."]).toContain(".clio");
    await outlive(built.mtimes["."]!);
    // Only a walk would find this file: its folder's mtime is set back.
    await slipInto("src", "hidden.ts", "export const slipped = 1;\n");
    const reopened = await CodeIndex.open(folder.path);
    expect(await reopened.update()).toMatchObject({ indexed: 0, removed: 0, files: 2 });
    expect(reopened.files.has("src/hidden.ts")).toBe(false);
    // Nothing changed, so nothing was written: the next check lists the root again, and trusts it again.
    expect((await listing()).names?.["."]).toEqual(built.names?.["."]);
    expect(await (await CodeIndex.open(folder.path)).update()).toMatchObject({ indexed: 0, files: 2 });
  });

  it("walks when the folder, listed again, holds other names under the same mtime", async () => {
    await (await CodeIndex.open(folder.path)).update();
    const built = await listing();
    await outlive(built.mtimes["."]!);
    await slipInto(".", "added.ts", "export const added = 2;\n");
    expect((await stat(folder.path)).mtimeMs).toBe(built.mtimes["."]);
    const reopened = await CodeIndex.open(folder.path);
    expect(await reopened.update()).toMatchObject({ indexed: 1, files: 3 });
    expect(reopened.files.has("added.ts")).toBe(true);
  });

  it("walks while the folder's mtime is still too recent against the clock, and when the names kept are damaged", async () => {
    const index = await CodeIndex.open(folder.path);
    await index.update();
    // At once: the root's mtime is still within RACY_MS of now, so a file slipped in is found by a walk.
    await slipInto("src", "early.ts", "export const early = 3;\n");
    expect((await index.update()).indexed).toBe(1);
    expect(index.files.has("src/early.ts")).toBe(true);

    const manifestPath = absolute(".clio/index/manifest.json");
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as { listing: ListingTimes & { names: unknown } };
    expect(manifest.listing.names).toBeDefined();
    await outlive(manifest.listing.mtimes["."]!);
    await writeFile(manifestPath, JSON.stringify({ ...manifest, listing: { ...manifest.listing, names: { ".": "not a list" } } }));
    await slipInto("src", "late.ts", "export const late = 4;\n");
    const reopened = await CodeIndex.open(folder.path);
    expect((await reopened.update()).indexed).toBe(1);
    expect(reopened.files.has("src/late.ts")).toBe(true);
  });
});
