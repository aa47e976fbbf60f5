/**
 * Deny rules bind every way of reading: a path denied to FILE_OP (FILE_OP:*:secrets/*) is left
 * out of FILE_OP search and list from any folder, of the RAG index and all RAG results, and of
 * GIT diff content — through the real runtime, in yolo mode.
 */
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptSubmissions } from "../../src/replay/replay.js";
import { createRuntime, type Runtime } from "../../src/runtime.js";
import { temporaryFolder } from "../support/workspace.js";

const SECRET = "sk-live-secret-4242";
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let runtime: Runtime;
const git = (args: string[]) =>
  promisify(execFile)("git", args, {
    cwd: folder.path,
    env: {
      PATH: process.env.PATH,
      HOME: folder.path,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@e",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@e",
    },
  });

beforeAll(async () => {
  folder = await temporaryFolder();
  await mkdir(path.join(folder.path, "secrets/deeper"), { recursive: true });
  await mkdir(path.join(folder.path, "src"));
  await writeFile(path.join(folder.path, "secrets/api.ts"), `export const apiKey = "${SECRET}";\nexport function secretHandshake() { return apiKey; }\n`);
  await writeFile(path.join(folder.path, "secrets/deeper/more.ts"), `export const other = "${SECRET}";\n`);
  await writeFile(path.join(folder.path, "src/app.ts"), 'import { secretHandshake } from "../secrets/api";\nexport const app = secretHandshake;\n');
  await git(["init", "-q", "-b", "main"]);
  await git(["add", "-A"]);
  await git(["commit", "-q", "-m", "base"]);
  await writeFile(path.join(folder.path, "secrets/api.ts"), `export const apiKey = "${SECRET}-rotated";\n`);
  await writeFile(path.join(folder.path, "src/app.ts"), "export const app = 1;\n");
  runtime = await createRuntime({ workspace: folder.path, permissionMode: "yolo", rules: { deny: ["FILE_OP:*:secrets/*"] }, env: { PATH: process.env.PATH } });
});
afterAll(async () => {
  await runtime.manager.dispose();
  await folder.remove();
});

async function output(command: string): Promise<string> {
  const [result] = await runtime.manager.runAll(scriptSubmissions(command).submissions);
  return result!.ok ? result!.output : `ERROR ${result!.error!.code}: ${result!.error!.message}`;
}

describe("a deny rule on FILE_OP paths", () => {
  it("refuses reading the file itself (as before)", async () => {
    expect(await output('[FILE_OP:action=read:path="secrets/api.ts"]')).toMatch(/^ERROR permission_denied/);
  });

  it("leaves the files out of FILE_OP search by name and by content, from the root and from other folders", async () => {
    for (const command of [
      '[FILE_OP:action=search:pattern="**"]',
      '[FILE_OP:action=search:pattern="**":content="sk-live-[a-z]+-4242"]',
      '[FILE_OP:action=search:pattern="*.ts":path="."]',
      '[FILE_OP:action=search:pattern="**/more.ts":path="src/.."]',
    ]) {
      const text = await output(command);
      expect(text).not.toMatch(/^ERROR/);
      expect({ command, leaked: text.includes(SECRET) || text.includes("secrets/") }).toEqual({ command, leaked: false });
    }
    expect(await output('[FILE_OP:action=search:pattern="**"]')).toContain("src/app.ts");
  });

  it("leaves them out of FILE_OP list, recursive or not", async () => {
    for (const command of ['[FILE_OP:action=list:path="."]', '[FILE_OP:action=list:path=".":recursive=true]']) {
      expect(await output(command)).not.toContain("secrets");
    }
    expect(await output('[FILE_OP:action=list:path="secrets"]')).toMatch(/^ERROR permission_denied/);
  });

  it("leaves them out of the RAG index and every RAG result", async () => {
    await output("[RAG:action=index]");
    for (const command of [
      '[RAG:action=search:query="apiKey"]',
      '[RAG:action=search:query="secretHandshake"]',
      "[RAG:action=analyze]",
      '[RAG:action=explain:query="secretHandshake"]',
    ]) {
      const text = await output(command);
      // Every answer is a real answer: results without the file, or "nothing matches" (the definition is hidden).
      expect(text).toMatch(/^(?!ERROR)|^ERROR no_match/);
      expect({ command, leaked: text.includes(SECRET) || text.includes("secrets/api.ts") }).toEqual({ command, leaked: false });
    }
    expect(await output('[RAG:action=search:query="app"]')).toContain("src/app.ts");
    expect(await output('[RAG:action=explain:path="secrets/api.ts"]')).toMatch(/^ERROR permission_denied/);
  });

  it("shows a denied file's change in GIT diff without its content", async () => {
    const text = await output("[GIT:action=diff]");
    expect(text).not.toContain(SECRET);
    expect(text).toContain("diff --git a/secrets/api.ts b/secrets/api.ts\n(modified; content not shown: a deny rule keeps this file from being read)");
    expect(text).toContain("+export const app = 1;");
    expect(await output('[GIT:action=diff:from="HEAD"]')).not.toContain(SECRET);
  });
});

describe("without deny rules", () => {
  it("the workspace hides nothing, so the code index and walks ask of no path; with a rule that denies, it asks", async () => {
    const plain = await createRuntime({ workspace: folder.path, permissionMode: "yolo", env: { PATH: process.env.PATH } });
    try {
      expect(plain.environment.workspace.hidesAny).toBe(false);
      expect(plain.environment.workspace.isHidden("secrets/api.ts")).toBe(false);
    } finally {
      await plain.manager.dispose();
    }
    expect(runtime.environment.workspace.hidesAny).toBe(true);
    expect(runtime.environment.workspace.isHidden("secrets/api.ts")).toBe(true);
  });
});
