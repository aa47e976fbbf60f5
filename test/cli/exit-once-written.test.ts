/**
 * `clio replay` and `clio parse` exit as soon as their work is done, without waiting for the event
 * loop to empty: what they wrote must still reach a reader that is slow to read (a pipe holds
 * some of it; the rest waits in the process until the pipe drains).
 */
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bundledCli, freshCliFolders, isolatedEnv } from "./support.js";

/** Runs the CLI with stdout a pipe nobody reads for `delayMs`, then reads it to its end. */
function runWithLateReader(args: string[], cwd: string, home: string, delayMs: number): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [bundledCli, ...args], { cwd, env: isolatedEnv(home), stdio: ["ignore", "pipe", "ignore"] });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => resolve(code));
  });
  const read = new Promise<string>((resolve) => {
    const parts: Buffer[] = [];
    child.stdout.on("data", (part: Buffer) => parts.push(part));
    child.stdout.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    child.stdout.pause();
    setTimeout(() => child.stdout.resume(), delayMs);
  });
  return Promise.all([exited, read]).then(([code, stdout]) => ({ code, stdout }));
}

describe("a command that exits once its output is written", () => {
  const folders = freshCliFolders();

  it("hands a slow reader all of a replay's JSON lines, several pipe-fulls of them", async () => {
    const lines = Array.from({ length: 400 }, (_, line) => `line ${line}: ${"the replay prints this file ".repeat(3)}`);
    await writeFile(path.join(folders.workspace.path, "long.txt"), `${lines.join("\n")}\n`);
    const script = path.join(folders.workspace.path, "reads.clio");
    await writeFile(script, '[FILE_OP:action=read:path="long.txt"]\n'.repeat(40));
    const { code, stdout } = await runWithLateReader(["replay", "--json", script], folders.workspace.path, folders.home.path, 600);
    expect(code).toBe(0);
    expect(stdout.length).toBeGreaterThan(500_000);
    const records = stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type?: string; commands?: { passed: number } });
    expect(records).toHaveLength(41);
    expect(records.at(-1)).toMatchObject({ type: "summary", commands: { passed: 40, failed: 0 } });
  });

  it("hands a slow reader all of a parse's JSON report", async () => {
    const reply = Array.from({ length: 6000 }, (_, at) => `Step ${at}: [FILE_OP:action=read:path="src/file${at}.ts"]`).join("\n");
    const file = path.join(folders.workspace.path, "reply.md");
    await writeFile(file, reply);
    const { code, stdout } = await runWithLateReader(["parse", "--json", file], folders.workspace.path, folders.home.path, 600);
    expect(code).toBe(0);
    expect(stdout.length).toBeGreaterThan(500_000);
    const report = JSON.parse(stdout) as { commands: unknown[] };
    expect(report.commands).toHaveLength(6000);
    expect(await readFile(file, "utf8")).toBe(reply);
  });
});
