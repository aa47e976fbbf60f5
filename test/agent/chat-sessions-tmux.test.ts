/**
 * Sessions as a person continues them, in tmux against the local test server: `-c` takes the
 * latest chat over a later `clio -p` run; `/fork` and `--fork-session` go on in a copy.
 */
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenAIServer, testModelName, type OpenAITestServer } from "../support/openai-server.js";
import { tmuxServer } from "../support/tmux.js";
import { temporaryFolder } from "../support/workspace.js";
import { ensureBuilt, isolatedEnv, runCli } from "../cli/support.js";

const root = path.resolve(import.meta.dirname, "../..");
const terminal = tmuxServer(`clio-sessions-${process.pid}`);
let server: OpenAITestServer;
let workspace: Awaited<ReturnType<typeof temporaryFolder>>;
let home: Awaited<ReturnType<typeof temporaryFolder>>;
const sessionDir = () => path.join(home.path, "sessions");
const modelFlags = () => ["--base-url", server.baseURL, "--model", testModelName, "--api-key", "test-key", "--session-dir", sessionDir()];

beforeAll(async () => {
  await ensureBuilt();
  server = await startOpenAIServer();
  workspace = await temporaryFolder("clio-sessions-tmux-workspace-");
  home = await temporaryFolder("clio-sessions-tmux-home-");
});

afterAll(async () => {
  terminal.stop();
  await server?.close();
  await workspace?.remove();
  await home?.remove();
});

function startChat(pane: string, extra: string[] = []): void {
  terminal.start(
    pane,
    [
      `cd ${JSON.stringify(workspace.path)} &&`,
      `env NO_COLOR=1 CLIO_HOME=${JSON.stringify(home.path)} HOME=${JSON.stringify(home.path)}`,
      `node ${JSON.stringify(path.join(root, "dist/clio.cjs"))}`,
      ...modelFlags().map((word) => JSON.stringify(word)),
      ...extra,
      "; echo CLIO-EXITED-$?; sleep 30",
    ].join(" "),
  );
}

async function sessionIds(): Promise<string[]> {
  return (await readdir(sessionDir())).filter((name) => name.endsWith(".jsonl")).map((name) => name.replace(/\.jsonl$/, ""));
}

const journal = (id: string) => readFile(path.join(sessionDir(), `${id}.jsonl`), "utf8");

describe("continuing and forking sessions", () => {
  /** The first chat's id (ids sort by minute, then by a random suffix: not by creation within a minute). */
  let chatId: string | undefined;
  it("-c takes the latest chat over a later -p run; /fork goes on in a copy and leaves the original", async () => {
    startChat("first");
    await terminal.waitFor("first", "Type a request");
    server.enqueue({ reply: "Hi from the chat." });
    terminal.type("first", "hello chat");
    await terminal.waitFor("first", "Hi from the chat.");
    terminal.type("first", "/exit");
    await terminal.waitFor("first", "CLIO-EXITED-0");
    [chatId] = await sessionIds();

    server.enqueue({ reply: "Step done." });
    const step = await runCli(["-p", "a script step", ...modelFlags()], { cwd: workspace.path, env: isolatedEnv(home.path) });
    expect(step.code).toBe(0);
    const printId = (await sessionIds()).find((id) => id !== chatId)!;
    expect(await journal(printId)).toContain('"mode":"print"');

    startChat("again", ["-c"]);
    await terminal.waitFor("again", `Continuing session ${chatId}`);
    terminal.type("again", "/fork");
    const forked = await terminal.waitFor("again", /Forked \S+ into (\S+); going on in the copy/);
    const copyId = /Forked \S+ into (\S+);/.exec(forked)![1]!;
    expect(copyId).not.toBe(chatId);
    server.enqueue({ reply: "Answered in the copy." });
    terminal.type("again", "after the fork");
    await terminal.waitFor("again", "Answered in the copy.");
    const sent = server.requests.at(-1)!.body.messages as { content: string }[];
    expect(sent.map((message) => message.content)).toEqual(expect.arrayContaining(["hello chat", "Hi from the chat.", "after the fork"]));
    terminal.type("again", "/exit");
    expect(await terminal.waitFor("again", "CLIO-EXITED-0")).toContain(`clio -r ${copyId}`);
    expect(await journal(chatId!)).not.toContain("after the fork");
    expect(await journal(copyId)).toContain("after the fork");
    expect(await journal(copyId)).toContain("hello chat");
  });

  it("--fork-session with -r continues a copy of that session; without -c or -r it says what is missing", async () => {
    const first = chatId;
    const before = await journal(first!);
    const count = (await sessionIds()).length;
    server.enqueue({ reply: "Forked step." });
    const run = await runCli(["-p", "in a fork", "-r", first!, "--fork-session", ...modelFlags()], { cwd: workspace.path, env: isolatedEnv(home.path) });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("Forked step.\n");
    expect(await sessionIds()).toHaveLength(count + 1);
    expect(await journal(first!)).toBe(before);
    const sent = server.requests.at(-1)!.body.messages as { content: string }[];
    expect(sent.map((message) => message.content)).toContain("hello chat");

    const alone = await runCli(["-p", "x", "--fork-session", ...modelFlags()], { cwd: workspace.path, env: isolatedEnv(home.path) });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--fork-session copies the session you continue, and none was named.\nAdd --continue (-c) or --resume ID.");
  });
});
