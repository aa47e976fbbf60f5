/**
 * "Always" covers what was approved and no more, through the real manager and protocols:
 * after "always" for one command line, another command of the same program (or the same line
 * with a chained command) is asked about; after "always" for writing a file, another file is too.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PermissionAnswer, PermissionRequest } from "../../src/manager/permissions.js";
import { scriptSubmissions } from "../../src/replay/replay.js";
import { createRuntime } from "../../src/runtime.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let outside: Awaited<ReturnType<typeof temporaryFolder>>;
beforeEach(async () => {
  folder = await temporaryFolder();
  outside = await temporaryFolder();
});
afterEach(async () => {
  await folder.remove();
  await outside.remove();
});

/** Answers "always" to the first question and "no" to every later one, recording what was asked. */
async function runAll(text: string) {
  const asked: string[] = [];
  const asker = async (request: PermissionRequest): Promise<PermissionAnswer> => (asked.push(`${request.subject} | ${request.alwaysCovers}`), asked.length === 1 ? "always" : "no");
  const runtime = await createRuntime({ workspace: folder.path, permissionMode: "ask", asker, env: { PATH: process.env.PATH }, protocolConfig: { EXEC: { sandbox: false } } });
  try {
    const results = await runtime.manager.runAll(scriptSubmissions(text).submissions);
    return { results: results.map((result) => result.ok), asked };
  } finally {
    await runtime.manager.dispose();
  }
}

describe("answering always", () => {
  it("for EXEC covers exactly that command line", async () => {
    const marker = path.join(outside.path, "file");
    const { results, asked } = await runAll(
      `[EXEC:action=run:command="echo hello"] [EXEC:action=run:command="echo hello"] [EXEC:action=run:command="echo --version; touch ${marker}"] [EXEC:action=run:command="echo hello; touch ${marker}"]`,
    );
    expect(results).toEqual([true, true, false, false]);
    expect(asked).toHaveLength(3);
    expect(asked[0]).toBe("echo hello | EXEC.run of exactly this command line");
    expect(existsSync(marker)).toBe(false);
  });

  it("for a write covers that file only", async () => {
    const { results, asked } = await runAll(
      '[FILE_OP:action=write:path="a.txt":content="1"] [FILE_OP:action=write:path="./a.txt":content="2"] [FILE_OP:action=write:path="b.txt":content="3"]',
    );
    expect(results).toEqual([true, true, false]);
    expect(asked).toEqual(["a.txt | FILE_OP.write of a.txt only", "b.txt | FILE_OP.write of b.txt only"]);
  });
});
