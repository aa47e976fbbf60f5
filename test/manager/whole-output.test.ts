/** Long command output is never lost: what the model does not read is kept whole under .clio/outputs. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { scriptSubmissions } from "../../src/replay/replay.js";
import { createRuntime, type Runtime } from "../../src/runtime.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let runtime: Runtime;
beforeEach(async () => {
  folder = await temporaryFolder();
  runtime = await createRuntime({ workspace: folder.path, permissionMode: "yolo" });
});
afterEach(async () => {
  await runtime.manager.dispose();
  await folder.remove();
});

const run = async (text: string) => (await runtime.manager.runAll(scriptSubmissions(text).submissions))[0]!;
const expected = Array.from({ length: 30_000 }, (_, index) => index + 1).join("\n");

describe("whole outputs", () => {
  it("keeps the whole output of a command EXEC shortened, and says how to read it", async () => {
    const result = await run('[EXEC:action=run:command="seq 1 30000"]');
    expect(result.ok).toBe(true);
    expect(result.output).toContain("characters omitted");
    expect(result.output).toMatch(/the whole output \([\d,]+ characters\) is in \.clio\/outputs\/\S+\.txt — read it with FILE_OP action=read/);
    const kept = await readFile(path.join(folder.path, result.fullOutputPath!), "utf8");
    expect(kept).toContain(`--- stdout ---\n${expected}`);
  });

  it("keeps it for a failing command too, whose output the model reads in the error", async () => {
    const result = await run('[EXEC:action=run:command="seq 1 30000; exit 2"]');
    expect(result.error?.code).toBe("exec_failed");
    expect(result.error?.message).toContain("exited with code 2");
    expect(result.error?.message).toMatch(/the whole output .* is in \.clio\/outputs\//);
    expect(await readFile(path.join(folder.path, result.fullOutputPath!), "utf8")).toContain(expected);
  });
});
