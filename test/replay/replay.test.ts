import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { defineAction, defineProtocol, parameter } from "../../protocols/contract/protocol.js";
import { ProtocolRegistry } from "../../src/registry.js";
import { compareResults } from "../../src/replay/compare.js";
import { buildExpectationFile } from "../../src/replay/expectations.js";
import { formatPlan, planScript } from "../../src/replay/plan.js";
import { runScript } from "../../src/replay/run-script.js";
import { notesProtocol } from "../manager/notes-protocol.js";
import { temporaryFolder } from "../support/workspace.js";
import { Workspace } from "../../tools/workspace.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
beforeEach(async () => {
  folder = await temporaryFolder("clio-replay-test-");
});
afterEach(async () => {
  await folder.remove();
});

/** A protocol that records any use of it: a dry run must leave `calls` empty. */
function tripwireProtocol(calls: string[]) {
  const action = (permission: "read" | "write" | "exec" | "network") =>
    defineAction<{ path: string }>({
      summary: `A ${permission} action that must not run.`,
      permission,
      parameters: { path: parameter.text("a path") },
      describe: (args) => `Touching ${args.path}`,
      async handler(args) {
        calls.push(`${permission} ${args.path}`);
        throw new Error("a dry run called a handler");
      },
    });
  return defineProtocol({
    name: "TRIP",
    summary: "Fails if used.",
    setup: () => {
      calls.push("setup");
      return undefined;
    },
    actions: { look: action("read"), change: action("write"), run: action("exec"), fetch: action("network") },
  });
}

describe("dry runs", () => {
  const script = [
    'Prose with a [link](x) and an inert `[TRIP:action=run:path="a"]`.',
    '[TRIP:action=look:path="a"]',
    '[TRIP:action=change:path="b"]',
    '[TRIP:action=run:path="c"]',
    '[TRIP:action=fly:path="d"]',
    '[TRIP:action=look:path="unterminated]',
  ].join("\n");

  it("call no handler and no setup, and say what would run, ask, be refused or fail", async () => {
    const calls: string[] = [];
    const plan = await planScript(script, {
      registry: new ProtocolRegistry([tripwireProtocol(calls)]),
      mode: "auto-edit",
      interactive: true,
      workspace: await Workspace.open(folder.path),
    });
    expect(calls).toEqual([]);
    expect(plan.commands.map((command) => [command.line, command.action, command.verdict])).toEqual([
      [2, "look", "run"],
      [3, "change", "run"],
      [4, "run", "ask"],
      [5, "fly", "invalid"],
      [6, null, "syntax"],
    ]);
    expect(plan.mentions).toHaveLength(1);
    expect(formatPlan(plan)).toContain("Dry run: nothing was executed. 5 command(s): 2 run, 1 ask, 1 invalid, 1 syntax; 1 mention(s) in code stay inert.");
  });

  it("follow the mode and the rules: plan refuses changes, no terminal refuses questions, deny rules refuse", async () => {
    const registry = new ProtocolRegistry([tripwireProtocol([])]);
    const workspace = await Workspace.open(folder.path);
    const inPlan = await planScript(script, { registry, mode: "plan", workspace });
    expect(inPlan.commands.slice(0, 3).map((command) => command.verdict)).toEqual(["run", "refuse", "refuse"]);
    expect(inPlan.commands[1]!.reason).toContain("plan mode is read-only");
    const noTerminal = await planScript(script, { registry, mode: "ask", workspace });
    expect(noTerminal.commands[1]).toMatchObject({ verdict: "refuse", errorCode: "permission_denied" });
    const denied = await planScript(script, { registry, mode: "yolo", rules: { deny: ["TRIP:look"] }, workspace });
    expect(denied.commands.slice(0, 3).map((command) => command.verdict)).toEqual(["refuse", "run", "run"]);
  });
});

