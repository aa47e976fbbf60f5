import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileOpProtocol, fileOpProtocol } from "../../protocols/file-op.js";
import type { ProtocolEnvironment } from "../../protocols/contract/protocol.js";
import type { FileSystem } from "../../tools/files/index.js";
import { makeTempWorkspace, type TempWorkspace } from "../tools/temp.js";
import { checkArguments, environmentFor, invoke } from "./invoke.js";

let temp: TempWorkspace;
let environment: ProtocolEnvironment;
beforeEach(async () => {
  temp = await makeTempWorkspace();
  environment = environmentFor(temp.workspace);
});
afterEach(async () => {
  await temp.remove();
});

const run = (action: string, raw: Record<string, string>) => invoke(fileOpProtocol, action, raw, { environment });

describe("FILE_OP definition", () => {
  it("declares every action with a summary and the right permission class", () => {
    expect(fileOpProtocol.name).toBe("FILE_OP");
    const permissions = Object.fromEntries(Object.entries(fileOpProtocol.actions).map(([name, action]) => [name, action.permission]));
    expect(permissions).toEqual({ read: "read", write: "write", replace: "write", list: "read", search: "read", delete: "write", move: "write", copy: "write", info: "read" });
    for (const action of Object.values(fileOpProtocol.actions)) expect(action.summary.length).toBeGreaterThan(20);
  });

  it("takes paths, content and patterns as text, and flags and numbers as words", () => {
    const kinds = (action: string) => Object.fromEntries(Object.entries(fileOpProtocol.actions[action]!.parameters).map(([name, parameter]) => [name, parameter.kind]));
    expect(kinds("read")).toEqual({ path: "text", offset: "word", limit: "word" });
    expect(kinds("replace")).toEqual({ path: "text", old: "text", new: "text", all: "word" });
    expect(kinds("search")).toEqual({ pattern: "text", path: "text", content: "text" });
    expect(kinds("copy")).toEqual({ path: "text", to: "text", recursive: "word", overwrite: "word" });
  });

  it("checks arguments with its schemas", () => {
    expect(checkArguments(fileOpProtocol, "read", { path: "a.txt", offset: "3" })).toEqual({ path: "a.txt", offset: 3, limit: undefined });
    expect(checkArguments(fileOpProtocol, "replace", { path: "a", old: "x", new: "y", all: "yes" })).toMatchObject({ all: true });
    expect(() => checkArguments(fileOpProtocol, "read", { path: "a.txt", offset: "0" })).toThrow(/offset/);
    expect(() => checkArguments(fileOpProtocol, "read", { path: "a.txt", limit: "ten" })).toThrow(/whole number/);
    expect(() => checkArguments(fileOpProtocol, "delete", { path: "a", recursive: "maybe" })).toThrow(/true or false/);
    expect(() => checkArguments(fileOpProtocol, "write", { path: "a" })).toThrow(/content/);
  });
});

