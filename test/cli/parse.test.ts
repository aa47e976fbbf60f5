/** `clio parse` through the bundled CLI. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { temporaryFolder } from "../support/workspace.js";
import { bundledCli, ensureBuilt, isolatedEnv, runCli } from "./support.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  await ensureBuilt();
  folder = await temporaryFolder("clio-cli-parse-");
  env = isolatedEnv(folder.path);
});
afterAll(async () => {
  await folder.remove();
});

const clio = (args: string[], input?: string) => runCli(args, { cwd: folder.path, env, ...(input === undefined ? {} : { input }) });

const REPLY = [
  "I'll read it 😀 first.",
  '[FILE_OP:action=read:path="src/😀 main.ts":offset=2]\r',
  'Then `[FILE_OP:action=delete:path="x"]` is only a mention, [NOTE] is prose,',
  "```",
  '[EXEC:action=run:command="rm -rf /"]',
  "```",
  '[FILE_OP:action=explode:path="a"] and [NOPE:action=x:y=1] and [FILE_OP:action=read:path="a" oops]',
  '[MEMORY:action=store:key="k":value<<EOF',
  "line one",
  "EOF",
  "]",
  "[FILE_OP:action=read:path=",
].join("\n");

describe("clio parse", () => {
  it("prints commands, mentions and errors as one JSON object in source order", async () => {
    await writeFile(path.join(folder.path, "reply.md"), REPLY);
    const result = await clio(["parse", "reply.md", "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(Object.keys(report)).toEqual(["commands", "mentions", "errors"]);
    expect(report.commands).toEqual([
      { protocol: "FILE_OP", action: "read", args: { action: "read", path: "src/😀 main.ts", offset: "2" }, dialect: "clio", line: 2, column: 1, endLine: 2, endColumn: 53 },
      { protocol: "MEMORY", action: "store", args: { action: "store", key: "k", value: "line one" }, dialect: "clio", line: 8, column: 1, endLine: 11, endColumn: 2 },
    ]);
    expect(report.mentions).toEqual([
      { line: 3, column: 7, context: "inline-code", text: '[FILE_OP:action=delete:path="x"]' },
      { line: 5, column: 1, context: "fence", text: '[EXEC:action=run:command="rm -rf /"]' },
    ]);
    expect(report.errors.map((error: { code: string; line: number }) => `${error.line}:${error.code}`)).toEqual([
      "7:unknown_action",
      "7:unknown_protocol",
      "7:unexpected_character",
      "12:unterminated_command",
    ]);
    for (const error of report.errors) expect(Object.keys(error).filter((key) => key !== "hint")).toEqual(["code", "message", "line", "column"]);
    expect(result.stderr).toBe("");
  });

  it("gives the same output fed to the streaming scanner in chunks of any size", async () => {
    await writeFile(path.join(folder.path, "reply.md"), REPLY);
    const whole = await clio(["parse", "reply.md", "--json"]);
    for (const size of ["1", "2", "3", "7", "64", "100000"]) {
      const chunked = await clio(["parse", "reply.md", "--json", "--chunk", size]);
      expect({ size, stdout: chunked.stdout }).toEqual({ size, stdout: whole.stdout });
    }
  });

  it("reads a raw gpt-oss reply (harmony tokens kept): the analysis channel is reasoning, the final channel and a tool call run", async () => {
    const reply = [
      "<|channel|>analysis<|message|>The user asks why the build fails. Let me think.",
      'I could wipe it with [EXEC:action=run:command="rm -rf dist"] but that is drastic.',
      'Better: read the config first, <tool_call>{"name": "execute_command", "arguments": {"command": "npm ci"}}</tool_call> later maybe.<|end|>',
      '<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path": "package.json"}<|call|>',
      "<|start|>assistant<|channel|>final<|message|>Checking the build script.",
      '[EXEC:action=run:command="npm run build"]<|return|>',
    ].join("\n");
    await writeFile(path.join(folder.path, "gpt-oss.md"), reply);
    for (const chunk of [[], ["--chunk", "1"]]) {
      const report = JSON.parse((await clio(["parse", "gpt-oss.md", "--json", ...chunk])).stdout);
      expect(report.commands.map((command: { dialect: string; args: object }) => [command.dialect, command.args])).toEqual([
        ["harmony", { action: "read", path: "package.json" }],
        ["clio", { action: "run", command: "npm run build" }],
      ]);
      expect(
        report.mentions.map((mention: { line: number; context: string; hint?: string; text: string }) => [mention.line, mention.context, mention.hint ?? mention.text]),
      ).toEqual([
        [2, "reasoning", '[EXEC:action=run:command="rm -rf dist"]'],
        [3, "reasoning", '[EXEC:action=run:command="npm ci"]'],
      ]);
      expect(report.errors).toEqual([]);
    }
  });

  it("reads standard input for - or no file, and exits 0 for any text at all", async () => {
    const piped = await clio(["parse", "-", "--json"], "[GIT:action=status]\n");
    expect(piped.code).toBe(0);
    expect(JSON.parse(piped.stdout).commands).toHaveLength(1);
    const implicit = await clio(["parse", "--json"], "");
    expect(implicit.code).toBe(0);
    expect(JSON.parse(implicit.stdout)).toEqual({ commands: [], mentions: [], errors: [] });
    const binary = path.join(folder.path, "binary.bin");
    await writeFile(binary, Buffer.from([0, 255, 254, 91, 0, 58, 13, 10, 0x80, 0xc3]));
    expect((await clio(["parse", binary])).code).toBe(0);
  });

  it("exits 2 with a reason when the input cannot be read", async () => {
    const missing = await clio(["parse", "no-such-file.md"]);
    expect(missing).toMatchObject({ code: 2, stdout: "" });
    expect(missing.stderr).toContain("Cannot read no-such-file.md: no such file.");
    await mkdir(path.join(folder.path, "a-folder"), { recursive: true });
    const folderInput = await clio(["parse", "a-folder"]);
    expect(folderInput.code).toBe(2);
    expect(folderInput.stderr).toContain("it is a folder");
  });

  it("stops quietly when the reader closes the pipe early (clio parse … | head)", async () => {
    const big = Array.from({ length: 5000 }, (_, index) => `[FILE_OP:action=read:path="src/file${index}.ts"]`).join("\n");
    await writeFile(path.join(folder.path, "big.md"), big);
    const child = spawn(process.execPath, [bundledCli, "parse", "big.md", "--json"], { cwd: folder.path, env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  it("exits 2 for a --chunk that is not a whole number of 1 or more", async () => {
    for (const size of ["0", "-3", "two"]) expect((await clio(["parse", "-", "--chunk", size], "x")).code).toBe(2);
  });

  it("prints a plain readable report, without colour codes, when the output is not a terminal", async () => {
    const result = await clio(["parse", "-"], REPLY);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("\u001b[");
    expect(result.stdout).toContain("Commands (2)");
    expect(result.stdout).toContain("Mentions (2)");
    expect(result.stdout).toContain("Errors (4)");
  });
});
