/** The project's instruction files (CLIO.md, AGENTS.md) that go into the system prompt. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { readInstructions } from "../../src/agent/context-files.js";
import { temporaryFolder } from "../support/workspace.js";

let workspace: Awaited<ReturnType<typeof temporaryFolder>>;
let outside: Awaited<ReturnType<typeof temporaryFolder>>;
beforeEach(async () => {
  workspace = await temporaryFolder("clio-instructions-");
  outside = await temporaryFolder("clio-outside-");
});
afterEach(async () => {
  await workspace.remove();
  await outside.remove();
});

describe("instruction files", () => {
  it("reads CLIO.md and AGENTS.md from the workspace root, in that order", async () => {
    await writeFile(path.join(workspace.path, "AGENTS.md"), "Use pnpm.\n");
    await writeFile(path.join(workspace.path, "CLIO.md"), "Run make check.\n");
    expect(await readInstructions(workspace.path)).toEqual([
      { file: "CLIO.md", text: "Run make check.\n" },
      { file: "AGENTS.md", text: "Use pnpm.\n" },
    ]);
  });

  it("never follows a symlink out of the workspace, so a cloned project cannot send the person's secrets to the model", async () => {
    const secret = path.join(outside.path, "credentials");
    await writeFile(secret, "aws_secret_access_key = SECRET\n");
    await symlink(secret, path.join(workspace.path, "CLIO.md"));
    expect(await readInstructions(workspace.path)).toEqual([]);
  });

  it("skips anything that is not a regular file (a FIFO would block forever)", async () => {
    execFileSync("mkfifo", [path.join(workspace.path, "AGENTS.md")]);
    expect(await readInstructions(workspace.path)).toEqual([]);
  });

  it("cuts a long file at the limit with a note", async () => {
    await writeFile(path.join(workspace.path, "CLIO.md"), "x".repeat(50_000));
    const [instructions] = await readInstructions(workspace.path);
    expect(instructions!.text.length).toBeLessThan(8_100);
    expect(instructions!.text).toContain("[… cut at 8000 characters]");
  });
});
