/**
 * Through the bundled CLI: config.yaml beside config.json, the log (--debug, CLIO_LOG_LEVEL),
 * MCP servers and shell protocols in `clio protocols`, `-p` and a project's config.
 */
import { statSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startOpenAIServer, testModelName, type OpenAITestServer } from "../support/openai-server.js";
import { gone, processesMentioning } from "../support/processes.js";
import { temporaryFolder } from "../support/workspace.js";
import { ensureBuilt, isolatedEnv, repositoryRoot, runCli } from "./support.js";

const testServer = path.join(repositoryRoot, "test/fixtures/mcp/stdio-server.mjs");
let home: Awaited<ReturnType<typeof temporaryFolder>>;
let workspace: Awaited<ReturnType<typeof temporaryFolder>>;
beforeAll(() => ensureBuilt());
beforeEach(async () => {
  home = await temporaryFolder("clio-outside-home-");
  workspace = await temporaryFolder("clio-outside-workspace-");
  await mkdir(path.join(home.path, ".clio"));
});
afterEach(async () => {
  // The test servers carry the workspace's path: none may outlive the clio that started it.
  expect(await gone(await processesMentioning(workspace.path))).toBe(true);
  await home.remove();
  await workspace.remove();
});

const clio = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: workspace.path, env: isolatedEnv(home.path, env) });
const userFile = (name: string) => path.join(home.path, ".clio", name);

describe("config.yaml", () => {
  it("is read like config.json: MCP servers and shell protocols listed by clio protocols", async () => {
    await writeFile(
      userFile("config.yaml"),
      [
        "model: from-yaml",
        "mcpServers:",
        "  my-tools:",
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(testServer)}, plain, ${JSON.stringify(workspace.path)}]`,
        "shellProtocols:",
        "  WORDS:",
        "    summary: Count words",
        "    actions:",
        "      count:",
        "        summary: Count the words of a file",
        '        command: "wc -w {path}"',
        "        parameters: { path: text }",
      ].join("\n"),
    );
    const config = await clio(["config"]);
    expect(config.stdout).toMatch(/^model = from-yaml +\(user:.*config\.yaml\)$/m);
    const listed = await clio(["protocols"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("MY_TOOLS — Tools of the MCP server my-tools (7 tools).");
    expect(listed.stdout).toMatch(/^ {2}add \(read\) Add two numbers\. Says the types it got\.$/m);
    expect(listed.stdout).toContain("WORDS — Count words");
    const one = await clio(["protocols", "my_tools"]);
    expect(one.stdout).toMatch(/^ {6}a word {2}The first number$/m);
  });

  it("beside config.json is an error naming both; bad YAML names the line", async () => {
    await writeFile(userFile("config.yaml"), "model: a\n");
    await writeFile(userFile("config.json"), '{"model": "b"}');
    const both = await clio(["config"]);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain(`Two config files sit side by side: ${userFile("config.json")} and ${userFile("config.yaml")}`);
    await rm(userFile("config.json"));
    await writeFile(userFile("config.yaml"), "model: a\n  bad: [indent\n");
    const bad = await clio(["config"]);
    expect(bad.stderr).toMatch(/config\.yaml:\d+:\d+: invalid YAML/);
  });

  it("names the server of a bad MCP declaration", async () => {
    await writeFile(userFile("config.json"), JSON.stringify({ mcpServers: { fs: { command: "node", url: "http://127.0.0.1:1/mcp" } } }));
    const result = await clio(["protocols"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("mcpServers.fs needs either command (a program to start) or url (a streamable-HTTP server), not both");
  });
});

describe("a project's servers", () => {
  it("are left out with a warning in a folder nobody trusted, from .clio/config.json and .mcp.json alike", async () => {
    await mkdir(path.join(workspace.path, ".clio"));
    const server = { command: process.execPath, args: [testServer, "plain", workspace.path] };
    await writeFile(
      path.join(workspace.path, ".clio", "config.json"),
      JSON.stringify({ mcpServers: { sneaky: server }, shellProtocols: { RM: { summary: "x", actions: { all: { summary: "x", command: "rm -rf ~" } } } } }),
    );
    await writeFile(path.join(workspace.path, ".mcp.json"), JSON.stringify({ mcpServers: { other: server } }));
    const result = await clio(["protocols"]);
    expect(result.code).toBe(0);
    // The trust decision (src/config/trust.ts) leaves out what starts programs in a folder nobody trusted.
    expect(result.stderr).toMatch(
      /ignored what .*config\.json and .*\.mcp\.json loosen \(mcpServers=.*shellProtocols=.*, \.mcp\.json mcpServers=.*other.*\) because .* is not a trusted folder/,
    );
    expect(result.stdout).not.toMatch(/^(SNEAKY|OTHER|RM) /m);
  });
});

describe("the log", () => {
  let model: OpenAITestServer;
  beforeEach(async () => {
    model = await startOpenAIServer();
  });
  afterEach(() => model.close());

  it("--debug logs requests, timings and commands to the file (0600) and stderr, never the key; an MCP call works in -p", async () => {
    await writeFile(userFile("config.json"), JSON.stringify({ mcpServers: { calc: { command: process.execPath, args: [testServer, "plain", workspace.path] } } }));
    model.enqueue({ reply: "[CALC:action=add:a=2:b=3]" }, { reply: "Five." });
    const secret = "sk-test-secret-key-1234567890";
    const result = await clio(["-p", "add 2 and 3", "--debug", "--base-url", model.baseURL, "--model", testModelName, "--api-key", secret, "--permission-mode", "yolo"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Five\.\n$/);
    expect(String(model.requests[1]!.body.messages.at(-1).content)).toContain("5 (number number)");
    const log = await readFile(userFile("clio.log"), "utf8");
    expect(statSync(userFile("clio.log")).mode & 0o777).toBe(0o600);
    expect(log).toMatch(/INFO {2}model request \{"provider":"custom","model":"test-model"/);
    expect(log).toMatch(/INFO {2}model reply \{"finish":"stop","firstTextMs":\d+,"totalMs":\d+/);
    expect(log).toMatch(/INFO {2}command finished \{"id":1,"command":"CALC.add","ok":true,"ms":/);
    expect(log).toContain("MCP calc: started");
    expect(log).not.toContain(secret);
    expect(result.stderr).toContain("[clio info] model request");
    expect(result.stderr).not.toContain(secret);
  });

  it("CLIO_LOG_LEVEL=warn writes only warnings and errors, and not to stderr; a wrong level is refused", async () => {
    model.enqueue({ reply: "Hi." });
    const result = await clio(["-p", "hi", "--base-url", model.baseURL, "--model", testModelName, "--api-key", "x"], { CLIO_LOG_LEVEL: "warn" });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("[clio");
    expect(await readFile(userFile("clio.log"), "utf8")).not.toContain("INFO");
    const wrong = await clio(["config"], { CLIO_LOG_LEVEL: "loud" });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('CLIO_LOG_LEVEL="loud" is not a log level; use error, warn, info or debug.');
  });
});
