import { mkdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { memoryProtocol } from "../../protocols/memory.js";
import type { ProtocolEnvironment } from "../../protocols/contract/protocol.js";
import type { MemoryStore } from "../../tools/memory/store.js";
import { Workspace } from "../../tools/workspace.js";
import { environmentFor, invoke } from "./invoke.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: { path: string; remove(): Promise<void> };
let environment: ProtocolEnvironment;
let state: MemoryStore;
const call = (action: string, raw: Record<string, string>) => invoke(memoryProtocol, action, raw, { environment, state });

beforeEach(async () => {
  folder = await temporaryFolder("clio-memory-protocol-");
  await mkdir(path.join(folder.path, "workspace"));
  environment = environmentFor(await Workspace.open(path.join(folder.path, "workspace")), { CLIO_HOME: path.join(folder.path, "home") });
  state = (await memoryProtocol.setup!(environment)) as MemoryStore;
});
afterEach(() => folder.remove());

describe("MEMORY protocol", () => {
  it("classifies retrieve, search and list as read; store and forget as write", () => {
    expect(Object.fromEntries(Object.entries(memoryProtocol.actions).map(([name, action]) => [name, action.permission]))).toEqual({
      store: "write",
      retrieve: "read",
      search: "read",
      forget: "write",
      list: "read",
    });
  });

  it("stores with tags and metadata, retrieves, searches, lists and forgets", async () => {
    const stored = await call("store", { key: "test-command", value: "npm test -- --run", tags: "build,ci", metadata: '{"source":"package.json"}' });
    expect(stored.output).toBe("Stored project memory test-command [build, ci] (17 characters).");
    expect(stored.before).toBe("Remembering test-command");
    await call("store", { key: "editor", value: "two-space indents", scope: "global" });
    const retrieved = await call("retrieve", { key: "test-command" });
    expect(retrieved.output).toMatch(/^test-command \[build, ci\] \(project, updated .+\)\nnpm test -- --run\nmetadata: \{"source":"package.json"\}$/);
    expect((await call("search", { query: "indents" })).output).toMatch(/^1\. editor \(global, updated .+\): two-space indents$/);
    expect((await call("list", { tag: "ci" })).output).toMatch(/^test-command \[build, ci\]/);
    expect((await call("forget", { key: "editor" })).output).toBe("Forgot editor (global).");
    expect((await call("list", {})).output.split("\n")).toHaveLength(1);
  });

  it("lists at most 100 memories, saying how many more there are", async () => {
    for (let index = 0; index < 103; index++) await state.store({ key: `note-${index}`, value: `note number ${index}` });
    const lines = (await call("list", {})).output.split("\n");
    expect(lines).toHaveLength(101);
    expect(lines[100]).toBe("(… 3 more memories; narrow the list with tag or scope, or use search.)");
  });

  it("says what is missing, with close keys", async () => {
    await call("store", { key: "deploy-steps", value: "make release" });
    await expect(call("retrieve", { key: "deploy" })).rejects.toMatchObject({ code: "not_found", hint: "Close keys: deploy-steps." });
    await expect(call("forget", { key: "nothing" })).rejects.toMatchObject({ code: "not_found" });
  });

  it("rejects metadata that is not JSON or not an object, and keys of 0 or 10,000 characters", async () => {
    await expect(call("store", { key: "k", value: "v", metadata: "{source: README}" })).rejects.toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("not valid JSON"),
    });
    await expect(call("store", { key: "k", value: "v", metadata: "[1, 2]" })).rejects.toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("expected a JSON object"),
    });
    await expect(call("store", { key: "", value: "v" })).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(call("store", { key: "x".repeat(10_000), value: "v" })).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(call("search", { query: "" })).rejects.toMatchObject({ code: "invalid_argument" });
    expect((await call("list", {})).output).toBe("No memories stored yet.");
  });
});
