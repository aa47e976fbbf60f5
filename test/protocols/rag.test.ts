import { cp, mkdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRagProtocol } from "../../protocols/rag.js";
import type { ProtocolEnvironment } from "../../protocols/contract/protocol.js";
import type { IndexProgress } from "../../tools/index/code-index.js";
import { Workspace } from "../../tools/workspace.js";
import { environmentFor, invoke } from "./invoke.js";
import { temporaryFolder } from "../support/workspace.js";

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/retrieval/repo");
let folder: { path: string; remove(): Promise<void> };
let environment: ProtocolEnvironment;
const progress: IndexProgress[] = [];
const rag = createRagProtocol({ onProgress: (event) => progress.push(event) });
const state = rag.setup!({} as ProtocolEnvironment) as never;
const call = (action: string, raw: Record<string, string>) => invoke(rag, action, raw, { environment, state });

beforeAll(async () => {
  folder = await temporaryFolder("clio-rag-");
  await cp(fixture, folder.path, { recursive: true });
  environment = environmentFor(await Workspace.open(folder.path));
});
afterAll(() => folder.remove());

describe("RAG protocol", () => {
  it("classifies every action as read: none changes a user file", () => {
    expect(Object.values(rag.actions).map((action) => action.permission)).toEqual(["read", "read", "read", "read"]);
  });

  it("search builds the index on first use and answers with file:line ranges, symbols and numbered snippets", async () => {
    const result = await call("search", { query: "token bucket rate limiting" });
    expect(result.output).toMatch(/^\(Built the index first: 61 files/);
    expect(result.output).toContain("services/api/src/middleware/rateLimit.ts:");
    expect(result.output).toMatch(/\d+│/);
    expect(result.before).toBe('Searching the code for "token bucket rate limiting"');
    expect(progress.length).toBeGreaterThan(0);
  });

  it("index reports counts and what it skipped, and re-reads nothing when nothing changed", async () => {
    await writeFile(path.join(folder.path, "blob.bin"), Buffer.from([1, 0, 2, 0]));
    await writeFile(path.join(folder.path, "native/src/extra.c"), "int extra_function(void)\n{\n  return 2;\n}\n");
    const result = await call("index", {});
    expect(result.output).toContain("1 read");
    expect(result.output).toContain("Skipped: 1 skipped (1 binary)");
    expect(result.output).toContain("blob.bin: binary");
    const again = await call("index", {});
    expect(again.output).toContain("(0 read, 62 unchanged, 0 removed)");
    expect(again.output).toContain("blob.bin: binary");
    expect((again.data as { skipped: Array<{ path: string; detail?: string }> }).skipped[0]?.detail).toContain("unchanged");
  });

  it("search sees a file changed after the refresh interval without an explicit index", async () => {
    let now = 0;
    const fresh = createRagProtocol({ refreshIntervalMs: 1000 });
    const freshState = fresh.setup!({} as ProtocolEnvironment) as never;
    const clocked = { ...environment, now: () => now };
    const search = (query: string) => invoke(fresh, "search", { query }, { environment: clocked, state: freshState });
    await search("ring buffer");
    await writeFile(path.join(folder.path, "native/src/late.c"), "int pelican_flamingo(void)\n{\n  return 3;\n}\n");
    expect((await search("pelican flamingo")).output).toMatch(/^No code matches/);
    now = 1500;
    expect((await search("pelican flamingo")).output).toContain("native/src/late.c:1-4  pelican_flamingo");
  });

  it("refuses to index a path outside the workspace, or one that does not exist", async () => {
    await expect(call("index", { path: "../elsewhere" })).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(call("index", { path: "/etc" })).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(call("index", { path: "no/such/folder" })).rejects.toMatchObject({ code: "not_found" });
    await expect(call("search", { query: "x", path: "../../etc" })).rejects.toMatchObject({ code: "outside_workspace" });
  });

  it("rejects an empty query and shortens a 10,000-character one, saying so", async () => {
    await expect(call("search", { query: "   " })).rejects.toMatchObject({ code: "invalid_argument", message: "The search query is empty." });
    const words = "checksum crc32 table polynomial ".repeat(10);
    const long = (words + Array.from({ length: 2000 }, (_, index) => `word${index}`).join(" ")).slice(0, 10_000);
    expect(long).toHaveLength(10_000);
    const result = await call("search", { query: long });
    expect(result.output).toMatch(/most distinctive were used/);
  });

  it("analyze lists languages, entry points, test folders and folder dependencies", async () => {
    const { output, data } = await call("analyze", {});
    expect(output).toContain("typescript:");
    expect(output).toContain("python:");
    const analysis = data as { entryPoints: Array<{ path: string }>; testFolders: Array<{ folder: string }>; folderDependencies: Array<{ from: string; to: string }> };
    expect(analysis.entryPoints.map((entry) => entry.path)).toEqual(
      expect.arrayContaining([
        "services/api/src/index.ts",
        "services/gateway/main.go",
        "services/recommender/recommender/api.py",
        "native/src/main.c",
        "libs/textsearch/src/main.rs",
      ]),
    );
    expect(analysis.testFolders.map((entry) => entry.folder)).toEqual(expect.arrayContaining(["services/api/test", "services/recommender/tests", "services/billing/src/test"]));
    expect(analysis.folderDependencies).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ from: "services/api/src", to: "services/api/src/lib" }),
        expect.objectContaining({ from: "services/gateway", to: "services/gateway/proxy" }),
      ]),
    );
    const scoped = await call("analyze", { path: "native" });
    expect(scoped.output).toMatch(/^native: \d+ files/);
  });

  it("explain shows a symbol's definition, usages, imports and importers within context_size", async () => {
    const { output } = await call("explain", { query: "verifyToken", context_size: "6" });
    expect(output).toContain("function verifyToken — services/api/src/lib/jwt.ts:");
    expect(output).toMatch(/more lines \(raise context_size/);
    expect(output).toMatch(/services\/api\/src\/middleware\/auth\.ts:\d+: .*verifyToken/);
    expect(output).toContain("Imported by: services/api/src/middleware/auth.ts");
  });

  it("explain of a file shows its outline, and of words the best match", async () => {
    const file = await call("explain", { path: "native/src/arena.c", context_size: "10" });
    expect(file.output).toContain("File native/src/arena.c");
    expect(file.output).toContain("function arena_alloc");
    const words = await call("explain", { query: "exponential backoff with jitter" });
    expect(words.output).toContain("services/gateway/retry/backoff.go");
    await expect(call("explain", {})).rejects.toMatchObject({ code: "invalid_argument" });
  });
});

