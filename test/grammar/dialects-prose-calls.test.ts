/**
 * Calls that other words interrupt (issue 15: no model mistake is silent). A near-miss in brackets
 * with prose among its parameters or calls, a JSON call with prose on its line, and a function call
 * in the middle of a sentence never run: each is an error whose hint holds the commands of what
 * could be read, one a line. The same in any chunking.
 */
import { describe, expect, it } from "vitest";
import { parse, print } from "../../grammar/index.js";
import { chunkedAndWhole, errorsOf, expectChunkingLaw, expectEveryChunking, expectText, mentionsOf, SMALL_VOCABULARY } from "./support.js";

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

describe("a function call in the middle of a sentence", () => {
  it("is an error whose hint is the command; it does not run", () => {
    const text = 'Let me call read_file(path="src/a.ts") to see it.';
    expect(errorsOf(text)).toEqual([[READ, 1, 13]]);
    const error = parse(text, SMALL_VOCABULARY).errors[0]!;
    expect(error.message).toContain("middle of a sentence");
    expect(error.span.end.column).toBe(39);
    expect(errorsOf('First I will run execute_command(command="npm test") and then look.')).toEqual([[TEST, 1, 18]]);
    // The tool namespaces, a protocol as registered, and several calls on one line: an error each.
    expect(errorsOf('Next: default_api.read_file(path="src/a.ts"), then functions.execute_command(command="npm test").')).toEqual([
      [READ, 1, 7],
      [TEST, 1, 52],
    ]);
    expect(errorsOf('So (FILE_OP.read(path="src/a.ts")) it is.')).toEqual([[READ, 1, 5]]);
    expect(errorsOf('Or FILE_OP.READ(path="src/a.ts") and FILE_OP(action="read", path="src/a.ts").')).toEqual([
      [READ, 1, 4],
      [READ, 1, 38],
    ]);
    // One argument without its name: the hint takes it for the first parameter.
    expect(errorsOf('Try read_file("src/a.ts") now.')).toEqual([[READ, 1, 5]]);
  });

  it("reads nested parentheses, quotes and a `)` inside its strings as its arguments", () => {
    expect(errorsOf('Run execute_command(command="echo \\"(x)\\" \'y)\'") now.')).toEqual([['[EXEC:action=run:command="echo \\"(x)\\" \'y)\'"]', 1, 5]]);
    expect(errorsOf("Then read_file(path='a)b(c.ts') ok.")).toEqual([['[FILE_OP:action=read:path="a)b(c.ts"]', 1, 6]]);
  });

  it("in inline code or a fence is a mention whose hint is the command", () => {
    expect(mentionsOf('Use `read_file(path="src/a.ts")` to read it, as in\n\n```\nx = 1; read_file(path="src/a.ts")\n```\n')).toEqual([
      ["inline-code", READ],
      ["fence", READ],
    ]);
  });

  it("ordinary prose with parentheses stays text: a name no tool has, a name and empty parentheses or a word, a method, a path, a link", () => {
    expectText([
      "The helper calls run() and then format(value) before it returns; see parse(text) (in parse.ts).",
      "Use read_file() to read a file, or read_file(path) for one path.",
      'Call s.read_file(path="a"), os.path.join(a, b) or x.replace("a", "b").',
      'See [the docs](https://x.io/read_file(path="a")) and src/read_file(path="a").',
      'A value x=read_file(path="a") in code.',
      'Unknown get_weather(city="Paris") and default_api.unknown_tool(x=1) here.',
      "A (parenthesis) (",
      "default_api.",
      'Say "read_file" (the tool) and read_file (path="a").',
      // A protocol with no such action, or in another case than registered, names no call here.
      'Then FILE_OP.open(path="a") and file_op(action="read", path="a").',
    ]);
  });

  it("never closed on its line, or broken off by a tag, is text, and what follows is read as before", () => {
    expectText(['Then read_file(path="src/a.ts" and more\nwords)', 'Open read_file(path="src/a.ts"', "Open read_file("]);
    const after = expectEveryChunking('See read_file(path=<tool_call>{"name": "read_file", "arguments": {"path": "src/a.ts"}}</tool_call>\nread_file(path="src/a.ts")');
    expect(after.errors).toEqual([]);
    expect(after.commands.map((command) => print(command))).toEqual([READ, READ]);
  });

  it("a name split over chunks of any size before its `(` is read back whole", () => {
    const text = 'Let me call default_api.read_file(path="src/a.ts") to see it.';
    for (const size of [1, 2, 3, 5, 7, 13, 17, 40]) {
      const chunks: string[] = [];
      for (let at = 0; at < text.length; at += size) chunks.push(text.slice(at, at + size));
      expect(
        chunkedAndWhole(SMALL_VOCABULARY, text, chunks).chunked.errors.map((error) => error.hint),
        `size ${size}`,
      ).toEqual([READ]);
    }
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
  ")",
  "read_file",
  "default_api.",
  '(path="f")',
  "x ",
  "/",
  '"a)b"',
];

describe("laws", () => {
  it("any chunking of prose, near-misses with words among their calls and commands gives the one-shot result", () => {
    expectChunkingLaw(PIECES, 20);
  });
});
