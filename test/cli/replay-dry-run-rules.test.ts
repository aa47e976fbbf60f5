/**
 * `clio replay --dry-run` plans with the same allow and deny rules as the run: for every
 * command, the plan says "run" exactly when the real run runs it.
 */
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { temporaryFolder } from "../support/workspace.js";
import { bundledCli, ensureBuilt, isolatedEnv } from "./support.js";

let home: Awaited<ReturnType<typeof temporaryFolder>>;
let project: Awaited<ReturnType<typeof temporaryFolder>>;
beforeAll(async () => {
  await ensureBuilt();
});
beforeEach(async () => {
  home = await temporaryFolder();
  project = await temporaryFolder();
});
afterEach(async () => {
  await home.remove();
  await project.remove();
});

async function replay(args: string[]): Promise<Array<Record<string, unknown>>> {
  const { stdout } = await promisify(execFile)(process.execPath, [bundledCli, "replay", "script.md", "--json", ...args], { cwd: project.path, env: isolatedEnv(home.path) }).catch(
    (error: { stdout: string }) => error,
  );
  // The run's JSON Lines end with a summary object; the plan's and the run's per-command lines are compared.
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.type !== "summary");
}

describe("replay --dry-run under the person's rules", () => {
  it("says run exactly where the run runs, in ask mode without a terminal and in yolo", async () => {
    await mkdir(path.join(home.path, ".clio"));
    await writeFile(
      path.join(home.path, ".clio/config.json"),
      JSON.stringify({ permissions: { allow: ["FILE_OP:write:notes/*"], deny: ["FILE_OP:delete", "FILE_OP:*:secrets/*"] } }),
    );
    await mkdir(path.join(project.path, "notes"));
    await writeFile(path.join(project.path, "keep.txt"), "keep\n");
    await writeFile(
      path.join(project.path, "script.md"),
      [
        '[FILE_OP:action=write:path="notes/a.md":content="a"]',
        '[FILE_OP:action=write:path="other.md":content="b"]',
        '[FILE_OP:action=write:path="notes/../escape.md":content="c"]',
        '[FILE_OP:action=delete:path="keep.txt"]',
        '[FILE_OP:action=read:path="secrets/../secrets/key.txt"]',
        '[FILE_OP:action=read:path="keep.txt"]',
      ].join("\n"),
    );
    for (const mode of ["ask", "yolo"]) {
      const plan = await replay(["--dry-run", "--permission-mode", mode]);
      const run = await replay(["--permission-mode", mode]);
      const planned = plan.map((command) => command.verdict === "run");
      const ran = run.map((result) => result.ok === true || (result.error as { code?: string } | undefined)?.code !== "permission_denied");
      expect({ mode, planned }).toEqual({ mode, planned: ran });
      expect(planned).toEqual(mode === "ask" ? [true, false, false, false, false, true] : [true, true, true, false, false, true]);
    }
  });
});
