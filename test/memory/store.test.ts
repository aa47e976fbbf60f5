import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withFileLock } from "../../tools/lock-file.js";
import { MemoryStore, relevantMemories } from "../../tools/memory/store.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: { path: string; remove(): Promise<void> };
let workspaceRoot: string;
let home: string;
const open = () => new MemoryStore({ workspaceRoot, home });
const here = path.dirname(fileURLToPath(import.meta.url));

beforeEach(async () => {
  folder = await temporaryFolder("clio-memory-");
  workspaceRoot = path.join(folder.path, "workspace");
  home = path.join(folder.path, "home");
  await mkdir(workspaceRoot);
});
afterEach(() => folder.remove());

function runWriter(prefix: string, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(here, "writer-process.ts"), workspaceRoot, home, prefix, String(count)], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let errors = "";
    child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`writer ${prefix} exited ${code}: ${errors}`))));
  });
}

describe("MemoryStore", () => {
  it("treats keys named like Object's own properties as ordinary keys", async () => {
    const store = open();
    expect(await store.retrieve("constructor")).toBeUndefined();
    expect(await store.forget("toString")).toEqual({ removed: false });
    await store.store({ key: "__proto__", value: "a key like any other" });
    await store.store({ key: "constructor", value: "also a key" });
    await store.store({ key: "after", value: "still stored" });
    const reopened = open();
    expect((await reopened.list()).map((entry) => entry.key).sort()).toEqual(["__proto__", "after", "constructor"]);
    expect(await reopened.retrieve("__proto__")).toMatchObject({ value: "a key like any other" });
    expect(Object.keys(JSON.parse(await readFile(path.join(workspaceRoot, ".clio/memory.json"), "utf8")).entries).sort()).toEqual(["__proto__", "after", "constructor"]);
    expect(await reopened.forget("__proto__")).toEqual({ removed: true, scope: "project" });
    expect(await reopened.retrieve("__proto__")).toBeUndefined();
  });

  it("keeps project memories in .clio/memory.json and global ones under CLIO_HOME", async () => {
    const store = open();
    await store.store({ key: "test-command", value: "npm test", tags: "build, CI" });
    await store.store({ key: "editor", value: "prefers two-space indents", scope: "global" });
    const project = JSON.parse(await readFile(path.join(workspaceRoot, ".clio/memory.json"), "utf8"));
    expect(project.entries["test-command"]).toMatchObject({ value: "npm test", tags: ["build", "ci"] });
    const global = JSON.parse(await readFile(path.join(home, "memory.json"), "utf8"));
    expect(Object.keys(global.entries)).toEqual(["editor"]);
    const reopened = open();
    expect(await reopened.retrieve("editor")).toMatchObject({ scope: "global", value: "prefers two-space indents" });
    expect((await reopened.list({ tag: "ci" })).map((entry) => entry.key)).toEqual(["test-command"]);
  });

  it("replaces a value under the same key, keeping its creation time", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const store = new MemoryStore({ workspaceRoot, home, now: () => now });
    expect((await store.store({ key: "port", value: "3000" })).created).toBe(true);
    now += 60_000;
    const second = await store.store({ key: "port", value: "8080" });
    expect(second).toMatchObject({ created: false, entry: { value: "8080", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:01:00.000Z" } });
  });

  it("searches by key, tags and value, best first, and forgets", async () => {
    const store = open();
    await store.store({ key: "deploy-steps", value: "run make release then push the tag" });
    await store.store({ key: "database", value: "postgres on port 5432", tags: "deploy" });
    await store.store({ key: "lint", value: "eslint with the deploy config is not used" });
    const hits = await store.search("deploy");
    expect(hits.map((hit) => hit.entry.key)).toEqual(["deploy-steps", "database", "lint"]);
    expect((await store.search("postgres port")).map((hit) => hit.entry.key)[0]).toBe("database");
    expect(await store.forget("database")).toEqual({ removed: true, scope: "project" });
    expect(await store.retrieve("database")).toBeUndefined();
    expect(await store.forget("database")).toEqual({ removed: false });
  });

  it("writes atomically: every write replaces the file by rename and leaves no temporary file", async () => {
    const store = open();
    const file = path.join(workspaceRoot, ".clio/memory.json");
    await store.store({ key: "a", value: "1" });
    const first = await stat(file);
    await store.store({ key: "b", value: "2" });
    const second = await stat(file);
    expect(second.ino).not.toBe(first.ino);
    expect((await readdir(path.dirname(file))).sort()).toEqual([".gitignore", "memory.json"]);
  });

  it("loses nothing when two processes store 200 memories each at the same time", async () => {
    await Promise.all([runWriter("left", 200), runWriter("right", 200)]);
    const entries = await open().list();
    expect(entries).toHaveLength(400);
    expect(entries.filter((entry) => entry.key.startsWith("left-"))).toHaveLength(200);
    expect(entries.filter((entry) => entry.key.startsWith("right-"))).toHaveLength(200);
  }, 60_000);

  it("makes the folder again when it was removed between two stores", async () => {
    const store = open();
    await store.store({ key: "first", value: "one" });
    await rm(path.join(workspaceRoot, ".clio"), { recursive: true });
    await store.store({ key: "second", value: "two" });
    const text = await readFile(path.join(workspaceRoot, ".clio/memory.json"), "utf8");
    expect(Object.keys(JSON.parse(text).entries)).toEqual(["second"]);
    expect(text).toBe(JSON.stringify(JSON.parse(text)));
    expect(await readdir(path.join(workspaceRoot, ".clio"))).toContain(".gitignore");
  });

  it("sees what another process wrote without being reopened", async () => {
    const store = open();
    await store.store({ key: "mine", value: "here" });
    expect(await store.search("value")).toEqual([]);
    await runWriter("other", 3);
    expect((await store.list()).map((entry) => entry.key).sort()).toEqual(["mine", "other-0", "other-1", "other-2"]);
    expect((await store.search("value other")).length).toBe(3);
  }, 30_000);

  it("moves a file truncated mid-write aside, names it in the error, and never writes over it", async () => {
    const store = open();
    await store.store({ key: "keep", value: "precious" });
    const file = path.join(workspaceRoot, ".clio/memory.json");
    const whole = await readFile(file, "utf8");
    await writeFile(file, whole.slice(0, Math.floor(whole.length / 2)));
    const damaged = await readFile(file, "utf8");
    const error = await store.store({ key: "new", value: "x" }).then(
      () => ({ code: "none", message: "" }),
      (caught: unknown) => caught as { code: string; message: string },
    );
    expect(error).toMatchObject({ code: "corrupt_file" });
    const aside = /moved to (\S+memory\.json\.corrupt-[\w-]+)/.exec(error.message)?.[1];
    expect(aside).toBeDefined();
    expect(await readFile(aside!, "utf8")).toBe(damaged);
    await expect(stat(file)).rejects.toMatchObject({ code: "ENOENT" });
    await store.store({ key: "new", value: "x" });
    expect((await open().list()).map((entry) => entry.key)).toEqual(["new"]);
  });

  it("moves aside a file whose entries are not memories (hand-edited), naming it, instead of failing on every read", async () => {
    const file = path.join(workspaceRoot, ".clio/memory.json");
    await mkdir(path.dirname(file), { recursive: true });
    const damaged = '{"version":1,"entries":{"a":null,"b":{"value":3}}}';
    await writeFile(file, damaged);
    const error = await open()
      .list()
      .then(
        () => ({ code: "none", message: "" }),
        (caught: unknown) => caught as { code: string; message: string },
      );
    expect(error).toMatchObject({ code: "corrupt_file", message: expect.stringContaining('entry "a" is not a memory') });
    const aside = /moved to (\S+memory\.json\.corrupt-[\w-]+)/.exec(error.message)?.[1];
    expect(await readFile(aside!, "utf8")).toBe(damaged);
    expect(await open().list()).toEqual([]);
  });

  it("calls a file without a format version damaged, not newer, and moves it aside", async () => {
    const file = path.join(workspaceRoot, ".clio/memory.json");
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '{"entries":{}}');
    await expect(open().list()).rejects.toMatchObject({ code: "corrupt_file", message: expect.stringMatching(/damaged \(it has no format version\); it was moved to /) });
    expect(await open().list()).toEqual([]);
  });

  it("refuses a file from a newer clio without moving it", async () => {
    const file = path.join(workspaceRoot, ".clio/memory.json");
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '{"version":99,"entries":{}}');
    await expect(open().list()).rejects.toMatchObject({ code: "corrupt_file", message: expect.stringContaining("format version 99, newer") });
    expect(await readFile(file, "utf8")).toBe('{"version":99,"entries":{}}');
  });

  it("says which path is in the way when a folder stands where the memory file goes, or a file where its folder goes", async () => {
    const file = path.join(workspaceRoot, ".clio/memory.json");
    await mkdir(file, { recursive: true });
    await expect(open().list()).rejects.toMatchObject({ code: "not_a_file", message: expect.stringContaining(file) });
    await expect(open().store({ key: "k", value: "v" })).rejects.toMatchObject({ code: "not_a_file", message: expect.stringContaining(file) });
    const otherRoot = path.join(folder.path, "other");
    await mkdir(otherRoot);
    await writeFile(path.join(otherRoot, ".clio"), "a file, not a folder");
    const blocked = new MemoryStore({ workspaceRoot: otherRoot, home });
    await expect(blocked.list()).rejects.toMatchObject({ code: "not_a_directory", message: expect.stringContaining(path.join(otherRoot, ".clio")) });
    await expect(blocked.store({ key: "k", value: "v" })).rejects.toMatchObject({ code: "not_a_directory" });
  });

  it("refuses keys of 0 or 10,000 characters, empty values and metadata that is not an object", async () => {
    const store = open();
    await expect(store.store({ key: "", value: "x" })).rejects.toMatchObject({ code: "invalid_argument", message: "The memory key is empty." });
    await expect(store.store({ key: "k".repeat(10_000), value: "x" })).rejects.toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("10000 characters long"),
    });
    await expect(store.store({ key: "a\nb", value: "x" })).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(store.store({ key: "k", value: "  " })).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(store.store({ key: "k", value: "x", metadata: [1] as never })).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(store.search("")).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(stat(path.join(workspaceRoot, ".clio/memory.json"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("gives the most relevant memories that fit a token budget", async () => {
    const store = open();
    await store.store({ key: "test-command", value: "run the tests with npm test -- --run", tags: "testing" });
    await store.store({ key: "style", value: "prefer small functions and spelled-out names" });
    await store.store({ key: "long-test-notes", value: `tests ${"are slow on CI ".repeat(100)}`, tags: "testing" });
    const picked = await relevantMemories(store, "how do I run the tests?", 30);
    expect(picked.entries.map((entry) => entry.key)).toEqual(["test-command"]);
    expect(picked.tokens).toBeLessThanOrEqual(30);
    expect(picked.text).toBe("- test-command [testing]: run the tests with npm test -- --run");
    const roomy = await relevantMemories(store, "how do I run the tests?", 10_000);
    expect(roomy.entries.map((entry) => entry.key).sort()).toEqual(["long-test-notes", "test-command"]);
  });
});

describe("file lock", () => {
  it("takes over a lock left by a process that no longer runs", async () => {
    const lock = path.join(folder.path, "x.lock");
    await writeFile(lock, JSON.stringify({ pid: 2 ** 22 + 12345, hostname: (await import("node:os")).hostname(), since: Date.now() }));
    await expect(withFileLock(lock, async () => "ran")).resolves.toBe("ran");
    await expect(stat(lock)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("waits for a live holder and gives up with `locked` after the timeout", async () => {
    const lock = path.join(folder.path, "y.lock");
    await writeFile(lock, JSON.stringify({ pid: process.ppid, hostname: (await import("node:os")).hostname(), since: Date.now() }));
    await expect(withFileLock(lock, async () => "ran", { timeoutMs: 100 })).rejects.toMatchObject({ code: "locked", message: expect.stringContaining(`process ${process.ppid}`) });
  });
});
