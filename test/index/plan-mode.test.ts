/**
 * Plan mode writes nothing in the workspace: RAG builds its index in memory (and writes it at
 * the first update after plan mode ends), and a cut output is not kept in .clio/outputs.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scriptSubmissions } from "../../src/replay/replay.js";
import { createRuntime } from "../../src/runtime.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
beforeEach(async () => {
  folder = await temporaryFolder();
  await writeFile(path.join(folder.path, "parser.ts"), "export function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n");
  await writeFile(path.join(folder.path, "big.txt"), `${"line of text\n".repeat(5000)}`);
});
afterEach(async () => {
  await folder.remove();
});

describe("plan mode", () => {
  it("indexes and searches in memory, writing nothing; the index is written once plan mode ends", async () => {
    const runtime = await createRuntime({ workspace: folder.path, permissionMode: "plan", env: {}, outputLimit: 500 });
    try {
      const run = async (text: string) => (await runtime.manager.runAll(scriptSubmissions(text).submissions))[0]!;
      expect((await run("[RAG:action=index]")).ok).toBe(true);
      const found = await run('[RAG:action=search:query="parseConfig"]');
      expect(found.output).toContain("parser.ts");
      const cut = await run('[FILE_OP:action=read:path="big.txt"]');
      expect(cut.truncated).toBe(true);
      expect(existsSync(path.join(folder.path, ".clio"))).toBe(false);

      runtime.permissions.mode = "ask";
      expect((await run("[RAG:action=index]")).ok).toBe(true);
      expect(existsSync(path.join(folder.path, ".clio", "index"))).toBe(true);
    } finally {
      await runtime.manager.dispose();
    }
    const again = await createRuntime({ workspace: folder.path, permissionMode: "plan", env: {} });
    try {
      const found = (await again.manager.runAll(scriptSubmissions('[RAG:action=search:query="parseConfig"]').submissions))[0]!;
      expect(found.output).toContain("parser.ts");
    } finally {
      await again.manager.dispose();
    }
  });
});
