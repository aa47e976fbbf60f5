/**
 * A project's `.mcp.json` with real servers from the registry (server-everything and
 * server-filesystem), through the bundled CLI and the chat's setup: its servers start only in a
 * trusted folder (trustedFolders, --trust-project, or the chat's question), the same key in the
 * person's config is replaced and `clio protocols` says so, and no server outlives clio.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startOpenAIServer, testModelName, type OpenAITestServer } from "../support/openai-server.js";
import { gone, processesMentioning } from "../support/processes.js";
import { temporaryFolder } from "../support/workspace.js";
import { ensureBuilt, isolatedEnv, repositoryRoot, runCli } from "./support.js";

// Each test starts real servers (the everything server takes seconds on a loaded machine).
vi.setConfig({ testTimeout: 90_000 });

const packageEntry = (name: string) => path.join(repositoryRoot, "node_modules/@modelcontextprotocol", name, "dist/index.js");

let home: Awaited<ReturnType<typeof temporaryFolder>>;
let project: Awaited<ReturnType<typeof temporaryFolder>>;
beforeAll(() => ensureBuilt());
beforeEach(async () => {
  home = await temporaryFolder("clio-project-mcp-home-");
  project = await temporaryFolder("clio-project-mcp-");
  await mkdir(path.join(home.path, ".clio"));
  await writeFile(path.join(project.path, "notes.txt"), "written by the project\n");
  // Both servers carry the project's path (an argument, a variable), so the test finds them.
  await writeFile(
    path.join(project.path, ".mcp.json"),
    JSON.stringify({
      mcpServers: {
        everything: { type: "stdio", command: process.execPath, args: [packageEntry("server-everything")], env: { CLIO_TEST_PROJECT: project.path } },
        fs: { command: process.execPath, args: [packageEntry("server-filesystem"), project.path] },
      },
    }),
  );
});
afterEach(async () => {
  expect(await gone(await processesMentioning(project.path))).toBe(true);
  await home.remove();
  await project.remove();
});

const userConfig = (values: object) => writeFile(path.join(home.path, ".clio", "config.json"), JSON.stringify(values));
const clio = (args: string[]) => runCli(args, { cwd: project.path, env: isolatedEnv(home.path) });
const trustTheProject = () => userConfig({ trustedFolders: [project.path] });

describe("clio protocols", () => {
  it("leaves the servers of .mcp.json out in a folder nobody trusted, saying how to trust it, and starts nothing", async () => {
    const result = await clio(["protocols"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`clio: ignored what ${path.join(project.path, ".mcp.json")} loosens (mcpServers={"everything":`);
    expect(result.stderr).toContain(`because ${project.path} is not a trusted folder. To trust it: pass --trust-project`);
    expect(result.stdout).not.toMatch(/^(EVERYTHING|FS) /m);
  });

  it("lists them in a trusted folder, and notes that the project's fs replaces the person's", async () => {
    await userConfig({ trustedFolders: [project.path], mcpServers: { fs: { command: "clio-no-such-program-17" } } });
    const result = await clio(["protocols"]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("trusted folder");
    expect(result.stdout).toMatch(/^EVERYTHING — Tools of the MCP server everything \(\d+ tools\)\.$/m);
    expect(result.stdout).toMatch(/^ {2}get-sum \(\w+\) /m);
    expect(result.stdout).toMatch(/^FS — Tools of the MCP server fs \(\d+ tools\)\.$/m);
    expect(result.stdout).toContain(
      `  note: the MCP server fs from ${path.join(project.path, ".mcp.json")} replaces the one in ${path.join(home.path, ".clio", "config.json")} (the more local file wins).`,
    );
    expect(result.stdout).toMatch(/^ {2}read_text_file \(read\) /m);
  });

  it("lists them with --trust-project for one run", async () => {
    const result = await clio(["protocols", "everything", "--trust-project"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^EVERYTHING — /m);
  });
});

describe("clio -p", () => {
  let model: OpenAITestServer;
  beforeEach(async () => {
    model = await startOpenAIServer();
  });
  afterEach(() => model.close());
  const print = (...extra: string[]) => clio(["-p", "add 2 and 3", "--base-url", model.baseURL, "--model", testModelName, "--api-key", "x", "--permission-mode", "yolo", ...extra]);

  it("calls a tool of a .mcp.json server in a trusted folder, with numbers as numbers", async () => {
    await trustTheProject();
    model.enqueue({ reply: "[EVERYTHING:action=get-sum:a=2:b=3]" }, { reply: "Five." });
    const result = await print();
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Five\.\n$/);
    const resultBlock = String(model.requests[1]!.body.messages.at(-1).content);
    expect(resultBlock).toMatch(/EVERYTHING.*get-sum.*ok/s);
    expect(resultBlock).toContain("5");
    expect(String(model.requests[0]!.body.messages[0].content)).toContain("EVERYTHING — Tools of the MCP server everything");
  });

  it("does not know the servers in a folder nobody trusted: the call is an unknown protocol, and the warning names the file", async () => {
    model.enqueue({ reply: "[EVERYTHING:action=get-sum:a=2:b=3]" }, { reply: "Cannot." });
    const result = await print();
    expect(result.stderr).toContain(`ignored what ${path.join(project.path, ".mcp.json")} loosens (mcpServers=`);
    expect(String(model.requests[0]!.body.messages[0].content)).not.toContain("EVERYTHING");
    expect(String(model.requests[1]!.body.messages.at(-1).content)).toMatch(/unknown_protocol|no protocol/i);
  });
});

describe("clio replay", () => {
  it("runs a .mcp.json server's tool with --trust-project, and refuses it without", async () => {
    await writeFile(path.join(project.path, "script.md"), `[FS:action=read_text_file:path="${path.join(project.path, "notes.txt")}"]\n`);
    const untrusted = await clio(["replay", "script.md", "--json"]);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stdout).not.toContain("written by the project");
    expect(untrusted.stderr).toContain("is not a trusted folder");
    const trusted = await clio(["replay", "script.md", "--json", "--trust-project"]);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain("written by the project");
  });
});

describe("the chat's setup", () => {
  const setUp = async (answer: boolean) => {
    const { setUpChat } = await import("../../src/cli/chat-setup.js");
    const script = path.join(home.path, "replies.json");
    await writeFile(script, JSON.stringify({ version: 1, replies: ["Done."] }));
    const questions: string[] = [];
    const setup = await setUpChat(
      { script, model: "scripted", permissionMode: "yolo" },
      { cwd: project.path, env: { CLIO_HOME: home.path, PATH: process.env.PATH ?? "" }, warn: () => undefined, confirmTrust: async (text) => (questions.push(text), answer) },
    );
    return { setup, questions };
  };

  it("asks about .mcp.json's servers; a yes makes them protocols that work, and closing stops them", async () => {
    const { setup, questions } = await setUp(true);
    try {
      expect(questions).toHaveLength(1);
      expect(questions[0]).toContain(`${path.join(project.path, ".mcp.json")} would loosen what clio asks before doing:`);
      expect(questions[0]).toContain("  - mcpServers: {");
      expect(questions[0]).toContain("(start the programs named in mcpServers of .mcp.json)");
      // The conversation discovers every protocol for its system prompt; here the test does.
      await setup.runtime.registry.discover();
      const { scriptSubmissions } = await import("../../src/replay/replay.js");
      const [sum] = await setup.runtime.manager.runAll(scriptSubmissions("[EVERYTHING:action=get-sum:a=2:b=3]").submissions);
      expect(sum).toMatchObject({ ok: true, protocol: "EVERYTHING", action: "get-sum", output: expect.stringContaining("5") });
      expect(await processesMentioning(project.path)).not.toEqual([]);
    } finally {
      await setup.conversation.close();
      await setup.runtime.manager.dispose();
    }
  });

  it("answered no: the servers are not protocols", async () => {
    const { setup } = await setUp(false);
    try {
      expect(setup.runtime.registry.get("EVERYTHING")).toBeUndefined();
      expect(setup.runtime.registry.get("FS")).toBeUndefined();
    } finally {
      await setup.conversation.close();
      await setup.runtime.manager.dispose();
    }
  });
});
