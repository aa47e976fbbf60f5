import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { DEMO_PROMPT } from "../../src/cli/demo-command.js";
import { temporaryFolder } from "../support/workspace.js";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const cli = path.join(root, "dist/clio.cjs");

async function clio(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], { cwd: root, env: { ...process.env, NO_COLOR: "1" } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("clio replay --model-script", () => {
  it("plays the recorded demo conversation through the real loop and matches its shipped expectations", async () => {
    expect(existsSync(cli)).toBe(true);
    const result = await clio([
      "replay",
      "--model-script",
      "sessions/demo/conversation.md",
      "--prompt",
      DEMO_PROMPT,
      "--fresh-copy",
      "sessions/demo/workspace",
      "--permission-mode",
      "yolo",
      "--expect",
      "sessions/demo/conversation.expected.json",
    ]);
    expect(result.stdout).toContain("Conversation ended (done) after 5 of 5 recorded replies.");
    expect(result.stdout).toContain("All 7 result(s) match");
    expect(result.code).toBe(0);
  }, 60_000);

  it("fails with a readable difference when a recorded reply does something else", async () => {
    const folder = await temporaryFolder();
    try {
      const script = path.join(folder.path, "conversation.md");
      await writeFile(script, '[FILE_OP:action=read:path="src/calc.js"]\n--- reply ---\nDone.\n');
      const expectations = path.join(folder.path, "conversation.expected.json");
      expect(
        (await clio(["replay", "--model-script", script, "--fresh-copy", "sessions/demo/workspace", "--permission-mode", "plan", "--expect", expectations, "--update"])).code,
      ).toBe(0);
      await writeFile(script, '[FILE_OP:action=read:path="README.md"]\n--- reply ---\nDone.\n');
      const changed = await clio(["replay", "--model-script", script, "--fresh-copy", "sessions/demo/workspace", "--permission-mode", "plan", "--expect", expectations]);
      expect(changed.code).toBe(1);
      expect(changed.stdout).toContain("description");
      expect(changed.stdout).toContain("README.md");
    } finally {
      await folder.remove();
    }
  }, 60_000);

  it("says clearly when the model script does not exist", async () => {
    const result = await clio(["replay", "--model-script", "no/such/replies.json"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no/such/replies.json does not exist");
  });
});
