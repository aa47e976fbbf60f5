/** The project's instruction files (CLIO.md, AGENTS.md) that go into the system prompt. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
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

describe("instruction files up to the repository root", () => {
  it("reads every known name from the repository root down to the workspace, nearest last, within a budget", async () => {
    const nested = path.join(workspace.path, "packages", "app");
    await mkdir(path.join(workspace.path, ".git"), { recursive: true });
    await mkdir(nested, { recursive: true });
    await writeFile(path.join(workspace.path, "CLAUDE.md"), "Root rules.\n");
    await writeFile(path.join(workspace.path, "packages", "GEMINI.md"), "Package rules.\n");
    await writeFile(path.join(nested, "AGENTS.md"), "App rules.\n");
    expect(await readInstructions(nested)).toEqual([
      { file: "CLAUDE.md", text: "Root rules.\n" },
      { file: "packages/GEMINI.md", text: "Package rules.\n" },
      { file: "packages/app/AGENTS.md", text: "App rules.\n" },
    ]);
    await writeFile(path.join(workspace.path, "CLIO.md"), "r".repeat(7_900));
    await writeFile(path.join(workspace.path, "packages", "CLIO.md"), "p".repeat(7_900));
    await writeFile(path.join(nested, "CLIO.md"), "a".repeat(7_900));
    await writeFile(path.join(nested, "GEMINI.md"), "g".repeat(7_900));
    const files = (await readInstructions(nested)).map((entry) => entry.file);
    expect(files.at(-1)).toBe("packages/app/GEMINI.md");
    expect(files).not.toContain("CLIO.md");
  });
});
