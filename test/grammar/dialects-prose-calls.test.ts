/**
 * Calls that other words interrupt (issue 15: no model mistake is silent). A near-miss in brackets
 * with prose among its parameters or calls, and a JSON call with prose on its line, never run: each
 * is an error whose hint holds the commands of what could be read, one a line. The same in any
 * chunking.
 */
import { describe, expect, it } from "vitest";
import { parse, print } from "../../grammar/index.js";
import { errorsOf, expectChunkingLaw, expectEveryChunking, SMALL_VOCABULARY } from "./support.js";

const READ = '[FILE_OP:action=read:path="src/a.ts"]';
const TEST = '[EXEC:action=run:command="npm test"]';

describe("a near-miss with other words in its brackets", () => {
  it("with prose after its parameters is an error whose hint is the command of the parameters read, naming the words it could not read", () => {
    const text = '[FILE_OP action=read path="src/a.ts" which holds the config]';
    expect(errorsOf(text)).toEqual([[READ, 1, 1]]);
    expect(parse(text, SMALL_VOCABULARY).errors[0]!.message).toContain('"which holds the config"');
    expect(errorsOf('Then [FILE_OP, action=read, path="src/a.ts", the config file] and done.')).toEqual([[READ, 1, 6]]);
  });

  it("with prose beside its call is an error whose hint is the call as a command", () => {
    const text = '[read_file(path="src/a.ts") is how I would start]';
    expect(errorsOf(text)).toEqual([[READ, 1, 1]]);
    expect(parse(text, SMALL_VOCABULARY).errors[0]!.message).toContain('"is how I would start"');
    expect(errorsOf('[FILE_OP.read(path="src/a.ts") first]')).toEqual([[READ, 1, 1]]);
    // One argument without its name: the hint takes it for the first parameter (it was `:="src/a.ts"`, no command).
    expect(errorsOf('[read_file("src/a.ts") is how I would start]')).toEqual([[READ, 1, 1]]);
  });

  it("with prose between its calls, over lines or on one, is one error whose hint holds each call's command, one a line", () => {
    const hint = `${READ}\n${TEST}`;
    expect(errorsOf('[read_file(path="src/a.ts")\nand then\nexecute_command(command="npm test")]')).toEqual([[hint, 1, 1]]);
    expect(errorsOf('[read_file(path="src/a.ts"), then execute_command(command="npm test")]')).toEqual([[hint, 1, 1]]);
  });

  it("a Python list on its `[`'s line whose first call names nothing, with other words among its calls, is the same error", () => {
    expect(errorsOf('[get_weather(city="Paris") and read_file(path="src/a.ts")]')).toEqual([[READ, 1, 1]]);
    expect(errorsOf('So: [lookup(id=7), then read_file(path="src/a.ts") and execute_command(command="npm test")] ok')).toEqual([[`${READ}\n${TEST}`, 1, 5]]);
    // Naming no tool it stays text; a tag or a line break among its words ends it, and what follows is read as before.
    expect(parse("Write it as [f(x) for x in xs], or [g(1) and h(2)] for two calls.", SMALL_VOCABULARY)).toEqual({ commands: [], mentions: [], errors: [] });
    const after = expectEveryChunking('[f(x) and <tool_call>{"name": "read_file", "arguments": {"path": "src/a.ts"}}</tool_call>]\n[g(y) then\nread_file(path="src/a.ts")]');
    expect(after.errors).toEqual([]);
    expect(after.commands.map((command) => print(command))).toEqual([READ, READ]);
  });

  it("never closed, with prose after its parameters, is the same error", () => {
    expect(errorsOf('[FILE_OP action=read path="src/a.ts" which holds the config\n\nMore.')).toEqual([[READ, 1, 1]]);
    expect(errorsOf('[FILE_OP action=read path="src/a.ts" which holds the config')).toEqual([[READ, 1, 1]]);
  });

  it("in inline code is a mention whose hint is the command", () => {
    const result = expectEveryChunking('Write `[FILE_OP action=read path="src/a.ts" to see it]` next.');
    expect(result.errors).toEqual([]);
    expect(result.mentions.map((mention) => [mention.context, mention.hint])).toEqual([["inline-code", READ]]);
  });

  it("naming nothing registered, or with nothing readable, says what it did before", () => {
    expect(parse("[the docs (see below) are long]", SMALL_VOCABULARY)).toEqual({ commands: [], mentions: [], errors: [] });
    expect(errorsOf("[FILE_OP which=is the file tool]")).toEqual([[undefined, 1, 1]]);
  });
});

