/**
 * MCP servers as protocols, against real servers: the filesystem and everything servers from
 * the registry over stdio, a test server with raw schemas over stdio, and a streamable-HTTP
 * server on 127.0.0.1 written with the SDK.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Conversation } from "../../src/agent/conversation.js";
import type { ClioConfig } from "../../src/config/schema.js";
import type { CommandResult } from "../../src/manager/result.js";
import { loadProtocols } from "../../src/protocol-sources.js";
import { ScriptedProvider, type ModelProvider, type ModelRequest } from "../../src/providers/index.js";
import { runScript } from "../../src/replay/run-script.js";
import { createRuntime } from "../../src/runtime.js";
import { startMcpHttpServer } from "../support/mcp-http-server.js";
import { gone, processesMentioning } from "../support/processes.js";
import { temporaryFolder } from "../support/workspace.js";

const stdioServer = path.resolve("test/fixtures/mcp/stdio-server.mjs");
const node = process.execPath;
type Servers = ClioConfig["mcpServers"];
const declared = (config: Servers[string]["config"]): Servers[string] => ({ config, source: "test config" });
// Every server a test starts carries the test's folder (an argument the server ignores, or a
// variable), so afterEach finds exactly this test's servers and checks that none is left.
const testServer = (mode = "plain", extra: Partial<Servers[string]["config"]> = {}) => declared({ command: node, args: [stdioServer, mode, folder.path], ...extra });
const filesystemServer = (root: string) => declared({ command: node, args: [path.resolve("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), root] });
const everythingServer = () =>
  declared({ command: node, args: [path.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js")], env: { CLIO_TEST_FOLDER: folder.path } });

let folder: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  folder = await temporaryFolder("clio-mcp-");
  await writeFile(path.join(folder.path, "notes.txt"), "hello from the workspace\n");
});
afterEach(async () => {
  expect(await gone(await processesMentioning(folder.path))).toBe(true);
  await folder.remove();
});

describe("MCP servers through replay", () => {
  it("calls tools of the filesystem, everything and a raw-schema server, with typed arguments and described content", async () => {
    const script = [
      `[FS:action=read_text_file:path="${path.join(folder.path, "notes.txt")}"]`,
      "[EVERYTHING:action=get-sum:a=2:b=3]",
      "[TEST:action=add:a=2.5:b=4]",
      "[TEST:action=picture]",
      "[TEST:action=fail]",
      "[TEST:action=add:a=1]",
      "[TEST:action=add:a=x:b=1]",
      '[TEST:action=shout:text="hi":times=5]',
      '[TEST:action=shout:text="hi":times=2]',
      `[FS:action=read_text_file:path="/etc/hostname"]`,
    ].join("\n");
    const run = await runScript(script, {
      workspace: folder.path,
      permissionMode: "yolo",
      extensions: { mcpServers: { fs: filesystemServer(folder.path), everything: everythingServer(), test: testServer() } },
    });
    const results = run.outcome.results;
    expect(results[0]).toMatchObject({ ok: true, protocol: "FS", action: "read_text_file", permissionClass: "read", output: "hello from the workspace\n" });
    expect(results[1]).toMatchObject({ ok: true, output: expect.stringContaining("5") });
    expect(results[2]).toMatchObject({ ok: true, output: "6.5 (number number)" });
    expect(results[3]).toMatchObject({
      ok: true,
      permissionClass: "network",
      output: "[image: image/png, 300 bytes]\n[resource link: report.pdf file:///tmp/report.pdf (application/pdf)]",
    });
    expect(results[4]).toMatchObject({ ok: false, error: { code: "exec_failed", message: "TEST.fail failed: the disk is full" } });
    expect(results[5]).toMatchObject({ ok: false, error: { code: "missing_parameter", message: expect.stringContaining("b is missing") } });
    expect(results[6]).toMatchObject({ ok: false, error: { code: "invalid_argument", message: expect.stringContaining("expected a number") } });
    expect(results[7]).toMatchObject({
      ok: false,
      error: { code: "invalid_argument", message: expect.stringMatching(/TEST\.shout: the arguments do not fit the tool's schema: .*3/) },
    });
    expect(results[8]).toMatchObject({ ok: true, output: "HIHI" });
    expect(results[9]).toMatchObject({ ok: false, error: { code: "exec_failed", message: expect.stringMatching(/^FS\.read_text_file failed: .*(denied|outside)/i) } });
    expect(await gone(await processesMentioning(folder.path))).toBe(true);
    expect(await processesMentioning(folder.path)).toEqual([]);
  });

  it("refuses a tool that is not read-only in plan mode, and runs a read-only one", async () => {
    const target = path.join(folder.path, "made.txt");
    const run = await runScript(`[FS:action=write_file:path="${target}":content="x"] [FS:action=list_directory:path="${folder.path}"]`, {
      workspace: folder.path,
      permissionMode: "plan",
      extensions: { mcpServers: { fs: filesystemServer(folder.path) } },
    });
    expect(run.outcome.results[0]).toMatchObject({ ok: false, permissionClass: "exec", error: { code: "permission_denied" } });
    expect(run.outcome.results[1]).toMatchObject({ ok: true, output: expect.stringContaining("[FILE] notes.txt") });
    expect(existsSync(target)).toBe(false);
  });
});

describe("MCP servers in the agent loop", () => {
  it("lists three real servers' tools in the system prompt (34 tools fit the shared budget whole) and runs the model's call", async () => {
    const requests: ModelRequest[] = [];
    const scripted = new ScriptedProvider({ replies: ["Adding. [TEST:action=add:a=2:b=3]", "It is 5."], origin: "test" });
    const provider: ModelProvider = { name: "spy", model: "spy", api: "chat", stream: (request) => (requests.push(request), scripted.stream(request)) };
    const results: CommandResult[] = [];
    const runtime = await createRuntime({
      workspace: folder.path,
      permissionMode: "yolo",
      extensions: { mcpServers: { test: testServer(), fs: filesystemServer(folder.path), everything: everythingServer() } },
      onEvent: (event) => void (event.type === "command-finished" && results.push(event.result)),
    });
    const conversation = new Conversation({ provider, runtime, maxTurns: 3 });
    const outcome = await conversation.prompt("What is 2 + 3?");
    const pid = Number(await serverPid(runtime));
    await runtime.manager.dispose();
    expect(outcome.reason).toBe("done");
    expect(results[0]).toMatchObject({ ok: true, protocol: "TEST", action: "add", output: "5 (number number)" });
    const system = requests[0]!.messages[0]!.content;
    expect(system).toContain("TEST — Tools of the MCP server test (7 tools).");
    expect(system).toContain("  add a b — Add two numbers");
    expect(system).toContain("FS — Tools of the MCP server fs (14 tools).\n  read_file path tail? head? — Read the complete contents of a file as text\n");
    expect(system).toContain("  get-sum a b — Returns the sum of two numbers\n");
    expect(system).not.toMatch(/more actions|descriptions shortened/);
    expect(await gone([pid, ...(await processesMentioning(folder.path))])).toBe(true);
  });
});

async function serverPid(runtime: Awaited<ReturnType<typeof createRuntime>>): Promise<string> {
  const { scriptSubmissions } = await import("../../src/replay/replay.js");
  const [result] = await runtime.manager.runAll(scriptSubmissions("[TEST:action=pid]").submissions);
  return result!.output;
}

describe("a streamable-HTTP server on 127.0.0.1", () => {
  let server: Awaited<ReturnType<typeof startMcpHttpServer>>;
  beforeAll(async () => {
    server = await startMcpHttpServer();
  });
  afterAll(() => server.close());

  it("calls its tools, and a tool that hangs past the call timeout fails alone", async () => {
    const run = await runScript('[REMOTE:action=add:a=1:b=2] [REMOTE:action=hang] [REMOTE:action=shout:text="ok"]', {
      workspace: folder.path,
      permissionMode: "yolo",
      stopOnError: false,
      extensions: { mcpServers: { remote: declared({ url: server.url, callTimeout: 1 }) } },
    });
    const [added, hung, shouted] = run.outcome.results;
    expect(added).toMatchObject({ ok: true, output: "3 (number number)" });
    expect(hung).toMatchObject({ ok: false, error: { code: "timeout", message: "The MCP server remote did not answer hang within 1 s." } });
    expect(shouted).toMatchObject({ ok: true, output: "OK" });
    expect(server.requests()).toBeGreaterThan(2);
  });
});

describe("servers that misbehave", () => {
  it("keeps each failure with its own protocol: exit at start, missing program, bad tools, garbage on stdout, a name clio has", async () => {
    const logged: string[] = [];
    const registry = await loadProtocols({
      cwd: folder.path,
      log: (level, message) => void logged.push(`${level} ${message}`),
      mcpServers: {
        broken: testServer("exit"),
        missing: declared({ command: "clio-no-such-program-17" }),
        odd: testServer("bad-tools"),
        noisy: testServer("garbage"),
        "file-op": testServer(),
        test: testServer(),
      },
    });
    expect(registry.warnings).toEqual(["test config: the MCP server file-op would be the protocol FILE_OP, which clio already has; it is left out. Rename its key."]);
    await registry.discover();
    try {
      expect(registry.notes("BROKEN").failure).toMatch(/The MCP server broken \(.*stdio-server\.mjs exit [^)]*\) could not start: .*\n[\s\S]*cannot open the database/);
      expect(registry.get("BROKEN")!.summary).toMatch(/^Tools of the MCP server broken: unavailable/);
      expect(registry.notes("MISSING").failure).toBe('The MCP server missing could not start: the program "clio-no-such-program-17" was not found.');
      expect(registry.notes("ODD").notes).toEqual([
        'The tool "has space" of the MCP server odd is left out: its name is not an action word (letters, digits, _, . and -, at most 64).',
        'The tool "add" of the MCP server odd is listed twice; the first one is kept.',
        expect.stringMatching(/^The tool "huge" of the MCP server odd is left out: its input schema is too large \(\d[\d,]* characters; at most 65,536\)\.$/),
        expect.stringMatching(/^The tool "invalid" of the MCP server odd is left out: its input schema is invalid/),
        'The tool "odd-key" of the MCP server odd is left out: its parameter "a:b" cannot be written as a key (letters, digits, _ and -, not "action").',
      ]);
      expect(Object.keys(registry.get("ODD")!.actions)).toEqual(["add", "shout", "fail", "hang", "crash", "picture", "pid"]);
      const runtime = await createRuntime({ workspace: folder.path, permissionMode: "yolo", registry });
      const { scriptSubmissions } = await import("../../src/replay/replay.js");
      const [noisy, test, broken] = await runtime.manager.runAll(scriptSubmissions("[NOISY:action=add:a=1:b=1] [TEST:action=add:a=2:b=2] [BROKEN:action=add:a=1:b=1]").submissions);
      expect(noisy).toMatchObject({ ok: true, output: "2 (number number)" });
      expect(logged.filter((line) => line.startsWith("warn MCP noisy: ignored what is not MCP on its stdout"))).toHaveLength(1);
      expect(test).toMatchObject({ ok: true, output: "4 (number number)" });
      expect(broken).toMatchObject({
        ok: false,
        error: {
          code: "unknown_action",
          message: expect.stringMatching(/^BROKEN has no actions to run: Tools of the MCP server broken: unavailable \(The MCP server broken .* could not start/),
        },
      });
      await runtime.manager.dispose();
    } finally {
      await registry.close();
    }
    expect(await gone(await processesMentioning(folder.path))).toBe(true);
  });

  it("stops a server that does not start within its start timeout, names it with its last stderr line, and keeps the others", async () => {
    const runtime = await createRuntime({
      workspace: folder.path,
      permissionMode: "yolo",
      extensions: { mcpServers: { stuck: testServer("silent", { startTimeout: 2 }), test: testServer() } },
    });
    await runtime.registry.discover();
    expect(runtime.registry.notes("STUCK").failure).toBe("The MCP server stuck did not start within 2 s.\nIts last stderr lines:\nwaiting for a database that never comes");
    const { scriptSubmissions } = await import("../../src/replay/replay.js");
    const [stuck, test] = await runtime.manager.runAll(scriptSubmissions("[STUCK:action=add:a=1:b=1] [TEST:action=add:a=1:b=2]").submissions);
    await runtime.manager.dispose();
    expect(stuck).toMatchObject({ ok: false, error: { code: "unknown_action", message: expect.stringContaining("did not start within 2 s") } });
    expect(test).toMatchObject({ ok: true, output: "3 (number number)" });
    expect(await gone(await processesMentioning(folder.path))).toBe(true);
  });

  it("reports a server that crashes during a call, and starts it again for the next call", async () => {
    const runtime = await createRuntime({ workspace: folder.path, permissionMode: "yolo", extensions: { mcpServers: { test: testServer() } } });
    await runtime.registry.discover();
    const { scriptSubmissions } = await import("../../src/replay/replay.js");
    const run = (text: string) => runtime.manager.runAll(scriptSubmissions(text).submissions);
    const [first] = await run("[TEST:action=pid]");
    const [crashed] = await run("[TEST:action=crash]");
    const [second] = await run("[TEST:action=pid]");
    await runtime.manager.dispose();
    expect(crashed).toMatchObject({ ok: false, error: { code: "exec_failed", message: expect.stringContaining("The MCP server test failed on crash") } });
    expect(second!.ok).toBe(true);
    expect(second!.output).not.toBe(first!.output);
    expect(await gone([Number(first!.output), Number(second!.output)])).toBe(true);
  });
});

describe("fuzzing", () => {
  // Every fuzz case starts the server again (its manager is disposed after the case): a loaded machine needs time.
  it("covers an MCP server's and a shell protocol's actions from their declared parameters", async () => {
    const { fuzzProtocol } = await import("../../src/fuzz/protocol-fuzz.js");
    const registry = await loadProtocols({
      cwd: folder.path,
      mcpServers: { test: testServer() },
      shellProtocols: {
        WORDS: { config: { summary: "Count words", actions: { count: { summary: "Count", command: "wc -w {path}", parameters: { path: "text" } } } }, source: "test config" },
      },
    });
    await registry.discover(["TEST"]);
    // Without the tools that hang or kill their server on purpose: those are this file's other tests.
    const test = registry.get("TEST")!;
    const calm = { ...test, actions: Object.fromEntries(Object.entries(test.actions).filter(([name]) => name !== "hang" && name !== "crash")) };
    for (const protocol of [calm, registry.get("WORDS")!]) {
      const outcome = await fuzzProtocol(protocol, { runs: 15, seed: 17 });
      expect(outcome.failure, outcome.failure?.problem).toBeUndefined();
      expect(outcome.counts.handled + outcome.counts.gated).toBeGreaterThan(0);
    }
    // Each fuzz case stopped the server when its manager was disposed; the next use starts it again.
    const runtime = await createRuntime({ workspace: folder.path, permissionMode: "yolo", registry });
    const { scriptSubmissions } = await import("../../src/replay/replay.js");
    const [after] = await runtime.manager.runAll(scriptSubmissions("[TEST:action=add:a=1:b=1]").submissions);
    expect(after).toMatchObject({ ok: true, output: "2 (number number)" });
    await runtime.manager.dispose();
  }, 240_000);
});

/** `${NAME}` as a config file holds it (not a template placeholder). */
const variable = (text: string) => `\${${text}}`;

describe("variables in a server's declaration", () => {
  it("expand NAME and NAME:-default in braces from the environment; a server using an unset one is left out with a warning", async () => {
    const registry = await loadProtocols({
      cwd: folder.path,
      env: { FIXTURE: stdioServer },
      mcpServers: {
        test: declared({ command: node, args: [variable("FIXTURE"), variable("MODE:-plain"), folder.path], env: { TOKEN: variable("FIXTURE") } }),
        other: declared({ command: node, args: [variable("NOT_SET_ANYWHERE")] }),
      },
    });
    expect(registry.warnings).toEqual([
      `test config: the MCP server other uses ${variable("NOT_SET_ANYWHERE")}, which is not set; it is left out. Set it, or write ${variable("NAME:-default")}.`,
    ]);
    expect(registry.get("OTHER")).toBeUndefined();
    await registry.discover();
    expect(Object.keys(registry.get("TEST")!.actions), registry.notes("TEST").failure).toContain("add");
    await registry.close();
  });
});