describe("running a script as a test", () => {
  const registry = new ProtocolRegistry([notesProtocol]);

  it("gives every result in recorded form and matches its own expectations on a second run", async () => {
    const text = '[NOTES:action=set:key="a":value="hello"]\n[NOTES:action=get:key="a"]\n[NOTES:action=get:key="b"]\n';
    const first = await runScript(text, { workspace: folder.path, permissionMode: "yolo", registry });
    expect(first.expected.map((result) => [result.ok, result.output, result.error?.code])).toEqual([
      [true, ["saved a"], undefined],
      [true, ["hello"], undefined],
      [false, [], "not_found"],
    ]);
    const second = await runScript(text, { workspace: folder.path, permissionMode: "yolo", registry });
    expect(compareResults(buildExpectationFile("s.md", first.expected), "s.md", second.expected)).toEqual([]);
  });

  it("stops at a syntax error with --stop-on-error: nothing after it runs", async () => {
    const text = '[NOTES:action=set:key="a":value="1"]\n[NOTES:action=set:key="b" value="2"]\n[NOTES:action=set:key="c":value="3"]\n';
    const run = await runScript(text, { workspace: folder.path, permissionMode: "yolo", registry, stopOnError: true });
    expect(run.outcome.results).toHaveLength(2);
    expect(run.outcome.results[1]).toMatchObject({ ok: false, line: 2, error: { code: "syntax_error" } });
    expect(run.outcome).toMatchObject({ total: 3, ran: 2, failed: 1, stopped: true });
    const streamed = await runScript(text, { workspace: folder.path, permissionMode: "yolo", registry, stopOnError: true, keepResults: false });
    expect(streamed.outcome).toMatchObject({ results: [], total: 3, ran: 2, failed: 1, stopped: true });
  });

  it("streams results without keeping them when asked: the same results, in order, with counts", async () => {
    const text = '[NOTES:action=set:key="a":value="hello"]\n[NOTES:action=get:key="a"]\n[NOTES:action=get:key="b"]\n[NOTES:action=set:key="c" value="2"]\n';
    const kept = await runScript(text, { workspace: folder.path, permissionMode: "yolo", registry });
    const streamed: unknown[] = [];
    const run = await runScript(text, { workspace: folder.path, permissionMode: "yolo", registry, keepResults: false, onResult: (result) => streamed.push(result) });
    const shape = (result: unknown) => {
      const { ok, line, output, error } = result as { ok: boolean; line: number; output: string; error?: { code: string } };
      return [ok, line, output, error?.code];
    };
    expect(streamed.map(shape)).toEqual(kept.outcome.results.map(shape));
    expect(streamed.map(shape)).toEqual([
      [true, 1, "saved a", undefined],
      [true, 2, "hello", undefined],
      [false, 3, "", "not_found"],
      [false, 4, "", "syntax_error"],
    ]);
    expect(run.outcome).toMatchObject({ results: [], commands: [], ran: 4, failed: 2, total: 4, stopped: false });
    expect(kept.outcome).toMatchObject({ ran: 4, failed: 2, total: 4, stopped: false });
    expect(run.expected).toEqual([]);
  });

  it("runs in a fresh copy of a fixture and leaves the fixture and no copy behind", async () => {
    const fixture = path.join(folder.path, "fixture");
    await mkdir(fixture);
    await writeFile(path.join(fixture, "kept.txt"), "original\n");
    const writer = defineProtocol({
      name: "WRITER",
      summary: "Writes a file.",
      actions: {
        put: defineAction<{ path: string }>({
          summary: "Overwrites a file and tells where the workspace is.",
          permission: "write",
          parameters: { path: parameter.text("the file") },
          describe: (args) => `Writing ${args.path}`,
          async handler(args, { environment }) {
            const resolved = await environment.workspace.resolve(args.path, "write");
            await writeFile(resolved.absolute, "changed\n");
            return { output: `wrote ${resolved.absolute}` };
          },
        }),
      },
    });
    const run = await runScript('[WRITER:action=put:path="kept.txt"]', { freshCopy: fixture, permissionMode: "yolo", registry: new ProtocolRegistry([writer]) });
    expect(run.expected[0]!.output).toEqual(["wrote <workspace>/kept.txt"]);
    expect(await readFile(path.join(fixture, "kept.txt"), "utf8")).toBe("original\n");
    await expect(readFile(path.join(run.workspace, "kept.txt"))).rejects.toThrow(/ENOENT/);
  });

  it("says which fixture folder is missing", async () => {
    await expect(runScript('[NOTES:action=get:key="a"]', { freshCopy: path.join(folder.path, "nope"), permissionMode: "yolo", registry })).rejects.toThrow(
      /Cannot copy the fixture folder .*nope: no such folder/,
    );
  });
});
