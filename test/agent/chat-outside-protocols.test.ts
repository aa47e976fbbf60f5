/**
 * The chat in tmux with protocols from outside: an MCP server from the user's config answers the
 * model's call, and the model's TODO checklist shows on the screen as it changes.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenAIServer, testModelName, type OpenAITestServer } from "../support/openai-server.js";
import { tmuxServer } from "../support/tmux.js";
import { temporaryFolder } from "../support/workspace.js";

const root = path.resolve(import.meta.dirname, "../..");
const testServer = path.join(root, "test/fixtures/mcp/stdio-server.mjs");
const terminal = tmuxServer(`clio-outside-${process.pid}`);
let model: OpenAITestServer;
let workspace: Awaited<ReturnType<typeof temporaryFolder>>;
let home: Awaited<ReturnType<typeof temporaryFolder>>;

beforeAll(async () => {
  model = await startOpenAIServer();
  workspace = await temporaryFolder("clio-outside-tmux-workspace-");
  home = await temporaryFolder("clio-outside-tmux-home-");
  await mkdir(path.join(home.path, ".clio"));
  await writeFile(path.join(home.path, ".clio", "config.json"), JSON.stringify({ mcpServers: { calc: { command: process.execPath, args: [testServer, "plain", home.path] } } }));
});

afterAll(async () => {
  terminal.stop();
  await model?.close();
  await workspace?.remove();
  await home?.remove();
});

/** Pids of processes whose command line mentions this test's home folder (the MCP server's). */
async function serversRunning(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const command = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (command.includes(testServer) && command.includes(home.path)) pids.push(Number(entry));
  }
  return pids;
}

describe("the chat with an MCP server and a todo list", () => {
  it("runs the server's tool, shows the checklist, and stops the server on exit", async () => {
    terminal.start(
      "chat",
      [
        `cd ${JSON.stringify(workspace.path)} &&`,
        `env NO_COLOR=1 CLIO_HOME=${JSON.stringify(home.path)} HOME=${JSON.stringify(home.path)}`,
        `node ${JSON.stringify(path.join(root, "dist/clio.cjs"))}`,
        `--base-url ${model.baseURL} --model ${testModelName} --api-key test-key --permission-mode yolo;`,
        "echo CLIO-EXITED-$?; sleep 30",
      ].join(" "),
    );
    await terminal.waitFor("chat", "Type a request");
    model.enqueue(
      { reply: 'Planning.\n[TODO:action=write:items="[\\"Add the numbers\\", \\"Report\\"]"]\n[CALC:action=add:a=2:b=3]\n' },
      { reply: "[TODO:action=update:id=1:status=done]\n" },
      { reply: "2 + 3 = 5." },
    );
    terminal.type("chat", "add 2 and 3");
    const shown = await terminal.waitFor("chat", "2 + 3 = 5.");
    expect(shown).toContain("│ [ ] 1. Add the numbers");
    expect(shown).toContain("│ [x] 1. Add the numbers");
    expect(shown).toMatch(/✓ calc add answered/);
    const system = String(model.requests[0]!.body.messages[0].content);
    expect(system).toContain("CALC — Tools of the MCP server calc (7 tools).");
    expect(String(model.requests[1]!.body.messages.at(-1).content)).toContain("5 (number number)");
    expect(await serversRunning()).toHaveLength(1);
    terminal.type("chat", "/exit");
    await terminal.waitFor("chat", "CLIO-EXITED-0");
    const until = Date.now() + 5000;
    while ((await serversRunning()).length > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await serversRunning()).toEqual([]);
  });
});
