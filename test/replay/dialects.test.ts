/**
 * `clio replay` reads a script the way the agent reads a reply: calls written in another dialect
 * run as the equivalent command, or come back as an error whose hint is that command — the same
 * commands and errors `clio parse` reports for the text.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { buildParseReport, parseText } from "../../src/parse-report.js";
import { loadBuiltinProtocols, type ProtocolRegistry } from "../../src/registry.js";
import { formatPlan, planScript } from "../../src/replay/plan.js";
import { scriptSubmissions, selectorFor } from "../../src/replay/replay.js";
import { runScript } from "../../src/replay/run-script.js";
import { callVocabularyOf } from "../../src/call-vocabulary.js";
import { Workspace } from "../../tools/workspace.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let registry: ProtocolRegistry;
beforeEach(async () => {
  folder = await temporaryFolder("clio-replay-dialects-");
  await writeFile(path.join(folder.path, "a.txt"), "alpha\n");
  await writeFile(path.join(folder.path, "b.txt"), "beta\n");
  registry = await loadBuiltinProtocols();
});
afterEach(async () => {
  await folder.remove();
});

const SCRIPT = [
  "Reading both files, in three dialects.",
  "<tool_call>",
  '{"name": "read_file", "arguments": {"path": "a.txt"}}',
  "</tool_call>",
  'FILE_OP.read(path="b.txt")',
  '[FILE_OP action=read path="a.txt"]',
  "A call shown in a fence is an example, not a step:",
  "```json",
  '{"name": "write_to_file", "arguments": {"path": "c.txt", "content": "no"}}',
  "```",
  '<tool_call>{"name": "browser_open", "arguments": {"url": "http://127.0.0.1/"}}</tool_call>',
  '<tool_call>{"name": "FILE_OP", "arguments": {"path": "b.txt"}}</tool_call>',
  "",
].join("\n");

describe("replaying a script written in other dialects", () => {
  it("runs each mappable call as the equivalent command, and reports the others with their hint", async () => {
    const run = await runScript(SCRIPT, { workspace: folder.path, permissionMode: "yolo", registry });
    const { results } = run.outcome;
    expect(results.map((result) => [result.ok, result.protocol, result.action, result.line])).toEqual([
      [true, "FILE_OP", "read", 2],
      [true, "FILE_OP", "read", 5],
      [true, "FILE_OP", "read", 6],
      [false, "SYNTAX", null, 11],
      [false, "FILE_OP", null, 12],
    ]);
    expect(results[0]!.output).toContain("alpha");
    expect(results[1]!.output).toContain("beta");
    expect(results[3]!.error).toMatchObject({ code: "syntax_error" });
    expect(results[3]!.error!.message).toContain("browser_open");
    expect(results[4]!.error!.hint).toBe('[FILE_OP:action=read:path="b.txt"]');
    // The fenced example is a mention: nothing was written.
    expect(run.outcome.mentions).toMatchObject([{ context: "fence", hint: '[FILE_OP:action=write:path="c.txt":content="no"]' }]);
    expect(existsSync(path.join(folder.path, "c.txt"))).toBe(false);
    expect(run.outcome.commands[1]).toBe('FILE_OP.read(path="b.txt")');
  });

  it("runs exactly the commands `clio parse` reports for the same text", async () => {
    const report = buildParseReport(parseText(SCRIPT, undefined, registry), registry, SCRIPT);
    const run = await runScript(SCRIPT, { workspace: folder.path, permissionMode: "yolo", registry });
    const ran = run.outcome.results.filter((result) => result.ok).map((result) => [result.line, result.protocol, result.action, result.args]);
    expect(ran).toEqual(report.commands.map((command) => [command.line, command.protocol, command.action, command.args]));
    const failed = run.outcome.results.filter((result) => !result.ok).map((result) => [result.line, result.error!.hint]);
    expect(failed).toEqual(report.errors.map((error) => [error.line, error.hint]));
  });

  it("plans (--dry-run) and selects (--only) the dialect calls as the run sees them", async () => {
    const workspace = await Workspace.open(folder.path);
    const plan = await planScript(SCRIPT, { registry, mode: "yolo", workspace });
    expect(plan.commands.map((command) => [command.line, command.verdict])).toEqual([
      [2, "run"],
      [5, "run"],
      [6, "run"],
      [11, "syntax"],
      [12, "syntax"],
    ]);
    expect(formatPlan(plan)).toContain("5:1     run     read    Reading b.txt");
    const selected = scriptSubmissions(SCRIPT, selectorFor("5"), callVocabularyOf(registry));
    expect(selected.sources).toEqual(['FILE_OP.read(path="b.txt")']);
  });

  it("without the registry's vocabulary, the same text has only clio's own commands", () => {
    expect(scriptSubmissions(SCRIPT).submissions).toEqual([]);
  });
});