describe("a JSON call with prose on its line", () => {
  const CALL = '{"name": "read_file", "arguments": {"path": "src/a.ts"}}';

  it("in the middle of a line is an error whose hint is the command; it does not run", () => {
    const text = `I will read it now: ${CALL} and then report.`;
    expect(errorsOf(text)).toEqual([[READ, 1, 21]]);
    expect(parse(text, SMALL_VOCABULARY).errors[0]!.span.end.column).toBe(21 + CALL.length);
  });

  it("at a line's end after prose, after prose that ends a line with its `{`, or before prose, is the same error", () => {
    expect(errorsOf(`Here is the call: ${CALL}`)).toEqual([[READ, 1, 19]]);
    expect(errorsOf('I will call: {\n  "name": "read_file",\n  "arguments": {"path": "src/a.ts"}\n}\nDone.')).toEqual([[READ, 1, 14]]);
    expect(errorsOf(`${CALL} and then report.`)).toEqual([[READ, 1, 1]]);
    expect(errorsOf('Then {"arguments": {"path": "src/a.ts"}, "name": "read_file"} it is.')).toEqual([[READ, 1, 6]]);
  });

  it("quoted in a Python list, or several in a JSON array in prose, is an error per call", () => {
    expect(errorsOf(`['${CALL}']`)).toEqual([[READ, 1, 3]]);
    const array = `Calls: [${CALL}, {"name": "execute_command", "arguments": {"command": "npm test"}}]`;
    expect(errorsOf(array)).toEqual([
      [READ, 1, 9],
      [TEST, 1, 9 + CALL.length + 2],
    ]);
  });

  it("in inline code or a fence is a mention whose hint is the command", () => {
    const result = expectEveryChunking(`Use \`${CALL}\` or\n\n\`\`\`\nlet call = ${CALL};\n\`\`\``);
    expect(result.errors).toEqual([]);
    expect(result.mentions.map((mention) => [mention.context, mention.hint])).toEqual([
      ["inline-code", READ],
      ["fence", READ],
    ]);
  });

  it("naming nothing registered, or braces in prose, stay text; what follows them on their line and after is read as before", () => {
    for (const prose of [
      'The config is {"name": "app", "port": 8080} as usual.',
      "A set {a, b} and a dict {'name': 'read_file', 'arguments': {'path': 'a.ts'}} in prose.",
      'An object {"path": "src/a.ts"} alone.',
    ]) {
      expect(parse(prose, SMALL_VOCABULARY), prose).toEqual({ commands: [], mentions: [], errors: [] });
    }
    const after = expectEveryChunking(
      'The field {"type": is needed <tool_call>{"name": "read_file", "arguments": {"path": "src/a.ts"}}</tool_call>\nSee {"name": "x\nread_file(path="src/a.ts")',
    );
    expect(after.errors).toEqual([]);
    expect(after.commands.map((command) => print(command))).toEqual([READ, READ]);
  });
});

const PIECES = [
  '[FILE_OP action=read path="src/a.ts" which holds the config]',
  '[read_file(path="src/a.ts") is how I would start]',
  '[read_file(path="a")\nand then\nexecute_command(command="ls")]',
  '[FILE_OP action=read path="b" and',
  "`",
  "\n",
  "\n\n",
  "prose ",
  '[FILE_OP:action=read:path="c"]',
  "]",
  '{"name": "read_file", "arguments": {"path": "d"}}',
  "{\n",
  '{"type": ',
  " <tool_call>",
  "</tool_call>",
  "'",
  "[foo(x=1) and ",
  'read_file(path="e")',
  "(",
];

describe("laws", () => {
  it("any chunking of prose, near-misses with words among their calls and commands gives the one-shot result", () => {
    expectChunkingLaw(PIECES, 20);
  });
});
