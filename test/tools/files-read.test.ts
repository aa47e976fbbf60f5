import { execFileSync } from "node:child_process";
import { promises as fs, createWriteStream } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileTools, READ_MAX_BYTES } from "../../tools/files/index.js";
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

async function writeBig(relative: string, bytes: number, line: string): Promise<void> {
  const stream = createWriteStream(path.join(temp.root, relative));
  const block = Buffer.from(line.repeat(Math.ceil(65536 / line.length)));
  for (let written = 0; written < bytes; written += block.length) {
    if (!stream.write(block)) await new Promise<void>((resolve) => stream.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve) => stream.end(() => resolve()));
}

describe("FileTools.read", () => {
  it("reads a file the same whether it is small enough to read whole or read in windows", async () => {
    const line = "const value = 12345; // a line of code\n";
    const below = Math.floor((1024 * 1024) / line.length);
    await temp.write("whole.ts", line.repeat(below));
    await temp.write("windows.ts", line.repeat(below + 200));
    for (const options of [{}, { offset: 1000, limit: 5 }, { offset: below - 2, limit: 2 }]) {
      const whole = await files.read("whole.ts", options);
      const windowed = await files.read("windows.ts", options);
      expect({ ...windowed, relative: "whole.ts", totalLines: whole.totalLines, note: whole.note, size: whole.size, complete: whole.complete }).toEqual(whole);
      expect(windowed.totalLines).toBe(below + 200);
    }
  });

  it("closes the file and reports the failure when the whole-file read fails", async () => {
    await temp.write("a.txt", "text\n");
    const closed: number[] = [];
    const { closeSync, fstatSync, openSync, readlinkSync } = await import("node:fs");
    const failing = new FileTools(temp.workspace, undefined, {
      openSync,
      fstatSync,
      readlinkSync: (link) => readlinkSync(link),
      readSync: () => {
        throw Object.assign(new Error("EIO: i/o error, read"), { code: "EIO" });
      },
      closeSync: (descriptor: number) => {
        closed.push(descriptor);
        closeSync(descriptor);
      },
    });
    await expect(failing.read("a.txt")).rejects.toThrow(/i\/o error/);
    expect(closed).toHaveLength(1);
  });

  it("returns every line of a small text file, with its total", async () => {
    await temp.write("src/main.c", "int main() {\r\n  return 0;\r\n}\n");
    const result = await files.read("src/main.c");
    expect(result).toMatchObject({ relative: "src/main.c", lines: ["int main() {", "  return 0;", "}"], firstLine: 1, totalLines: 3, complete: true });
    expect(result.note).toBeUndefined();
  });

  it("counts a last line without a line break, and an empty file as no lines", async () => {
    await temp.write("a.txt", "one\ntwo");
    await temp.write("empty.txt", "");
    expect((await files.read("a.txt")).totalLines).toBe(2);
    expect(await files.read("empty.txt")).toMatchObject({ lines: [], totalLines: 0, complete: true });
  });

  it("reads a window of lines with offset and limit, and says how to read on", async () => {
    await temp.write("n.txt", Array.from({ length: 100 }, (_, index) => `line ${index + 1}`).join("\n"));
    const result = await files.read("n.txt", { offset: 10, limit: 3 });
    expect(result).toMatchObject({ lines: ["line 10", "line 11", "line 12"], firstLine: 10, totalLines: 100, complete: false });
    expect(result.note).toContain("offset=13");
  });

  it("refuses an offset past the end", async () => {
    await temp.write("n.txt", "a\nb\n");
    await expect(files.read("n.txt", { offset: 5 })).rejects.toMatchObject({ code: "invalid_argument", message: expect.stringContaining("has 2 lines") });
  });

  it("refuses binary files with a type guess and size", async () => {
    await temp.write("logo.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0]));
    await temp.write("blob.bin", Buffer.from([1, 2, 3, 0, 4, 5]));
    await expect(files.read("logo.png")).rejects.toMatchObject({ code: "binary_file", message: expect.stringContaining("PNG image, 11 B") });
    await expect(files.read("blob.bin")).rejects.toMatchObject({ code: "binary_file", message: expect.stringContaining("binary data") });
  });

  it("windows a 50 MB file to the read budget instead of loading it", async () => {
    await writeBig("big.log", 50 * 1024 * 1024, "0123456789 abcdefghij 0123456789 abcdefghij 0123456789 abcdefghij\n");
    const result = await files.read("big.log");
    const shown = result.lines.reduce((sum, line) => sum + line.length + 1, 0);
    expect(shown).toBeLessThanOrEqual(READ_MAX_BYTES + 200);
    expect(result.complete).toBe(false);
    expect(result.totalLines).toBeGreaterThan(700_000);
    expect(result.note).toMatch(/256\.0 KB limit.*offset=\d+/);
    const later = await files.read("big.log", { offset: 500_000, limit: 2 });
    expect(later.lines).toHaveLength(2);
    expect(later.firstLine).toBe(500_000);
  });

  it("cuts a huge single line instead of holding it", async () => {
    await writeBig("minified.js", 8 * 1024 * 1024, "x");
    const result = await files.read("minified.js");
    expect(result.lines).toHaveLength(1);
    expect(result.lines[0]!.length).toBeLessThan(5000);
    expect(result.lines[0]).toMatch(/line cut: \d+ more bytes/);
  });

  it("refuses directories, FIFOs and device files without blocking", async () => {
    await fs.mkdir(path.join(temp.root, "folder"));
    execFileSync("mkfifo", [path.join(temp.root, "pipe")]);
    await fs.symlink("/dev/null", path.join(temp.root, "null"));
    await expect(files.read("folder")).rejects.toMatchObject({ code: "not_a_file", message: expect.stringContaining("is a directory") });
    await expect(files.read("pipe")).rejects.toMatchObject({ code: "not_a_file", message: expect.stringContaining("named pipe") });
    await expect(files.read("null")).rejects.toMatchObject({ code: "outside_workspace" });
    if (makeNullDevice(path.join(temp.root, "device"))) {
      await expect(files.read("device")).rejects.toMatchObject({ code: "not_a_file", message: expect.stringContaining("character device") });
    }
    await expect(files.read("missing.txt")).rejects.toMatchObject({ code: "not_found" });
  });

  it("refuses reads that escape the workspace", async () => {
    await fs.writeFile(path.join(temp.base, "secret.txt"), "secret");
    await fs.symlink(path.join(temp.base, "secret.txt"), path.join(temp.root, "leak"));
    await expect(files.read("../secret.txt")).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(files.read("leak")).rejects.toMatchObject({ code: "outside_workspace" });
  });
});

describe("FileTools.info", () => {
  it("reports size, type, modification time, mode and lines", async () => {
    const absolute = await temp.write("run.sh", "#!/bin/sh\necho hi\n");
    await fs.chmod(absolute, 0o755);
    const info = await files.info("run.sh");
    expect(info).toMatchObject({ relative: "run.sh", type: "file", size: 18, mode: "0755", lines: 2 });
    expect(new Date(info.modified).toISOString()).toBe(info.modified);
  });

  it("describes folders, binaries and symlinks", async () => {
    await temp.write("dir/a.bin", Buffer.from([0, 1, 2]));
    await fs.symlink("dir/a.bin", path.join(temp.root, "alias"));
    expect(await files.info("dir")).toMatchObject({ type: "directory" });
    const binary = await files.info("dir/a.bin");
    expect(binary).toMatchObject({ type: "file", binary: "binary data" });
    expect(binary.lines).toBeUndefined();
    expect(await files.info("alias")).toMatchObject({ type: "symbolic link to a file", linkTarget: "dir/a.bin", size: 3 });
  });

  it("describes a dangling symlink inside as a link to nothing, instead of saying it does not exist", async () => {
    await fs.symlink("gone.txt", path.join(temp.root, "dangling"));
    expect(await files.info("dangling")).toMatchObject({ type: "symbolic link to a missing path", linkTarget: "gone.txt" });
  });
});
