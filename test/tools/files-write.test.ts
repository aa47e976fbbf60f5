import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileTools, type FileSystem } from "../../tools/files/index.js";
import { makeNullDevice, makeTempWorkspace, type TempWorkspace } from "./temp.js";

let temp: TempWorkspace;
let files: FileTools;
beforeEach(async () => {
  temp = await makeTempWorkspace();
  files = new FileTools(temp.workspace);
});
afterEach(async () => {
  await temp.remove();
});

describe("FileTools.write", () => {
  it("creates a file and its folders, counting its lines as added", async () => {
    const result = await files.write("src/deep/app.ts", "a\nb\nc\n");
    expect(result).toEqual({ relative: "src/deep/app.ts", created: true, added: 3, removed: 0, lines: 3, bytes: 6 });
    expect(await temp.read("src/deep/app.ts")).toBe("a\nb\nc\n");
  });

  it("overwrites a file, reporting added and removed lines and keeping its mode", async () => {
    const absolute = await temp.write("run.sh", "#!/bin/sh\necho old\nexit 0\n");
    await fs.chmod(absolute, 0o750);
    const result = await files.write("run.sh", "#!/bin/sh\necho new\necho more\nexit 0\n");
    expect(result).toMatchObject({ created: false, added: 2, removed: 1, lines: 4 });
    expect((await fs.stat(absolute)).mode & 0o777).toBe(0o750);
  });

  it("leaves the old file intact and no temp file when the rename fails", async () => {
    await temp.write("keep.txt", "old content\n");
    const failing: FileSystem = { ...fs, rename: async () => Promise.reject(Object.assign(new Error("disk on fire"), { code: "EIO" })) };
    await expect(new FileTools(temp.workspace, failing).write("keep.txt", "new content\n")).rejects.toThrow("disk on fire");
    expect(await temp.read("keep.txt")).toBe("old content\n");
    expect(await fs.readdir(temp.root)).toEqual(["keep.txt"]);
  });

  it("turns a full disk into a clear error, changing nothing", async () => {
    await temp.write("keep.txt", "old content\n");
    const noSpace = Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
    const full: FileSystem = { ...fs, open: ((file, flags, mode) => (flags === "wx" ? Promise.reject(noSpace) : fs.open(file, flags, mode))) as FileSystem["open"] };
    await expect(new FileTools(temp.workspace, full).write("keep.txt", "new\n")).rejects.toMatchObject({ code: "limit_reached", message: expect.stringContaining("disk is full") });
    expect(await temp.read("keep.txt")).toBe("old content\n");
  });

  it("writes through a symlink inside the workspace to its target", async () => {
    await temp.write("real.txt", "before\n");
    await fs.symlink("real.txt", path.join(temp.root, "alias.txt"));
    await files.write("alias.txt", "after\n");
    expect(await temp.read("real.txt")).toBe("after\n");
    expect((await fs.lstat(path.join(temp.root, "alias.txt"))).isSymbolicLink()).toBe(true);
  });

  it("refuses directories, FIFOs and device links, writing nothing and never blocking", async () => {
    await fs.mkdir(path.join(temp.root, "folder"));
    execFileSync("mkfifo", [path.join(temp.root, "pipe")]);
    await fs.symlink("/dev/null", path.join(temp.root, "null"));
    await expect(files.write("folder", "x")).rejects.toMatchObject({ code: "not_a_file" });
    await expect(files.write("pipe", "x")).rejects.toMatchObject({ code: "not_a_file", message: expect.stringContaining("named pipe") });
    await expect(files.write("null", "x")).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(files.write(".", "x")).rejects.toMatchObject({ code: "not_a_file" });
    const device = makeNullDevice(path.join(temp.root, "device"));
    if (device) await expect(files.write("device", "x")).rejects.toMatchObject({ code: "not_a_file", message: expect.stringContaining("character device") });
    expect((await fs.readdir(temp.root)).sort()).toEqual([...(device ? ["device"] : []), "folder", "null", "pipe"]);
    if (device) expect((await fs.stat(path.join(temp.root, "device"))).isCharacterDevice()).toBe(true);
  });

  it("refuses escapes and protected paths, writing nothing anywhere", async () => {
    await fs.mkdir(path.join(temp.base, "outside"));
    await fs.symlink(path.join(temp.base, "outside"), path.join(temp.root, "out"));
    await fs.symlink(path.join(temp.base, "outside", "dangling.txt"), path.join(temp.root, "dangling"));
    await expect(files.write("../evil.txt", "x")).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(files.write(`${temp.root}-evil/x.txt`, "x")).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(files.write("out/new/evil.txt", "x")).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(files.write("dangling", "x")).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(files.write(".git/hooks/pre-commit", "x")).rejects.toMatchObject({ code: "protected_path" });
    await expect(files.write(".clio/config.json", "x")).rejects.toMatchObject({ code: "protected_path" });
    expect(await fs.readdir(path.join(temp.base, "outside"))).toEqual([]);
    expect((await fs.readdir(temp.base)).sort()).toEqual(["outside", "project"]);
    expect(await temp.exists(".git")).toBe(false);
  });

  it("refuses a path whose parent is a file", async () => {
    await temp.write("a.txt", "x");
    await expect(files.write("a.txt/b.txt", "y")).rejects.toMatchObject({ code: "not_a_directory" });
  });
});

