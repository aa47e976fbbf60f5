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
  await temp.write(".gitignore", "node_modules/\n*.log\n!keep.log\n");
  await temp.write(".git/config", "[core]\n");
  await temp.write(".clio/outputs/cut.txt", "TODO kept by the manager\n");
  await temp.write("README.md", "# Project\nTODO: write docs\n");
  await temp.write("keep.log", "kept\n");
  await temp.write("debug.log", "ignored\n");
  await temp.write("node_modules/lib/index.js", "module.exports = 1; // TODO\n");
  await temp.write("src/main.ts", "export function main() {\n  // TODO: parse\n}\n");
  await temp.write("src/.gitignore", "generated/\n");
  await temp.write("src/generated/out.ts", "// TODO generated\n");
  await temp.write("src/util/strings.ts", "export const todo = 'TODO';\n");
  await temp.write("src/logo.bin", Buffer.from([0, 1, 2, 84, 79, 68, 79]));
});
afterEach(async () => {
  await temp.remove();
});

const paths = (entries: Array<{ path: string }>) => entries.map((entry) => entry.path);

describe("FileTools.list", () => {
  it("lists one folder, marking folders and hiding .git, .clio and ignored entries", async () => {
    const result = await files.list();
    expect(paths(result.entries)).toEqual([".gitignore", "README.md", "keep.log", "src/"]);
    expect(result.truncated).toBe(false);
  });

  it("lists a tree recursively with nested .gitignore files", async () => {
    const result = await files.list("src", { recursive: true });
    expect(paths(result.entries)).toEqual(["src/.gitignore", "src/logo.bin", "src/main.ts", "src/util/", "src/util/strings.ts"]);
  });

  it("shows symlinks with their target without following them", async () => {
    await fs.symlink("src", path.join(temp.root, "alias"));
    const result = await files.list(".");
    expect(result.entries.find((entry) => entry.path === "alias")).toEqual({ path: "alias", kind: "symlink", linkTarget: "src" });
  });

  it("lists an ignored folder's contents when asked for it by name", async () => {
    const result = await files.list("node_modules", { recursive: true });
    expect(result.ignoredFolder).toBe(true);
    expect(paths(result.entries)).toEqual(["node_modules/lib/", "node_modules/lib/index.js"]);
  });

  it("lists clio's own folder when asked for it by name", async () => {
    expect(paths((await files.list(".clio", { recursive: true })).entries)).toEqual([".clio/outputs/", ".clio/outputs/cut.txt"]);
  });

  it("stops at the limit and says so", async () => {
    for (let index = 0; index < 30; index++) await temp.write(`many/f${index}.txt`, "x");
    const result = await files.list("many", { limit: 10 });
    expect(result.entries).toHaveLength(10);
    expect(result.truncated).toBe(true);
  });

  it("refuses files, missing folders and escapes", async () => {
    await expect(files.list("README.md")).rejects.toMatchObject({ code: "not_a_directory" });
    await expect(files.list("nope")).rejects.toMatchObject({ code: "not_found" });
    await expect(files.list("..")).rejects.toMatchObject({ code: "outside_workspace" });
  });
});

describe("FileTools.search", () => {
  it("matches a glob without a slash at any depth, respecting .gitignore", async () => {
    const result = await files.search("*.ts");
    expect(result.files).toEqual(["src/main.ts", "src/util/strings.ts"]);
    expect(result.glob).toBe("**/*.ts");
  });

  it("searches within a folder with a glob that has a slash", async () => {
    expect((await files.search("util/*.ts", { folder: "src" })).files).toEqual(["src/util/strings.ts"]);
  });

  it("finds lines by regular expression as path, line and text, skipping binaries", async () => {
    const result = await files.search("*", { content: "TODO\\b" });
    expect(result.hits).toEqual([
      { path: "README.md", line: 2, text: "TODO: write docs" },
      { path: "src/main.ts", line: 2, text: "  // TODO: parse" },
      { path: "src/util/strings.ts", line: 1, text: "export const todo = 'TODO';" },
    ]);
    expect(result.files).toEqual(["README.md", "src/main.ts", "src/util/strings.ts"]);
    expect(result.skipped.binary).toBe(1);
  });

  it("makes a content pattern case-insensitive with (?i)", async () => {
    const result = await files.search("*.ts", { content: "(?i)const todo" });
    expect(result.hits?.map((hit) => hit.path)).toEqual(["src/util/strings.ts"]);
  });

  it("caps hits and says so", async () => {
    await temp.write("many.txt", "hit\n".repeat(500));
    const result = await files.search("many.txt", { content: "hit" });
    expect(result.hits).toHaveLength(200);
    expect(result.truncated).toBe(true);
  });

  it("refuses an invalid regular expression and globs that leave the folder", async () => {
    await expect(files.search("*", { content: "(unclosed" })).rejects.toMatchObject({ code: "invalid_argument", message: expect.stringContaining("regular expression") });
    await expect(files.search("../*")).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(files.search("/etc/*")).rejects.toMatchObject({ code: "outside_workspace" });
  });
});
