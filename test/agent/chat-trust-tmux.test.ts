/**
 * The chat in tmux against the local test server: a GIT checkout's diff is on screen before its
 * question; what EXEC and `!` change is taken back by /undo; reasoning, beside the reply or in
 * <think> blocks in its middle, is collapsed to a line that /reasoning opens; a 1 MB paste arrives whole.
 */
import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenAIServer, testModelName, type OpenAITestServer } from "../support/openai-server.js";
import { chatCommandLine, tmuxServer } from "../support/tmux.js";
import { temporaryFolder } from "../support/workspace.js";
import { ensureBuilt } from "../cli/support.js";

const terminal = tmuxServer(`clio-trust-${process.pid}`);
let server: OpenAITestServer;
let workspace: Awaited<ReturnType<typeof temporaryFolder>>;
let home: Awaited<ReturnType<typeof temporaryFolder>>;
const gitEnv = { ...process.env, GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" };
const git = (...args: string[]) => execFileSync("git", args, { cwd: workspace.path, env: gitEnv, encoding: "utf8" });
const read = (name: string) => readFile(path.join(workspace.path, name), "utf8");

beforeAll(async () => {
  await ensureBuilt();
  server = await startOpenAIServer();
  workspace = await temporaryFolder("clio-trust-tmux-workspace-");
  home = await temporaryFolder("clio-trust-tmux-home-");
  git("init", "-q", "-b", "main");
  await writeFile(path.join(workspace.path, "a.txt"), "one\ntwo\n");
  git("add", ".");
  git("commit", "-qm", "first");
  git("checkout", "-qb", "feature");
  await writeFile(path.join(workspace.path, "a.txt"), "ONE\ntwo\n");
  git("commit", "-qam", "feature");
  git("checkout", "-q", "main");
  terminal.start("chat", chatCommandLine({ workspace: workspace.path, home: home.path, baseURL: server.baseURL, model: testModelName }));
});

afterAll(async () => {
  terminal.stop();
  await server?.close();
  await workspace?.remove();
  await home?.remove();
});

const waitFor = (text: string | RegExp, timeoutMs = 15_000) => terminal.waitFor("chat", text, timeoutMs);
const type = (text: string) => terminal.type("chat", text);

describe("the chat a person trusts", () => {
  it("shows a GIT checkout's diff before its question, and nothing moves when refused", async () => {
    await waitFor("Type a request");
    server.enqueue({ reply: "Switching.\n[GIT:action=checkout:branch=feature]\n" }, { reply: "Stayed on main." });
    type("switch to feature");
    const asked = await waitFor(/Allow .*Checking out feature/);
    const order = ["Switching.", "─── a.txt", "-one", "+ONE", "Allow Checking out feature"].map((text) => asked.indexOf(text));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((left, right) => left - right)).toEqual(order);
    type("n");
    await waitFor("Stayed on main.");
    expect(git("symbolic-ref", "--short", "HEAD").trim()).toBe("main");
    expect(await read("a.txt")).toBe("one\ntwo\n");
  });

  it("/undo takes back what a model's EXEC command and a person's !command changed", async () => {
    server.enqueue({ reply: '[EXEC:action=run:command="echo by-exec > a.txt && echo made > made.txt"]\n' }, { reply: "Ran it." });
    type("overwrite a.txt");
    await waitFor(/Allow .*by-exec/);
    type("y");
    await waitFor("Ran it.");
    expect(await read("a.txt")).toBe("by-exec\n");
    type("!echo by-person > a.txt");
    await waitFor(/exited with code 0 .*added to the conversation/);
    expect(await read("a.txt")).toBe("by-person\n");
    type("/undo");
    await waitFor("restored a.txt");
    expect(await read("a.txt")).toBe("by-exec\n");
    type("/undo");
    await waitFor("restored made.txt");
    expect(await read("a.txt")).toBe("one\ntwo\n");
    expect(git("status", "--porcelain")).toBe("");
  });

  it("collapses reasoning to a line with its size; /reasoning shows it whole", async () => {
    const thought = "First I check the file.\nThen I answer briefly.";
    server.enqueue({ reply: "The answer is 4.", reasoning: { field: "reasoning_content", text: thought } });
    type("what is 2 + 2?");
    const shown = await waitFor("The answer is 4.");
    expect(shown).toContain("┆ reasoning, 2 lines, 46 characters (collapsed: /reasoning shows it)");
    expect(shown).not.toContain("First I check the file.");
    type("/reasoning");
    await waitFor(/┆ First I check the file\.\n┆ Then I answer briefly\./);
    type("/reasoning loud");
    await waitFor("/reasoning takes one of collapse, show, hide; /reasoning alone shows the last prompt's reasoning.");
  });

  it("collapses a <think> block in the middle of a streamed reply, and draws a fenced <think> as code", async () => {
    const reply = [
      "Here is the plan.",
      '<think>Should I [EXEC:action=run:command="touch drafted.txt"]? No, a draft only.',
      "It stays a draft.</think>",
      "Tag it like this:",
      "```xml",
      "<think>an example</think>",
      "```",
      "And `<thinking>` in a code span is code too. Finished.",
    ].join("\n");
    server.enqueue({ reply, chunkSizes: 1 });
    type("how do I tag reasoning?");
    const shown = (await waitFor("Finished.")).slice(-2000);
    const order = [
      "Here is the plan.",
      "┆ reasoning, 2 lines, 91 characters (collapsed: /reasoning shows it)",
      "Tag it like this:",
      "│ <think>an example</think>",
      "And `<thinking>` in a code span is code too.",
    ].map((text) => shown.indexOf(text));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((left, right) => left - right)).toEqual(order);
    expect(shown).not.toContain("a draft only");
    type("/reasoning");
    await waitFor(/┆ Should I \[EXEC:action=run:command="touch drafted\.txt"\]\? No, a draft only\.\n┆ It stays a draft\./);
    await expect(read("drafted.txt")).rejects.toThrow();
  });

  it("a 1 MB paste arrives whole as one message", async () => {
    const big = Array.from({ length: 16_384 }, (_, index) => `line ${String(index).padStart(5, "0")} ${"x".repeat(52)}`).join("\n");
    server.enqueue({ reply: "Read it all." });
    const pasted = path.join(home.path, "paste.txt");
    await writeFile(pasted, big);
    execFileSync("tmux", ["-L", `clio-trust-${process.pid}`, "load-buffer", pasted]);
    execFileSync("tmux", ["-L", `clio-trust-${process.pid}`, "paste-buffer", "-p", "-t", "chat"]);
    await waitFor("[Pasted text #1, 16384 lines]", 60_000);
    execFileSync("tmux", ["-L", `clio-trust-${process.pid}`, "send-keys", "-t", "chat", "Enter"]);
    await waitFor("Read it all.", 60_000);
    const sent = (server.requests.at(-1)!.body.messages as { content: string }[]).at(-1)!.content;
    expect(sent.length).toBe(big.length);
    expect(sent).toBe(big);
    type("/exit");
    await waitFor("CLIO-EXITED-0");
  });
});