describe("FileTools.replace", () => {
  const source = "function a() {\n  return 1;\n}\nfunction b() {\n  return 1;\n}\n";

  it("replaces the one exact match, taking the new text literally", async () => {
    await temp.write("f.js", source);
    const result = await files.replace("f.js", "function a() {\n  return 1;", "function a() {\n  return '$&';");
    expect(result).toMatchObject({ replacements: 1, matchLines: [1], added: 1, removed: 1 });
    expect(await temp.read("f.js")).toBe(source.replace("return 1;", "return '$$&';"));
  });

  it("lists the lines of several matches, and replaces them all only with all=true", async () => {
    await temp.write("f.js", source);
    await expect(files.replace("f.js", "return 1;", "return 2;")).rejects.toMatchObject({
      code: "ambiguous_match",
      message: "old matches 2 places in f.js, at lines 2, 5.",
    });
    expect(await temp.read("f.js")).toBe(source);
    const result = await files.replace("f.js", "return 1;", "return 2;", true);
    expect(result).toMatchObject({ replacements: 2, matchLines: [2, 5] });
    expect(await temp.read("f.js")).not.toContain("return 1;");
  });

  it("shows the closest lines with numbers when nothing matches", async () => {
    await temp.write("f.js", source);
    const error = await files.replace("f.js", "function b() {\n    return 1;", "x").catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "no_match" });
    expect((error as Error).message).toContain("4│function b() {\n5│  return 1;");
    expect(await temp.read("f.js")).toBe(source);
  });

  it("notices line numbers copied into old", async () => {
    await temp.write("f.js", source);
    await expect(files.replace("f.js", "2│  return 1;", "x")).rejects.toMatchObject({ code: "no_match", hint: expect.stringContaining("line numbers") });
  });

  it("matches LF text in a CRLF file and keeps CRLF", async () => {
    await temp.write("w.txt", "one\r\ntwo\r\nthree\r\n");
    await files.replace("w.txt", "one\ntwo", "uno\ndos");
    expect(await temp.read("w.txt")).toBe("uno\r\ndos\r\nthree\r\n");
  });

  it("refuses an empty old, a missing file and a directory", async () => {
    await temp.write("f.js", source);
    await fs.mkdir(path.join(temp.root, "dir"));
    await expect(files.replace("f.js", "", "x")).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(files.replace("nope.js", "a", "b")).rejects.toMatchObject({ code: "not_found" });
    await expect(files.replace("dir", "a", "b")).rejects.toMatchObject({ code: "not_a_file" });
  });

  it("keeps the file's mode", async () => {
    const absolute = await temp.write("tool.sh", "echo 1\n");
    await fs.chmod(absolute, 0o700);
    await files.replace("tool.sh", "1", "2");
    expect((await fs.stat(absolute)).mode & 0o777).toBe(0o700);
  });
});
