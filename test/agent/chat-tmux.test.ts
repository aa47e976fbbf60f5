/**
 * The interactive chat as a person uses it: the real bundled CLI in a tmux pane, keys sent with
 * send-keys, the screen read with capture-pane, a model served by the local test server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { startOpenAIServer, testModelName, type OpenAITestServer } from "../support/openai-server.js";
import { chatCommandLine } from "../support/tmux.js";
import { temporaryFolder } from "../support/workspace.js";

const socket = `clio-test-${process.pid}`;
let server: OpenAITestServer;
let workspace: Awaited<ReturnType<typeof temporaryFolder>>;
let home: Awaited<ReturnType<typeof temporaryFolder>>;

function tmux(...args: string[]): string {
  return execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
}

function screen(pane = "chat"): string {
  return tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", pane);
}

async function waitFor(text: string | RegExp, timeoutMs = 15_000, pane = "chat"): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const shown = screen(pane);
    if (typeof text === "string" ? shown.includes(text) : text.test(shown)) return shown;
    if (Date.now() > deadline) throw new Error(`The screen never showed ${String(text)}. It shows:\n${shown}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function type(text: string, pane = "chat"): void {
  tmux("send-keys", "-t", pane, "-l", text);
  tmux("send-keys", "-t", pane, "Enter");
}

/** Starts the chat in a new tmux session named `pane`. */
function startChat(pane: string): void {
  const command = chatCommandLine({ workspace: workspace.path, home: home.path, baseURL: server.baseURL, model: testModelName });
  tmux("new-session", "-d", "-s", pane, "-x", "160", "-y", "50", command);
}

beforeAll(async () => {
  server = await startOpenAIServer();
  workspace = await temporaryFolder("clio-tmux-workspace-");
  home = await temporaryFolder("clio-tmux-home-");
  startChat("chat");
});

afterAll(async () => {
  try {
    tmux("kill-server");
  } catch {
    // Already gone.
  }
  await server?.close();
  await workspace?.remove();
  await home?.remove();
});

describe("the chat in a terminal", () => {
  it("takes a prompt, asks permission, cancels with Ctrl-C, resumes a session and exits", async () => {
    await waitFor("Type a request");

    server.enqueue({ reply: 'I will write the note.\n[FILE_OP:action=write:path="note.txt":content="hello from the chat"]\n' }, { reply: "The note is written." });
    type("please write a note");
    await waitFor(/Allow .*note\.txt/);
    type("y");
    await waitFor("The note is written.");
    expect(await readFile(path.join(workspace.path, "note.txt"), "utf8")).toBe("hello from the chat");

    server.enqueue({ reply: "This reply takes its time.", firstTokenDelayMs: 20_000 });
    type("tell me something slowly");
    await waitForCondition(() => server.requests.length === 3, 15_000);
    tmux("send-keys", "-t", "chat", "C-c");
    await waitFor("Cancelled.");

    const [sessionFile] = (await readdir(path.join(home.path, "sessions"))).filter((name) => name.endsWith(".jsonl"));
    const sessionId = sessionFile!.replace(/\.jsonl$/, "");
    type("/clear");
    await waitFor("Started afresh.");
    type(`/resume ${sessionId.slice(0, 15)}`);
    await waitFor(`Resumed ${sessionId}`);
    await waitFor("Last reply: The note is written.");
    type("/model");
    await waitFor("The server offers: test-model");

    type("/exit");
    const final = await waitFor("CLIO-EXITED-0");
    expect(final).toContain(`Resume this conversation with: clio -r ${sessionId}`);
    expect(final).not.toMatch(/Error|at .*\.js:\d+/);
    expect(existsSync(path.join(workspace.path, "note.txt"))).toBe(true);
  });
});

describe("a command the person types", () => {
  it("runs directly, and Ctrl-C cancels it like a prompt", async () => {
    startChat("direct");
    await waitFor("Type a request", 15_000, "direct");
    type('[EXEC:action=run:command="sleep 60"]', "direct");
    await waitFor(/Allow .*sleep 60/, 15_000, "direct");
    type("y", "direct");
    await new Promise((resolve) => setTimeout(resolve, 300));
    tmux("send-keys", "-t", "direct", "C-c");
    await waitFor(/EXEC\.run cancelled/, 15_000, "direct");
    type("/exit", "direct");
    await waitFor("CLIO-EXITED-0", 15_000, "direct");
  });
});