describe("RAG actions that run together", () => {
  it("share one index: a search started beside an index action finds what the index holds", async () => {
    const { parse } = await import("../../grammar/index.js");
    const { createRuntime } = await import("../../src/runtime.js");
    const { ProtocolRegistry } = await import("../../src/registry.js");
    const together = await temporaryFolder("clio-rag-together-");
    try {
      await cp(fixture, together.path, { recursive: true });
      const runtime = await createRuntime({ workspace: together.path, permissionMode: "plan", registry: new ProtocolRegistry([createRagProtocol()]) });
      const commands = parse('[RAG:action=index] [RAG:action=search:query="token bucket rate limiting"] [RAG:action=search:query="rateLimit"]').commands;
      const results = await runtime.manager.runAll(commands.map((command) => ({ command })));
      await runtime.manager.dispose();
      expect(results.map((result) => result.ok)).toEqual([true, true, true]);
      expect(results[1]!.output).toContain("services/api/src/middleware/rateLimit.ts:");
      expect(results[2]!.output).toContain("rateLimit");
    } finally {
      await together.remove();
    }
  });
});

describe("a one-off RAG read (a new protocol and state each time, as in a fresh process)", () => {
  it("answers from the files as they are: an edit in place of the same size, a removed file and a new file (find reports what changed since the last check)", async () => {
    const oneOff = await temporaryFolder("clio-rag-one-off-");
    try {
      const write = (relative: string, text: string, mtime?: Date) =>
        writeFile(path.join(oneOff.path, relative), text).then(() => (mtime === undefined ? undefined : utimes(path.join(oneOff.path, relative), mtime, mtime)));
      const hourAgo = new Date(Date.now() - 3600_000);
      await mkdir(path.join(oneOff.path, "src"));
      await write("src/birds.ts", "export function pelicanWings(span: number) {\n  return span * 2;\n}\n", hourAgo);
      await write("src/fish.ts", "export function salmonRun(days: number) {\n  return days + 1;\n}\n", hourAgo);
      const fresh = { ...environmentFor(await Workspace.open(oneOff.path)), config: { RAG: { threadMinPaths: 0 } } };
      const oneOffCall = (action: string, raw: Record<string, string>) => {
        const protocol = createRagProtocol();
        return invoke(protocol, action, raw, { environment: fresh, state: protocol.setup!({} as ProtocolEnvironment) as never });
      };
      await oneOffCall("index", {});
      await utimes(path.join(oneOff.path, "src"), hourAgo, hourAgo);
      await utimes(oneOff.path, hourAgo, hourAgo);
      // Once more with the folders aged: the listing it records is old enough to trust, so the next checks stat the files only.
      await oneOffCall("index", {});
      expect((await oneOffCall("search", { query: "pelican wings" })).output).toContain("src/birds.ts:1-3  pelicanWings");

      // Same size, mtime half an hour back: only the stat of the file sees the edit.
      const before = await stat(path.join(oneOff.path, "src/birds.ts"));
      await write("src/birds.ts", "export function condorWingsX(span: number) {\n  return span * 2;\n}\n", new Date(Date.now() - 1800_000));
      expect((await stat(path.join(oneOff.path, "src/birds.ts"))).size).toBe(before.size);
      const edited = await oneOffCall("search", { query: "condor wings" });
      expect(edited.output).toContain("src/birds.ts:1-3  condorWingsX");
      expect((await oneOffCall("search", { query: "pelican" })).output).toMatch(/^No code matches/);

      await rm(path.join(oneOff.path, "src/fish.ts"));
      expect((await oneOffCall("search", { query: "salmon run" })).output).toMatch(/^No code matches/);
      await write("src/newt.ts", "export const axolotlGills = 3;\n");
      expect((await oneOffCall("explain", { query: "axolotlGills" })).output).toContain("src/newt.ts");
    } finally {
      await oneOff.remove();
    }
  });
});
