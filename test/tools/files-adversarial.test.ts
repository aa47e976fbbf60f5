/**
 * Attacks on the file tools that slipped past the first line of defence: globs that expand to
 * paths outside, special files where a regular one is expected, names at the file system's
 * limit, and Windows-style separators.
 */
import { execFileSync } from "node:child_process";
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
  await fs.writeFile(path.join(temp.base, "secret.txt"), "SECRET\n");
});
afterEach(async () => {
  await temp.remove();
});

const mkfifo = (relative: string) => execFileSync("mkfifo", [path.join(temp.root, relative)]);

describe("search globs", () => {
  it("refuses globs whose braces expand to `..` or an absolute path, reading nothing outside", async () => {
    for (const pattern of [".{.,}/secret.txt", "{.,.}{.,.}/*", "x{/../..,}/secret.txt", "{/etc,x}/passwd", "\\.\\./secret.txt"]) {
      await expect(files.search(pattern, { content: "SECRET|root" }), pattern).rejects.toMatchObject({ code: "outside_workspace" });
      await expect(files.search(pattern), pattern).rejects.toMatchObject({ code: "outside_workspace" });
    }
  });

  it("refuses globs whose braces expand to a flood of alternatives, instead of crashing or walking for each", async () => {
    for (const pattern of [`${"{a,b}".repeat(18)}/x`, "{1..1000}/x"]) {
      await expect(files.search(pattern), pattern).rejects.toMatchObject({ code: "invalid_argument", message: expect.stringContaining("alternatives") });
    }
  });

  it("stops a content pattern that backtracks catastrophically, with a clear error, instead of hanging", async () => {
    await temp.write("long.txt", `${"a".repeat(40)}b\n`);
    await expect(files.search("long.txt", { content: "(a+)+$" })).rejects.toMatchObject({ code: "invalid_argument", message: expect.stringContaining("backtracks") });
    expect((await files.search("long.txt", { content: "a+b$" })).hits).toEqual([{ path: "long.txt", line: 1, text: `${"a".repeat(40)}b` }]);
  });

  it("still accepts braces that stay inside", async () => {
    await temp.write("src/b.ts", "b\n");
    expect((await files.search("{a.txt,src/b.ts}")).files).toEqual(["a.txt", "src/b.ts"]);
  });
});

describe("symlinks pointing outside", () => {
  it("are not followed by a content search, as folders or as files", async () => {
    await fs.symlink(temp.base, path.join(temp.root, "up"));
    await fs.symlink(path.join(temp.base, "secret.txt"), path.join(temp.root, "leak.txt"));
    const result = await files.search("*", { content: "SECRET" });
    expect(result.hits).toEqual([]);
  });

  it("are copied as links inside a copied folder, never as the outside content", async () => {
    await temp.write("dir/one.txt", "1\n");
    await fs.symlink(path.join(temp.base, "secret.txt"), path.join(temp.root, "dir/leak"));
    await files.copy("dir", "dir2", { recursive: true });
    expect((await fs.lstat(path.join(temp.root, "dir2/leak"))).isSymbolicLink()).toBe(true);
    await expect(files.read("dir2/leak")).rejects.toMatchObject({ code: "outside_workspace" });
  });
});

describe("special files in the way", () => {
  it("never blocks copying onto a FIFO with overwrite, and leaves it alone", async () => {
    mkfifo("pipe");
    await expect(files.copy("a.txt", "pipe", { overwrite: true })).rejects.toMatchObject({ code: "not_a_file", message: expect.stringContaining("named pipe") });
    expect((await fs.lstat(path.join(temp.root, "pipe"))).isFIFO()).toBe(true);
  });

  it("refuses copying a folder that holds a FIFO, writing nothing", async () => {
    await temp.write("dir/one.txt", "1\n");
    mkfifo("dir/pipe");
    await expect(files.copy("dir", "dir2", { recursive: true })).rejects.toMatchObject({ code: "not_a_file", message: expect.stringContaining("dir/pipe") });
    expect(await temp.exists("dir2")).toBe(false);
  });

  it("never blocks listing or searching when a .gitignore is a FIFO or a link to a device", async () => {
    await temp.write("sub/file.txt", "x\n");
    mkfifo("sub/.gitignore");
    await temp.write("other/file.txt", "y\n");
    await fs.symlink("/dev/zero", path.join(temp.root, "other/.gitignore"));
    const listed = (await files.list(".", { recursive: true })).entries.map((entry) => entry.path);
    expect(listed).toEqual(expect.arrayContaining(["sub/file.txt", "other/file.txt"]));
    expect((await files.search("*.txt", { content: "x|y" })).files).toEqual(["other/file.txt", "sub/file.txt"]);
  });
});

describe("names at the file system's limit", () => {
  it("writes and edits a file whose name is 255 bytes (the temp file beside it must fit too)", async () => {
    const name = "n".repeat(255);
    expect(await files.write(name, "one\n")).toMatchObject({ created: true });
    await files.replace(name, "one", "two");
    expect(await temp.read(name)).toBe("two\n");
    expect(await fs.readdir(temp.root)).toEqual(expect.arrayContaining([name]));
    expect((await fs.readdir(temp.root)).filter((entry) => entry.includes(".clio-"))).toEqual([]);
  });
});

describe("backslashes", () => {
  it("refuses a path with `\\`, saying to write `/`, and writes nothing", async () => {
    for (const input of ["..\\secret.txt", "src\\main.ts"]) {
      await expect(files.write(input, "x"), input).rejects.toMatchObject({ code: "invalid_argument", hint: expect.stringContaining("/") });
    }
    expect(await fs.readdir(temp.root)).toEqual(["a.txt"]);
  });
});