/** Starts a chat in `pane` whose model writes never.txt, and waits for the permission question. */
async function untilAskedToWrite(pane: string): Promise<void> {
  startChat(pane);
  await waitFor("Type a request", 15_000, pane);
  server.enqueue({ reply: '[FILE_OP:action=write:path="never.txt":content="x"]\n' });
  type("write never.txt", pane);
  await waitFor(/Allow .*never\.txt/, 15_000, pane);
}

describe("leaving the chat while it asks permission", () => {
  it("Ctrl-D at the question refuses the command and clio exits cleanly", async () => {
    await untilAskedToWrite("asking");
    tmux("send-keys", "-t", "asking", "C-d");
    await waitFor("CLIO-EXITED-0", 15_000, "asking");
    expect(existsSync(path.join(workspace.path, "never.txt"))).toBe(false);
  });

  it("Ctrl-C at the question withdraws it and cancels the turn; the chat goes on", async () => {
    await untilAskedToWrite("interrupted");
    tmux("send-keys", "-t", "interrupted", "C-c");
    await waitFor("Cancelled.", 15_000, "interrupted");
    type("/exit", "interrupted");
    await waitFor("CLIO-EXITED-0", 15_000, "interrupted");
    expect(existsSync(path.join(workspace.path, "never.txt"))).toBe(false);
  });
});

/** Waits for something outside the screen, such as the server having received a request. */
async function waitForCondition(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("The condition never held.");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("seeing before approving", () => {
  it("shows the reply, then the diff of an edit, then the question; a long diff is cut with a count and d shows it all", async () => {
    startChat("review");
    await waitFor("Type a request", 15_000, "review");
    await writeFile(path.join(workspace.path, "greeting.txt"), "line one\nhello world\nline three\n");
    server.enqueue({ reply: 'Changing the greeting.\n[FILE_OP:action=replace:path="greeting.txt":old="hello world":new="hello there"]\n' }, { reply: "Done." });
    type("change the greeting", "review");
    const asked = await waitFor(/Allow .*greeting\.txt/, 15_000, "review");
    const order = ["Changing the greeting.", "-hello world", "+hello there", "Allow Editing greeting.txt"].map((text) => asked.indexOf(text));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((left, right) => left - right)).toEqual(order);
    type("y", "review");
    await waitFor("Done.", 15_000, "review");
    expect(await readFile(path.join(workspace.path, "greeting.txt"), "utf8")).toBe("line one\nhello there\nline three\n");
    type("/diff", "review");
    await waitFor(/─── greeting\.txt[\s\S]*-hello world\n\s*\+hello there/, 15_000, "review");
    type("/undo", "review");
    await waitFor("restored greeting.txt", 15_000, "review");
    expect(await readFile(path.join(workspace.path, "greeting.txt"), "utf8")).toBe("line one\nhello world\nline three\n");
    type("/undo", "review");
    await waitFor("Nothing to undo", 15_000, "review");

    const big = Array.from({ length: 50_000 }, (_, index) => `row ${index}`).join("\n");
    server.enqueue({ reply: `[FILE_OP:action=write:path="big.txt":content<<EOF\n${big}\nEOF\n]\n` }, { reply: "Left it." });
    type("write a big file", "review");
    await waitFor(/49,9\d\d more lines of diff .*answer d/, 20_000, "review");
    type("d", "review");
    await waitFor("+row 49999", 20_000, "review");
    type("n", "review");
    await waitFor("Left it.", 15_000, "review");
    expect(existsSync(path.join(workspace.path, "big.txt"))).toBe(false);

    server.enqueue({ reply: '[EXEC:action=run:command="echo first && echo second-part-of-a-long-command"]\n' }, { reply: "Not run." });
    type("run it", "review");
    await waitFor(/\$ echo first && echo second-part-of-a-long-command\n.*Allow/, 15_000, "review");
    type("n", "review");
    await waitFor("Not run.", 15_000, "review");
    type("/exit", "review");
    await waitFor("CLIO-EXITED-0", 15_000, "review");
  });
});

