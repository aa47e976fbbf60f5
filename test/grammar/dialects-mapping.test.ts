/**
 * Mapping a call of another dialect onto a command (grammar/dialects/mapping.ts): an alias's
 * renamed, fixed and ignored parameters, the action named in any case, and the errors whose hint
 * is the equivalent command, each as a whole result.
 */
import { describe, expect, it } from "vitest";
import { CallVocabulary, parse } from "../../grammar/index.js";

const vocabulary = new CallVocabulary({
  protocols: [{ name: "FIND", actions: { search: { parameters: { content: "text", pattern: "text", path: "text", limit: "word" } } } }],
  aliases: {
    search_files: { protocol: "FIND", action: "search", parameters: { regex: "content", file_pattern: "pattern" }, fixed: { pattern: "*" }, ignore: ["line_count"] },
  },
});

function commands(text: string): [string, Record<string, string>][] {
  return parse(text, vocabulary).commands.map((command) => [command.protocol, Object.fromEntries(command.parameters.map((parameter) => [parameter.key, parameter.text]))]);
}

describe("mapping a call onto a command", () => {
  it("renames an alias's parameters and adds its fixed ones only where no argument gives them", () => {
    expect(commands("<search_files><regex>foo</regex></search_files>")).toEqual([["FIND", { action: "search", content: "foo", pattern: "*" }]]);
    expect(commands("<search_files><regex>foo</regex><file_pattern>*.ts</file_pattern></search_files>")).toEqual([["FIND", { action: "search", content: "foo", pattern: "*.ts" }]]);
  });

  it("drops an alias's ignored parameters, and takes the action's key in any case", () => {
    expect(commands("<search_files><line_count>3</line_count><regex>x</regex></search_files>")).toEqual([["FIND", { action: "search", content: "x", pattern: "*" }]]);
    expect(commands('FIND(ACTION="search", content="x")')).toEqual([["FIND", { action: "search", content: "x" }]]);
    expect(commands('FIND(Action="search", limit=3, path=None)')).toEqual([["FIND", { action: "search", limit: "3" }]]);
  });

  it("answers a parameter given twice (once renamed) with the equivalent command as the hint", () => {
    const result = parse("<search_files><regex>a</regex><content>b</content></search_files>", vocabulary);
    expect(result.commands).toEqual([]);
    expect(result.errors).toMatchObject([
      { code: "unmapped_call", message: "FIND.search: content is given twice.", hint: '[FIND:action=search:content="a":content="b":pattern="*"]', protocol: "FIND" },
    ]);
  });

  it("answers a call without an action, or with one the protocol lacks, with a hint that keeps every argument", () => {
    expect(parse('FIND(content="x", limit=2)', vocabulary).errors).toMatchObject([
      { message: "a function-call names FIND but no action (one of: search).", hint: '[FIND:action=search:content="x":limit="2"]' },
    ]);
    expect(parse('FIND(action="grep", content="x")', vocabulary).errors).toMatchObject([
      { message: 'FIND has no action "grep" (its actions: search).', hint: '[FIND:action=search:content="x"]' },
    ]);
  });
});
