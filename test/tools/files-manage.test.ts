import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileTools } from "../../tools/files/index.js";
import { makeTempWorkspace, type TempWorkspace } from "./temp.js";

let temp: TempWorkspace;
let files: FileTools;
beforeEach(async () => {
  temp = await makeTempWorkspace();
  files = new FileTools(temp.workspace);
  await temp.write("a.txt", "alpha\n");
  await temp.write("b.txt", "beta\n");
  await temp.write("dir/one.txt", "1\n");
  await temp.write("dir/sub/two.txt", "2\n");
});
afterEach(async () => {
  await temp.remove();
});

describe("FileTools.remove", () => {
  it("deletes a file", async () => {
    expect(await files.remove("a.txt")).toEqual({ relative: "a.txt", kind: "file", files: 1 });
    expect(await temp.exists("a.txt")).toBe(false);
  });

  it("deletes a folder only with recursive", async () => {
    await expect(files.remove("dir")).rejects.toMatchObject({ code: "not_a_file", hint: expect.stringContaining("recursive=true") });
    expect(await temp.exists("dir/one.txt")).toBe(true);
    expect(await files.remove("dir", true)).toEqual({ relative: "dir", kind: "directory", files: 2 });
    expect(await temp.exists("dir")).toBe(false);
  });

  it("never deletes the root, git internals, or a folder holding a repository", async () => {
    await temp.write(".git/HEAD", "ref\n");
    await temp.write("vendor/lib/.git/HEAD", "ref\n");
    await expect(files.remove(".", true)).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(files.remove(temp.root, true)).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(files.remove(".git", true)).rejects.toMatchObject({ code: "protected_path" });
    await expect(files.remove("vendor", true)).rejects.toMatchObject({ code: "protected_path" });
    expect(await temp.exists("vendor/lib/.git/HEAD")).toBe(true);
  });

  it("deletes a symlink, not what it points to", async () => {
    await fs.symlink("dir", path.join(temp.root, "alias"));
    await files.remove("alias");
    expect(await temp.exists("alias")).toBe(false);
    expect(await temp.exists("dir/one.txt")).toBe(true);
  });

  it("never deletes or moves a link that lives outside, even one pointing back inside", async () => {
    const outside = path.join(temp.base, "elsewhere");
    await fs.mkdir(outside);
    await fs.symlink(path.join(temp.root, "a.txt"), path.join(outside, "back"));
    await fs.symlink(outside, path.join(temp.root, "away"));
    await expect(files.remove("away/back")).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(files.move("away/back", "moved")).rejects.toMatchObject({ code: "outside_workspace" });
    expect(await fs.readlink(path.join(outside, "back"))).toBe(path.join(temp.root, "a.txt"));
    expect(await temp.exists("moved")).toBe(false);
  });

  it("reports a missing path", async () => {
    await expect(files.remove("ghost.txt")).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("FileTools.move", () => {
  it("renames a file, creating the target's folders", async () => {
    expect(await files.move("a.txt", "new/place/a.txt")).toEqual({ from: "a.txt", to: "new/place/a.txt", kind: "file", overwritten: false });
    expect(await temp.read("new/place/a.txt")).toBe("alpha\n");
    expect(await temp.exists("a.txt")).toBe(false);
  });

  it("refuses to overwrite unless overwrite=true", async () => {
    await expect(files.move("a.txt", "b.txt")).rejects.toMatchObject({ code: "already_exists", hint: expect.stringContaining("overwrite=true") });
    expect(await temp.read("b.txt")).toBe("beta\n");
    expect(await files.move("a.txt", "b.txt", true)).toMatchObject({ overwritten: true });
    expect(await temp.read("b.txt")).toBe("alpha\n");
  });

  it("refuses moving a folder into itself, onto a folder, or out of the workspace", async () => {
    await expect(files.move("dir", "dir/sub/inner")).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(files.move("a.txt", "dir")).rejects.toMatchObject({ code: "already_exists", hint: expect.stringContaining("dir/a.txt") });
    await expect(files.move("a.txt", "../a.txt")).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(files.move("a.txt", ".git/a.txt")).rejects.toMatchObject({ code: "protected_path" });
    expect(await temp.exists("a.txt")).toBe(true);
  });
});

describe("FileTools.copy", () => {
  it("copies a file, keeping the source", async () => {
    expect(await files.copy("a.txt", "copies/a.txt")).toMatchObject({ kind: "file", overwritten: false });
    expect(await temp.read("copies/a.txt")).toBe("alpha\n");
    expect(await temp.read("a.txt")).toBe("alpha\n");
  });

  it("copies a folder only with recursive, leaving git internals behind", async () => {
    await temp.write("dir/.git/HEAD", "ref\n");
    await expect(files.copy("dir", "dir2")).rejects.toMatchObject({ code: "not_a_file" });
    await files.copy("dir", "dir2", { recursive: true });
    expect(await temp.read("dir2/sub/two.txt")).toBe("2\n");
    expect(await temp.exists("dir2/.git")).toBe(false);
  });

  it("refuses to overwrite unless overwrite=true", async () => {
    await expect(files.copy("a.txt", "b.txt")).rejects.toMatchObject({ code: "already_exists" });
    await files.copy("a.txt", "b.txt", { overwrite: true });
    expect(await temp.read("b.txt")).toBe("alpha\n");
  });

  it("refuses copying from outside through a symlink", async () => {
    await fs.writeFile(path.join(temp.base, "secret.txt"), "secret");
    await fs.symlink(path.join(temp.base, "secret.txt"), path.join(temp.root, "leak"));
    await expect(files.copy("leak", "stolen.txt")).rejects.toMatchObject({ code: "outside_workspace" });
    expect(await temp.exists("stolen.txt")).toBe(false);
  });
});