describe("watching it work", () => {
  it("draws a reply as it comes before its line ends, and a slow command's output while it runs, then a summary with the exit code", async () => {
    startChat("watch");
    await waitFor("Type a request", 15_000, "watch");
    server.enqueue({ reply: "Counting slowly now, then the command.\n", chunkSizes: 8, chunkDelayMs: 400 });
    type("count", "watch");
    // Part of the line is on screen long before its line break arrives.
    await waitFor(/Counting slo(?!.*now, then)/, 15_000, "watch");
    await waitFor(/Counting slowly now, then the command\.\n› /, 20_000, "watch");

    server.enqueue({ reply: '[EXEC:action=run:command="for i in 1 2 3 4 5; do echo tick-$i; sleep 0.6; done; exit 3"]\n' }, { reply: "It failed with 3." });
    type("run the counter", "watch");
    await waitFor(/Allow .*tick/, 15_000, "watch");
    type("y", "watch");
    const running = await waitFor(/│ tick-2/, 15_000, "watch");
    expect(running).toMatch(/Running for i in .*\d+\.\ds/);
    expect(running).not.toContain("exec_failed");
    const finished = await waitFor("It failed with 3.", 20_000, "watch");
    expect(finished).toMatch(/✗ EXEC\.run exec_failed: .*exited with code 3/);
    expect(finished).not.toMatch(/│ tick-5/);
    type("/exit", "watch");
    await waitFor("CLIO-EXITED-0", 15_000, "watch");
  });
});

describe("input as people type and paste", () => {
  it("takes a paste as one message, attaches @files with Tab completion, runs !commands, and refuses a bad @ without sending", async () => {
    await writeFile(path.join(workspace.path, "notes-for-input.txt"), "first\nsecond\nthird\n");
    startChat("input");
    await waitFor("Type a request", 15_000, "input");
    const sent = () => (server.requests.at(-1)!.body.messages as { content: string }[]).at(-1)!.content;

    server.enqueue({ reply: "Got the paste." });
    tmux("send-keys", "-t", "input", "-l", "look: ");
    tmux("set-buffer", "line one\nline two\nline three");
    tmux("paste-buffer", "-p", "-t", "input");
    await waitFor("[Pasted text #1, 3 lines]", 15_000, "input");
    tmux("send-keys", "-t", "input", "Enter");
    await waitFor("Got the paste.", 15_000, "input");
    expect(sent()).toBe("look: line one\nline two\nline three");

    const before = server.requests.length;
    type("explain @missing-file.txt", "input");
    await waitFor("@missing-file.txt: there is no such file in the workspace", 15_000, "input");
    expect(server.requests.length).toBe(before);
    tmux("send-keys", "-t", "input", "C-u");

    server.enqueue({ reply: "It says second." });
    tmux("send-keys", "-t", "input", "-l", "what is in @notes-for-in");
    tmux("send-keys", "-t", "input", "Tab");
    await waitFor("@notes-for-input.txt", 15_000, "input");
    tmux("send-keys", "-t", "input", "-l", ":2-2 ?");
    tmux("send-keys", "-t", "input", "Enter");
    await waitFor("It says second.", 15_000, "input");
    expect(sent()).toContain('<attached file="notes-for-input.txt" lines="2-2">\nsecond\n</attached>');

    type("!echo shell-said-$((6*7)); cat", "input");
    await waitFor(/shell-said-42[\s\S]*exited with code 0 .*added to the conversation/, 15_000, "input");
    server.enqueue({ reply: "Noted." });
    type("what did the shell say?", "input");
    await waitFor("Noted.", 15_000, "input");
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toContain("shell-said-42");
    type("/exit", "input");
    await waitFor("CLIO-EXITED-0", 15_000, "input");
  });
});

describe("commands people know", () => {
  it("/init asks the model to draft CLIO.md, /compact summarises older turns, /checks says how to add checks", async () => {
    startChat("known");
    await waitFor("Type a request", 15_000, "known");
    server.enqueue({ reply: '[FILE_OP:action=write:path="CLIO.md":content="# Guide\\n"]\n' }, { reply: "Drafted CLIO.md." });
    type("/init", "known");
    await waitFor(/Allow .*CLIO\.md/, 15_000, "known");
    expect((server.requests.at(-1)!.body.messages as { content: string }[]).at(-1)!.content).toContain("write CLIO.md at the workspace root");
    type("y", "known");
    await waitFor("Drafted CLIO.md.", 15_000, "known");
    server.enqueue({ reply: "One." }, { reply: "Two." }, { reply: "The summary." });
    type("one", "known");
    await waitFor("One.", 15_000, "known");
    type("two", "known");
    await waitFor("Two.", 15_000, "known");
    type("/compact", "known");
    await waitFor(/Older turns \(\d+ messages\) were summarised/, 15_000, "known");
    type("/checks", "known");
    await waitFor("No checks are configured", 15_000, "known");
    type("/exit", "known");
    await waitFor("CLIO-EXITED-0", 15_000, "known");
  });
});
