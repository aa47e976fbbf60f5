/**
 * The dialect layer shares the scanner's one-character fast path (dialects/call-scanner.ts):
 * while it waits, the fast path stops only at what it must read, and it is told how many
 * characters went by. These laws hold that hand-over in every state the scanner can be in when
 * single characters and longer chunks alternate: prose, fences, code spans held to the line's
 * end, inert lines, recovery after a broken command, a lone `\r` held back, open candidates.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ParseResult } from "../../grammar/ast.js";
import { CallScanner, CallVocabulary, parse } from "../../grammar/index.js";
import { collectEvents } from "../../grammar/parse.js";
import { DialectRecognizer } from "../../grammar/dialects/recognizer.js";
import { SMALL_VOCABULARY } from "./support.js";

const vocabulary = SMALL_VOCABULARY;

/** Pieces that put the scanner and the layer in each of their states, and take them out again. */
const PIECES = [
  '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>\n',
  '{"name": "execute_command", "arguments": {"command": "ls"}}\n',
  "<read_file>\n<path>a.ts</path>\n</read_file>\n",
  'FILE_OP.read(path="a.ts")\n',
  '[FILE_OP action=read path="a.ts"]',
  '［FILE_OP：action=read：path="a"］',
  '[FILE_OP:action=read:path="b"]',
  '[FILE_OP:action=read:path="broken',
  "[FILE_OP:action=write:path=a:content<<EOF\nbody [x] <b>\nEOF\n]",
  "```\n",
  "```ts\n",
  "~~~\n",
  "    indented(code)\n",
  "`",
  "``",
  "> ",
  "- ",
  "<think>",
  "</think>",
  "<div>\n",
  "\n",
  "\n\n",
  "\r",
  "\r\n",
  " prose (with) {braces} ",
  "the file test ",
  "  ",
  "read_file",
  "(",
  ")",
  "{",
  "[",
  "]",
  "<",
  ">",
  '"',
  "\\",
  "x",
  "é",
  "[x] ",
  "[NOTE]",
  ">>",
  " >>>read_file\n",
  ' >>>read_file {"path": "a"}',
  "[foo(x=1), ",
  'read_file(path="a")]',
  "[   FILE_OP action=read path=a]",
  "[    FILE_OP action=read]",
  "[ read_file path=a]",
  '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path": "a"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>\n',
  '<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path": "a"}<|call|>\n',
  '<|action_start|><|plugin|>\n{"name": "read_file", "parameters": {"path": "a"}}<|action_end|>\n',
  'x[TOOL_CALLS]read_file[ARGS]{"path": "a"}\n',
  '✿FUNCTION✿: read_file\n✿ARGS✿: {"path": "a"}\n',
  'functools[{"name": "read_file", "arguments": {"path": "a"}}]\n',
  '[read_file(path="a"), read_file(path="b")]\n',
  "✿",
  '>>>read_file\n{"path": "a"}\n',
  ">>>",
  "functools",
  "<|",
  "<｜",
];

function chunkedBySizes(text: string, sizes: number[]): ParseResult {
  const scanner = new CallScanner(vocabulary);
  const result: ParseResult = { commands: [], mentions: [], errors: [] };
  let at = 0;
  for (let turn = 0; at < text.length; turn++) {
    const size = sizes.length === 0 ? 1 : sizes[turn % sizes.length]!;
    collectEvents(scanner.push(text.slice(at, at + size)), result);
    at += size;
  }
  return collectEvents(scanner.end(), result);
}

