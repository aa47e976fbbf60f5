/**
 * A replayed script that calls an MCP server only in another dialect (§4a) starts that server:
 * protocolsNamedIn finds the names dialect-shaped calls give, before any tool is known.
 */
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ClioConfig } from "../../src/config/schema.js";
import { discoverProtocolsOf, protocolsNamedIn } from "../../src/protocol-sources.js";
import { loadBuiltinProtocols } from "../../src/registry.js";
import { runScript } from "../../src/replay/run-script.js";
import { gone, processesMentioning } from "../support/processes.js";
import { temporaryFolder } from "../support/workspace.js";

describe("protocolsNamedIn", () => {
  it("names the protocols of clio's commands and every protocol a dialect call may name", () => {
    const named = (text: string) => protocolsNamedIn(text).sort();
    expect(named('[FILE_OP:action=read:path="a"]')).toEqual(["FILE_OP"]);
    expect(named('<tool_call>{"name": "MYSERVER.lookup", "arguments": {"q": "x"}}</tool_call>')).toEqual(["MYSERVER", "TOOL_CALL"]);
    expect(named('<tool_call>{"arguments": {"q": "x"}, "name": "my-server_lookup"}</tool_call>')).toEqual(expect.arrayContaining(["MY", "MY_SERVER"]));
    expect(named("<tool_call>\n<function=DOCS.search>\n<parameter=q>\nx\n</parameter>\n</function>\n</tool_call>")).toContain("DOCS");
    expect(named('  WIKI.page(title="Home")')).toContain("WIKI");
    expect(named('WIKI(action="page", title="Home")')).toContain("WIKI");
    expect(named('[WIKI(action="page")]')).toContain("WIKI");
    expect(named("<WIKI><action>page</action></WIKI>")).toContain("WIKI");
    expect(named('[WIKI action=page title="Home"]')).toContain("WIKI");
    expect(named("[MY SERVER:action=x]")).toContain("MY_SERVER");
    expect(named("［WIKI：action=page］")).toContain("WIKI");
    expect(named('{"name": "WIKI", "arguments": {"action": "page"}}')).toContain("WIKI");
  });

  it("names nothing for prose, and ignores a ( or { that does not begin a line's call", () => {
    expect(protocolsNamedIn("Plain prose, with (brackets) and a {brace}.\n")).toEqual([]);
    expect(protocolsNamedIn("see notes (WIKI) here")).toEqual([]);
  });
});

describe("discoverProtocolsOf", () => {
  it("discovers the protocols a script names, and only while some protocol has actions to learn", async () => {
    const registry = await loadBuiltinProtocols();
    expect(registry.hasUndiscovered()).toBe(false);
    const learned: string[] = [];
    const outside = (name: string) => ({
      name,
      summary: name,
      actions: {},
      discover: async () => {
        learned.push(name);
        return [];
      },
    });
    registry.register(outside("WIKI"));
    registry.register(outside("DOCS"));
    expect(registry.hasUndiscovered()).toBe(true);
    await discoverProtocolsOf(registry, 'WIKI.page(title="Home")\n[FILE_OP:action=read:path="a"]\n');
    expect(learned).toEqual(["WIKI"]);
    expect(registry.hasUndiscovered()).toBe(true);
    await discoverProtocolsOf(registry, "<DOCS><action>search</action></DOCS>");
    expect(learned).toEqual(["WIKI", "DOCS"]);
    expect(registry.hasUndiscovered()).toBe(false);
  });
});

describe("a replayed script written only in dialect calls", () => {
  const stdioServer = path.resolve("test/fixtures/mcp/stdio-server.mjs");
  let folder: { path: string; remove(): Promise<void> };
  beforeEach(async () => {
    folder = await temporaryFolder("clio-dialect-mcp-");
  });
  afterEach(async () => {
    expect(await gone(await processesMentioning(folder.path))).toBe(true);
    await folder.remove();
  });

  it("starts the MCP server its calls name and runs them", async () => {
    const test: ClioConfig["mcpServers"][string] = { config: { command: process.execPath, args: [stdioServer, "plain", folder.path] }, source: "test config" };
    const script = ['<tool_call>{"name": "TEST.add", "arguments": {"a": 2, "b": 3}}</tool_call>', "", 'TEST.shout(text="hi", times=2)', ""].join("\n");
    const run = await runScript(script, { workspace: folder.path, permissionMode: "yolo", extensions: { mcpServers: { test } } });
    expect(run.outcome.results).toHaveLength(2);
    expect(run.outcome.results[0]).toMatchObject({ ok: true, protocol: "TEST", action: "add", output: "5 (number number)" });
    expect(run.outcome.results[1]).toMatchObject({ ok: true, protocol: "TEST", action: "shout", output: "HIHI" });
  });
});
