/** `clio -p` through the bundled CLI, against the OpenAI-compatible test server. */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { startOpenAIServer, testModelName, type OpenAITestServer } from "../support/openai-server.js";
import { temporaryFolder } from "../support/workspace.js";
import { ensureBuilt, isolatedEnv, runCli } from "./support.js";

let server: OpenAITestServer;
let home: Awaited<ReturnType<typeof temporaryFolder>>;
let workspace: Awaited<ReturnType<typeof temporaryFolder>>;
beforeAll(async () => {
  await ensureBuilt();
});
beforeEach(async () => {
  server = await startOpenAIServer();
  home = await temporaryFolder("clio-cli-home-");
  workspace = await temporaryFolder("clio-cli-workspace-");
  await writeFile(path.join(workspace.path, "a.txt"), "alpha\n");
});
afterEach(async () => {
  await server.close();
  await home.remove();
  await workspace.remove();
});

function clio(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; keepStdinOpen?: boolean } = {}) {
  return runCli(args, {
    cwd: workspace.path,
    env: isolatedEnv(home.path, options.env),
    keepStdinOpen: options.keepStdinOpen,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
}

const model = () => ["--base-url", server.baseURL, "--model", testModelName, "--api-key", "x"];
const lastUserMessage = (index: number) => {
  const messages = server.requests[index]!.body.messages as { role: string; content: string }[];
  return messages.at(-1)!.content;
};

describe("clio -p", () => {
  it("with a prompt, does not wait forever on an open standard input that stays silent", async () => {
    server.enqueue({ reply: "Hello." });
    const result = await clio(["-p", "hi", ...model()], { keepStdinOpen: true, env: { CLIO_STDIN_WAIT_MS: "300" } });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Hello.\n");
    expect(result.stderr).toContain("nothing arrived on standard input within 300 ms; going on with the prompt alone");
    expect(lastUserMessage(0)).toBe("hi");
  });

  it("prints the answer without the reply's <think> blocks, in text and in JSON; a fenced <think> is code and stays", async () => {
    const reply = "<think>\nThe user wants a greeting.\n</think>\nHello.\n\n```html\n<think>kept</think>\n```\n";
    server.enqueue({ reply });
    const text = await clio(["-p", "hi", ...model()], { input: "" });
    expect(text.code).toBe(0);
    expect(text.stdout).toBe("Hello.\n\n```html\n<think>kept</think>\n```\n");
    server.enqueue({ reply: "<think>only thinking, never closed" });
    const json = await clio(["-p", "hi", "--output-format", "json", ...model()], { input: "" });
    expect(JSON.parse(json.stdout)).toMatchObject({ reason: "done", result: "" });
  });

  it("takes a wait longer than a timer allows as no limit, and still appends the input", async () => {
    server.enqueue({ reply: "Read." });
    const result = await clio(["-p", "read this", ...model()], { input: "piped text\n", env: { CLIO_STDIN_WAIT_MS: "3000000000" } });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("nothing arrived");
    expect(lastUserMessage(0)).toBe("read this\n\npiped text\n");
  });

  it("with a prompt, appends piped input that arrives, however long it then takes", async () => {
    server.enqueue({ reply: "Summarised." });
    const result = await clio(["-p", "summarise this", ...model()], { input: "line one\nline two\n", env: { CLIO_STDIN_WAIT_MS: "300" } });
    expect(result.code).toBe(0);
    expect(lastUserMessage(0)).toBe("summarise this\n\nline one\nline two\n");
  });

  it("prints the final answer alone on stdout; with --verbose the transcript goes to stderr, plain; exits 0", async () => {
    server.enqueue({ reply: 'Reading.\n[FILE_OP:action=read:path="a.txt"]\n' }, { reply: "It says alpha." });
    const quiet = await clio(["-p", "What does a.txt say?", ...model()]);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toBe("It says alpha.\n");
    expect(quiet.stderr).toBe("");
    server.enqueue({ reply: 'Reading.\n[FILE_OP:action=read:path="a.txt"]\n' }, { reply: "It says alpha." });
    const result = await clio(["-p", "What does a.txt say?", "--verbose", ...model()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("It says alpha.\n");
    expect(result.stderr).toContain('Reading.\n[FILE_OP:action=read:path="a.txt"]\n');
    expect(result.stderr).toMatch(/✓ Read a\.txt/);
    expect(result.stdout + result.stderr).not.toContain("\u001b[");
    expect(lastUserMessage(3)).toContain("1│alpha");
  });

  it("stays plain with NO_COLOR even when colour is forced", async () => {
    server.enqueue({ reply: "Hello." });
    const result = await clio(["-p", "hi", ...model()], { env: { NO_COLOR: "1", FORCE_COLOR: "1" } });
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).not.toContain("\u001b[");
  });

  it("--output-format json prints one object with the outcome and every command", async () => {
    server.enqueue({ reply: '[FILE_OP:action=read:path="a.txt"]' }, { reply: "alpha" });
    const result = await clio(["-p", "read a.txt", "--output-format", "json", ...model()]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0]!);
    expect(summary).toMatchObject({ type: "result", reason: "done", ok: true, turns: 2, result: "alpha" });
    expect(typeof summary.session).toBe("string");
    expect(summary.usage.inputTokens).toBeGreaterThan(0);
    expect(summary.commands).toHaveLength(1);
    expect(summary.commands[0]).toMatchObject({ protocol: "FILE_OP", action: "read", ok: true });
  });

  it("--output-format stream-json prints one JSON event per line, ending with the result", async () => {
    server.enqueue({ reply: '[FILE_OP:action=read:path="a.txt"]' }, { reply: "alpha" });
    const result = await clio(["-p", "read a.txt", "--output-format", "stream-json", ...model()]);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const types = events.map((event) => event.type);
    expect(types).toContain("text-delta");
    expect(types.indexOf("command-started")).toBeLessThan(types.indexOf("command-finished"));
    expect(types.at(-1)).toBe("result");
    expect(events.at(-1)).toMatchObject({ reason: "done", ok: true });
  });

  it("appends piped standard input to the prompt", async () => {
    server.enqueue({ reply: "Looks fine." });
    const result = await clio(["-p", "review this change", ...model()], { input: "diff --git a/x b/x\n+new line\n" });
    expect(result.code).toBe(0);
    expect(lastUserMessage(0)).toBe("review this change\n\ndiff --git a/x b/x\n+new line\n");
  });

  it("takes the whole prompt from standard input when -p has none", async () => {
    server.enqueue({ reply: "Hi." });
    const result = await clio(["-p", ...model()], { input: "summarise the project" });
    expect(result.code).toBe(0);
    expect(lastUserMessage(0)).toBe("summarise the project");
  });

  it("refuses a write without a terminal to ask (ask mode fails closed), and the model is told how to allow it", async () => {
    server.enqueue({ reply: '[FILE_OP:action=write:path="b.txt":content="x"]' }, { reply: "I could not write it." });
    const result = await clio(["-p", "write b.txt", "--output-format", "json", ...model()]);
    expect(result.code).toBe(3);
    expect(existsSync(path.join(workspace.path, "b.txt"))).toBe(false);
    expect(JSON.parse(result.stdout).commands[0].error.code).toBe("permission_denied");
    expect(lastUserMessage(1)).toContain("--permission-mode");
  });

  it("exits 1 when the turn fails, and says why on stderr", async () => {
    server.enqueue({ status: 400, message: "model test-model does not exist" });
    const result = await clio(["-p", "hi", ...model()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("does not exist");
  });

  it("exits 3 when a limit ends the turn, after asking the model once for a plain answer", async () => {
    server.enqueue({ reply: '[FILE_OP:action=read:path="a.txt"]' }, { reply: '[FILE_OP:action=read:path="a.txt":offset=1]' }, { reply: "a.txt holds alpha; I did not finish." });
    const result = await clio(["-p", "loop", "--max-turns", "2", "--output-format", "json", ...model()]);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ reason: "max-turns", ok: false, exitCode: 3, turns: 2, result: "a.txt holds alpha; I did not finish." });
    expect(lastUserMessage(2)).toContain("Do not write any more commands");
    expect(server.requests).toHaveLength(3);
  });

  it("exits 2 for usage errors: no prompt, a bad flag, a workspace, session or script that does not exist, no model configured", async () => {
    const empty = await clio(["-p", ...model()]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("-p needs a prompt");
    expect((await clio(["-p", "hi", "--output-format", "xml", ...model()])).code).toBe(2);
    expect((await clio(["-p", "hi", "--max-turns", "0", ...model()])).code).toBe(2);
    for (const wrong of [["-w", "no-such-folder"], ["--resume", "no-such-session"], ["--continue"], ["--script", "no-such-script.md"]]) {
      const result = await clio(["-p", "hi", ...model(), ...wrong]);
      expect({ wrong, code: result.code }).toEqual({ wrong, code: 2 });
    }
    const unconfigured = await clio(["-p", "hi"]);
    expect(unconfigured.code).toBe(2);
    expect(unconfigured.stderr).not.toBe("");
    expect(server.requests).toHaveLength(0);
  });

  it("records the conversation as a session that clio sessions can list, show and export", async () => {
    server.enqueue({ reply: '[FILE_OP:action=read:path="a.txt"]' }, { reply: "alpha" });
    const run = await clio(["-p", "read a.txt", "--output-format", "json", ...model()]);
    const id = JSON.parse(run.stdout).session as string;
    const listed = await clio(["sessions", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(id);
    expect((await clio(["sessions"])).stdout).toBe(listed.stdout);
    expect(listed.stdout).not.toContain("\u001b[");
    const shown = await clio(["sessions", "show", id.slice(0, 15)]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("read a.txt");
    const script = await clio(["sessions", "export", id, "--format", "script"]);
    expect(script.stdout).toContain('[FILE_OP:action=read:path="a.txt"]');
    expect((await clio(["sessions", "export", id, "--format", "pdf"])).code).toBe(2);
    expect((await clio(["sessions", "show"])).code).toBe(2);
    expect((await clio(["sessions", "show", "no-such-session"])).code).toBe(1);
    expect((await clio(["sessions", "delete", id])).code).toBe(0);
    expect((await clio(["sessions", "list"])).stdout).not.toContain(id);
  });
});
