/** A script is read at once as the command starts (src/cli/input.ts), a named pipe's to its end. */
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freshCliFolders, isolatedEnv, runCli } from "./support.js";

const folders = freshCliFolders(async (workspace) => {
  await writeFile(path.join(workspace, "notes.md"), "# Notes\nread from a pipe\n");
});

/** A named pipe in the workspace. */
function namedPipe(name: string): string {
  const pipe = path.join(folders.workspace.path, name);
  execFileSync("mkfifo", [pipe]);
  return pipe;
}

describe("a script given as a named pipe", () => {
  it("is read to its end and replayed", async () => {
    const pipe = namedPipe("script.pipe");
    const replay = runCli(["replay", pipe, "--permission-mode", "yolo"], { cwd: folders.workspace.path, env: isolatedEnv(folders.home.path) });
    // Opening the pipe for writing waits for the reader clio opens; the text then reaches it.
    await writeFile(pipe, '[FILE_OP:action=read:path="notes.md"]\n');
    const { code, stdout } = await replay;
    expect(code).toBe(0);
    expect(stdout).toContain("read from a pipe");
  });
});