describe("the dialect layer on the scanner's fast path", () => {
  it("runs of single characters between longer chunks give exactly the one-shot result", () => {
    const sizes = fc.array(fc.constantFrom(1, 1, 1, 1, 1, 2, 3, 5, 17, 70), { maxLength: 12 });
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }), sizes, (pieces, chunkSizes) => {
        const text = pieces.join("");
        expect(chunkedBySizes(text, chunkSizes)).toEqual(parse(text, vocabulary));
      }),
      { numRuns: 600 },
    );
  });

  it("a call after a long stretch of single characters of prose keeps its exact position", () => {
    const prose = "the file test value, (not a call) {nor this}. ".repeat(40);
    const text = `${prose}\n${prose}\n<read_file><path>a.ts</path></read_file>\nFILE_OP.read(path="b")\n`;
    const whole = parse(text, vocabulary);
    expect(whole.commands.map((command) => command.span.start.offset)).toEqual([text.indexOf("<read_file>"), text.indexOf("FILE_OP.read")]);
    expect(chunkedBySizes(text, [1])).toEqual(whole);
    expect(chunkedBySizes(text, [1, 1, 1, 64])).toEqual(whole);
  });

  it("a line's first letter rules out a function call only where no registered name begins with it", () => {
    // Another agent's tool name in any case; a protocol's name as it is registered.
    const calls = ['READ_FILE(path="a")', 'Read_File(path="a")', 'read_file(path="a")', '  FILE_OP(action="read", path="a")', 'FILE_OP.read(path="a")'];
    const text = ['file_op(action="read", path="a")', 'File_Op.read(path="a")', 'the read_file(path="a")', 'xread_file(path="a")', ...calls].join("\n");
    const whole = parse(`${text}\n`, vocabulary);
    expect(whole.commands.map((command) => command.span.start.line)).toEqual([5, 6, 7, 8, 9]);
    expect(chunkedBySizes(`${text}\n`, [1])).toEqual(whole);
  });

  it("words after a `[` that no registered name begins like are text at once; up to three spaces before a name are still read", () => {
    const text = '[x] [NOTE] [   FILE_OP action=read path="a"] [    FILE_OP action=read path="b"] [ file op action=read path="c"] [read_file path="d"] [Read_File path="e"]\n';
    const whole = parse(text, vocabulary);
    expect(whole.commands.map((command) => command.parameters.at(-1)!.text)).toEqual(["a", "c", "d", "e"]);
    expect(chunkedBySizes(text, [1])).toEqual(whole);
    expect(chunkedBySizes(text, [2, 3])).toEqual(whole);
  });

  it("a line's first two letters rule out a function call only where no callable name begins with them", () => {
    const oneLetter = new CallVocabulary({
      protocols: [
        { name: "X", actions: { read: { parameters: { path: "text" } } } },
        { name: "FILE_OP", actions: { read: { parameters: { path: "text" } } } },
      ],
      aliases: { read_file: { protocol: "FILE_OP", action: "read" }, r: { protocol: "FILE_OP", action: "read" } },
    });
    const calls = ['X.read(path="a")', 'X_read(path="a")', 'X(action="read", path="a")', 'rEAD_fILE(path="f")', 'r(path="a")', 'R(path="a")', '  X.read(path="b")'];
    const text = `${['Xr(path="a")', 'xread(path="a")', 'rx_file(path="a")', ...calls].join("\n")}\n`;
    const whole = parse(text, oneLetter);
    expect(whole.commands.map((command) => command.span.start.line)).toEqual([4, 5, 6, 7, 8, 9, 10]);
    const scanner = new CallScanner(oneLetter);
    const streamed: ParseResult = { commands: [], mentions: [], errors: [] };
    for (const character of text) collectEvents(scanner.push(character), streamed);
    expect(collectEvents(scanner.end(), streamed)).toEqual(whole);
  });
  it("a character the recognizer reads quietly never ends a candidate: only feed makes a finding", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES, "FILE_OP.read(a=(1), b=[2])\n", '{"name": "read_file", "arguments": {"path": "a"}}\n'), { maxLength: 20 }), (pieces) => {
        const recognizer = new DialectRecognizer(vocabulary);
        for (const character of pieces.join("")) {
          const before = recognizer.found.length;
          if (recognizer.quiet(character)) expect(recognizer.found.length).toBe(before);
          else recognizer.feed(character);
        }
      }),
      { numRuns: 300 },
    );
  });
});
