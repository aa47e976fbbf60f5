/**
 * A script is read at once as the command starts (src/cli/input.ts), a named pipe's to its end
 * through the event loop, so a command waiting for a writer still answers SIGTERM.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readlinkSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bundledCli, freshCliFolders, isolatedEnv, runCli } from "./support.js";

const folders = freshCliFolders(async (workspace) => {
  await writeFile(path.join(workspace, "notes.md"), "# Notes\nread from a pipe\n");
});

/** A named pipe in the workspace. */
function namedPipe(name: string): string {
  const pipe = path.join(folders.workspace.path, name);
  execFileSync("mkfifo", [pipe]);
  return pipe;
}

/** Resolves once `child` holds `file` open (its /proc descriptors name it): it then waits on it. */
async function holdsOpen(child: ChildProcess, file: string): Promise<void> {
  for (;;) {
    const folder = `/proc/${child.pid}/fd`;
    const names = readdirSync(folder).flatMap((descriptor) => {
      try {
        return [readlinkSync(`${folder}/${descriptor}`)];
      } catch {
        return [];
      }
    });
    if (names.includes(file)) return;
    if (child.exitCode !== null) throw new Error(`clio ended (${child.exitCode}) before it opened ${file}`);
    await sleep(20);
  }
}

/** How the child ended: its exit code, or the signal that ended it. */
function ending(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
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

  it("is read to its end when the writer sends it in pieces with pauses between", async () => {
    const pipe = namedPipe("pieces.pipe");
    const replay = runCli(["replay", pipe, "--permission-mode", "yolo"], { cwd: folders.workspace.path, env: isolatedEnv(folders.home.path) });
    const { open } = await import("node:fs/promises");
    const writer = await open(pipe, "w");
    await writer.write("[FILE_OP:action=read:");
    await sleep(300);
    await writer.write('path="notes.md"]\n');
    await writer.close();
    const { code, stdout } = await replay;
    expect(code).toBe(0);
    expect(stdout).toContain("read from a pipe");
  });

  it("nobody writes to: SIGTERM ends the replay waiting for a writer (exit 143), nothing ran", async () => {
    const pipe = namedPipe("silent.pipe");
    const child = spawn(process.execPath, [bundledCli, "replay", pipe], { cwd: folders.workspace.path, env: isolatedEnv(folders.home.path), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text));
    const ended = ending(child);
    try {
      await holdsOpen(child, pipe);
      child.kill("SIGTERM");
      expect(await ended).toEqual({ code: 143, signal: null });
      expect(stdout).toBe("");
    } finally {
      // A clio still waiting (the failure this test is for) must not outlive the test.
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });

  it("an anonymous pipe named by its descriptor (a shell's <(…)) is read to its end, also when its writer ended first", async () => {
    // The writer prints and exits while clio starts: the pipe then holds the text and has no writer.
    const line = "'[FILE_OP:action=read:path=\"notes.md\"]'";
    const command = `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(bundledCli)} replay <(printf '%s\\n' ${line}) --permission-mode yolo`;
    const child = spawn("bash", ["-c", command], { cwd: folders.workspace.path, env: isolatedEnv(folders.home.path), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text));
    expect(await ending(child)).toEqual({ code: 0, signal: null });
    expect(stdout).toContain("read from a pipe");
  });
});