describe("FILE_OP actions", () => {
  it("read shows numbered lines and describes what it read", async () => {
    await temp.write("src/main.c", `${Array.from({ length: 12 }, (_, index) => `line ${index + 1}`).join("\n")}\n`);
    const result = await run("read", { path: "src/main.c" });
    expect(result.before).toBe("Reading src/main.c");
    expect(result.description).toBe("Read src/main.c (12 lines)");
    expect(result.output.split("\n")[0]).toBe(" 1│line 1");
    expect(result.output.split("\n")[11]).toBe("12│line 12");
    const window = await run("read", { path: "src/main.c", offset: "11", limit: "1" });
    expect(window.output).toBe("11│line 11\n(Showing lines up to 11 of 12. Read on with offset=12 (and limit=N for a window).)");
    expect(window.description).toBe("Read src/main.c lines 11–11 of 12 lines");
  });

  it("read keeps one result under the manager's output cut and says where to go on", async () => {
    await temp.write("long.txt", Array.from({ length: 3000 }, (_, index) => `a fairly ordinary line of text, number ${index + 1}`).join("\n"));
    const result = await run("read", { path: "long.txt" });
    expect(result.output.length).toBeLessThan(20_000);
    const last = Number(/offset=(\d+)/.exec(result.output)![1]) - 1;
    expect(result.output).toContain(`${last}│a fairly ordinary line of text, number ${last}\n(Showing lines up to ${last} of 3,000 (the 15.6 KB limit of one read)`);
    expect(result.description).toBe(`Read long.txt lines 1–${last} of 3,000 lines`);
  });

  it("write reports created and overwritten files with line changes", async () => {
    const created = await run("write", { path: "src/app.ts", content: "a\nb\n" });
    expect(created).toMatchObject({ before: "Writing src/app.ts", description: "Created src/app.ts (+2)", output: "Created src/app.ts (2 lines, 4 B)." });
    const rewritten = await run("write", { path: "src/app.ts", content: "a\nc\nd\n" });
    expect(rewritten.description).toBe("Wrote src/app.ts (+2 −1)");
  });

  it("write leaves the old file and no temp file when the rename fails", async () => {
    await temp.write("keep.txt", "old\n");
    const failing: FileSystem = { ...fs, rename: () => Promise.reject(new Error("rename failed")) };
    await expect(invoke(createFileOpProtocol({ fileSystem: failing }), "write", { path: "keep.txt", content: "new\n" }, { environment })).rejects.toThrow("rename failed");
    expect(await temp.read("keep.txt")).toBe("old\n");
    expect(await fs.readdir(temp.root)).toEqual(["keep.txt"]);
  });

  it("replace edits one match and explains ambiguity", async () => {
    await temp.write("f.txt", "x = 1\ny = 1\n");
    await expect(run("replace", { path: "f.txt", old: "1", new: "2" })).rejects.toMatchObject({ code: "ambiguous_match" });
    const result = await run("replace", { path: "f.txt", old: "y = 1", new: "y = 2" });
    expect(result).toMatchObject({ output: "Replaced 1 match in f.txt at line 2: +1 −1 lines.", description: "Edited f.txt (+1 −1)" });
  });

  it("list and search show paths a model can use directly", async () => {
    await temp.write("src/a.ts", "// TODO one\n");
    await temp.write("src/b/c.ts", "ok\n");
    expect((await run("list", {})).output).toBe("src/");
    expect((await run("list", { path: "src", recursive: "true" })).output).toBe("src/a.ts\nsrc/b/\nsrc/b/c.ts");
    const found = await run("search", { pattern: "*.ts", content: "TODO" });
    expect(found).toMatchObject({ output: "src/a.ts:1: // TODO one", description: "Found 1 match for TODO in 1 file" });
    expect((await run("search", { pattern: "*.md" })).output).toBe("No files match **/*.md in the workspace.");
  });

  it("delete, move, copy and info do what they say", async () => {
    await temp.write("a.txt", "alpha\n");
    expect((await run("copy", { path: "a.txt", to: "b.txt" })).output).toBe("Copied a.txt to b.txt.");
    expect((await run("move", { path: "b.txt", to: "c/b.txt" })).output).toBe("Moved b.txt to c/b.txt.");
    expect((await run("info", { path: "c/b.txt" })).output).toMatch(/^path: c\/b\.txt\ntype: file\nsize: 6 bytes \(6 B\)\nmodified: .+Z\nmode: 0\d{3}\nlines: 1$/);
    expect((await run("delete", { path: "c", recursive: "true" })).output).toBe("Deleted c (folder with 1 file).");
    expect(await temp.exists("c")).toBe(false);
  });

  it("refuses escapes with a clear error and writes nothing", async () => {
    await fs.mkdir(path.join(temp.base, "outside"));
    await fs.writeFile(path.join(temp.base, "outside", "secret.txt"), "secret");
    await fs.symlink(path.join(temp.base, "outside"), path.join(temp.root, "up"));
    await expect(run("write", { path: "up/evil.txt", content: "x" })).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(run("copy", { path: "up", to: "x", recursive: "true" })).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(run("replace", { path: "up/secret.txt", old: "secret", new: "x" })).rejects.toMatchObject({ code: "outside_workspace" });
    expect(await fs.readdir(path.join(temp.base, "outside"))).toEqual(["secret.txt"]);
    expect((await fs.readdir(temp.root)).sort()).toEqual(["up"]);
  });
});

describe("FILE_OP under permission rules", () => {
  it("refuses every spelling of a denied path, and every path parameter, before anything is read or written", async () => {
    const { parse } = await import("../../grammar/index.js");
    const { createRuntime } = await import("../../src/runtime.js");
    const { ProtocolRegistry } = await import("../../src/registry.js");
    await temp.write("secrets/key", "TOP SECRET\n");
    await temp.write("note.txt", "a note\n");
    await fs.symlink("secrets", path.join(temp.root, "config"));
    const runtime = await createRuntime({
      workspace: temp.root,
      permissionMode: "yolo",
      rules: { deny: ["FILE_OP:*:secrets/*"] },
      registry: new ProtocolRegistry([fileOpProtocol]),
    });
    const writes = ["./secrets/key", "src/../secrets/key", "secrets//key", path.join(temp.root, "secrets", "key")];
    const text = [
      ...writes.map((spelling) => `[FILE_OP:action=write:path=${JSON.stringify(spelling)}:content="leaked"]`),
      `[FILE_OP:action=read:path=${JSON.stringify("a\\b/../secrets/key")}]`,
      '[FILE_OP:action=read:path="config/key"]',
      '[FILE_OP:action=copy:path="config/key":to="public.txt"]',
      '[FILE_OP:action=move:path="note.txt":to="secrets/key":overwrite=true]',
      '[FILE_OP:action=search:pattern="*":path="secrets":content="SECRET"]',
    ].join("\n");
    const results = await runtime.manager.runAll(parse(text).commands.map((command) => ({ command })));
    await runtime.manager.dispose();
    expect(results.map((result) => result.error?.code)).toEqual(results.map(() => "permission_denied"));
    expect(results).toHaveLength(writes.length + 5);
    expect(await temp.read("secrets/key")).toBe("TOP SECRET\n");
    expect(await temp.exists("public.txt")).toBe(false);
    expect(await temp.read("note.txt")).toBe("a note\n");
  });
});
