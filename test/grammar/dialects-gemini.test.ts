/**
 * Gemini's tool calls written as code when its server does not parse them (issue 15: no model
 * mistake is silent): `default_api.NAME(…)` at a line's start, wrapped in `print(…)` or not, runs
 * as `functions.NAME(…)` does; in a ```` ```tool_code ```` fence each call is a mention whose hint
 * is the command. The same in any chunking.
 */
import { describe, expect, it } from "vitest";
import { parse, print } from "../../grammar/index.js";
import { expectChunkingLaw, expectEveryChunking, expectText, mentionsOf, SMALL_VOCABULARY } from "./support.js";

const READ = '[FILE_OP:action=read:path="src/a.ts"]';
const TEST = '[EXEC:action=run:command="npm test"]';

/** The commands of `text` (the same in every chunking) as [command, line, column]; nothing else was reported. */
function commandsOf(text: string): [string, number, number][] {
  const result = expectEveryChunking(text);
  expect(result.mentions).toEqual([]);
  expect(result.errors).toEqual([]);
  return result.commands.map((command) => [print(command), command.span.start.line, command.span.start.column]);
}

describe("the default_api. namespace", () => {
  it("at a line's start names what the rest names and runs, as functions. does", () => {
    expect(commandsOf('Let me read it.\n\ndefault_api.read_file(path="src/a.ts")\n')).toEqual([[READ, 3, 1]]);
    expect(commandsOf('  default_api.execute_command(command="npm test")')).toEqual([[TEST, 1, 3]]);
    expect(commandsOf('default_api.FILE_OP.read(path="src/a.ts")')).toEqual([[READ, 1, 1]]);
    expect(parse('default_api.read_file(path="src/a.ts")', SMALL_VOCABULARY).commands[0]!.dialect).toBe("function");
  });

  it("wrapped in print(…) at a line's start runs the call inside it", () => {
    expect(commandsOf('Reading.\nprint(default_api.read_file(path="src/a.ts"))\n')).toEqual([[READ, 2, 7]]);
    expect(commandsOf('print(read_file(path="src/a.ts"))')).toEqual([[READ, 1, 7]]);
    expect(commandsOf('print( default_api.execute_command(command="npm test") )')).toEqual([[TEST, 1, 8]]);
    // A `)` inside a string, nested parentheses and quotes in a string argument.
    expect(commandsOf('print(default_api.execute_command(command="echo \\")(\\" \'x\'"))')).toEqual([['[EXEC:action=run:command="echo \\")(\\" \'x\'"]', 1, 7]]);
  });

  it("in a Python list names the tool too", () => {
    const result = expectEveryChunking('[default_api.read_file(path="src/a.ts")]');
    expect(result.commands.map((command) => print(command))).toEqual([READ]);
  });

  it("alone, before a name that is no tool, or print( around what is no call, is text", () => {
    expectText([
      "default_api.",
      "default_api.\n",
      'default_api.get_weather(city="Paris")',
      "default_api(x)",
      'print("hello")',
      "print(x)",
      "print(default_api)",
      'print(default_api.unknown_tool(path="a"))',
    ]);
    // print( in the middle of a line, or a longer name, is no wrapper: the call inside is one in the middle of a line (an error, never run).
    for (const text of ['See print(default_api.read_file(path="src/a.ts")) above.', 'myprint(read_file(path="src/a.ts"))', 'print (read_file(path="src/a.ts"))']) {
      const result = expectEveryChunking(text);
      expect(result.commands, text).toEqual([]);
      expect(
        result.errors.map((error) => error.hint),
        text,
      ).toEqual([READ]);
    }
  });

  it("an unclosed print( or call never runs, and does not hide what follows", () => {
    expect(parse("print(", SMALL_VOCABULARY)).toEqual({ commands: [], mentions: [], errors: [] });
    const result = expectEveryChunking('print(default_api.read_file(path="a"\n\nread_file(path="src/a.ts")');
    expect(result.commands.map((command) => print(command))).toEqual([READ]);
  });
});

describe("a ```tool_code fence", () => {
  it("holds mentions whose hint is the command, one for each call, with print( or without", () => {
    const text = 'Reading.\n```tool_code\nprint(default_api.read_file(path="src/a.ts"))\ndefault_api.execute_command(command="npm test")\n```\n';
    expect(mentionsOf(text)).toEqual([
      ["fence", READ],
      ["fence", TEST],
    ]);
  });

  it("as the reply's only content is still a fence: a mention, never run", () => {
    expect(mentionsOf('```tool_code\nprint(default_api.read_file(path="src/a.ts"))\n```')).toEqual([["fence", READ]]);
  });
});

const PIECES = [
  "default_api.",
  "default_api",
  "print(",
  "print",
  "(",
  ")",
  "))",
  'read_file(path="a")',
  'execute_command(command="b")',
  "read_file",
  '(path="a")',
  "```tool_code\n",
  "```\n",
  "\n",
  "  ",
  "prose ",
  '"',
  "functions.",
];

describe("laws", () => {
  it("any chunking of prose, print( wrappers, namespaces and calls gives the one-shot result", () => {
    expectChunkingLaw(PIECES, 20);
  });
});
