/**
 * Bad input for the dialect layer (§4a): huge or deep JSON, tags that never close, floods of
 * openers, calls naming unknown tools, arguments of the wrong JSON type. Each is a clear error or
 * plain text, runs nothing that was not meant, and takes work linear in its size: the work is
 * counted (characters the string primitives touch), never timed.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ParseResult } from "../../grammar/ast.js";
import { CallScanner, parse } from "../../grammar/index.js";
import { collectEvents } from "../../grammar/parse.js";
import { SMALL_VOCABULARY } from "./support.js";

const vocabulary = SMALL_VOCABULARY;

const COUNTED = [
  "charCodeAt",
  "indexOf",
  "lastIndexOf",
  "slice",
  "substring",
  "toLowerCase",
  "toUpperCase",
  "trim",
  "trimStart",
  "split",
  "replace",
  "search",
  "includes",
  "startsWith",
  "endsWith",
] as const;
type Counted = (typeof COUNTED)[number];
const originals = new Map<Counted, (...args: unknown[]) => unknown>();
const originalParse = JSON.parse;

afterEach(() => {
  for (const [name, method] of originals) (String.prototype as unknown as Record<string, unknown>)[name] = method;
  originals.clear();
  JSON.parse = originalParse;
});

/**
 * Runs `work` with the string primitives counting what they touch: one per `charCodeAt`, the
 * stretch an `indexOf` searched, the length a `slice` made, the whole string for the methods
 * that read all of it, and the text handed to `JSON.parse`.
 */
function countWork(work: () => void): number {
  let count = 0;
  const prototype = String.prototype as unknown as Record<Counted, (...args: unknown[]) => unknown>;
  for (const name of COUNTED) {
    const original = prototype[name];
    originals.set(name, original);
    prototype[name] = function (this: string, ...args: unknown[]) {
      const result = original.apply(this, args);
      if (name === "charCodeAt") count++;
      else if (name === "indexOf") count += (result === -1 ? this.length : (result as number)) - Math.max(0, Number(args[1] ?? 0));
      else if (name === "lastIndexOf") count += Math.min(this.length, Number(args[1] ?? this.length)) - Math.max(0, result as number);
      else if (name === "slice" || name === "substring") count += (result as string).length;
      else count += this.length;
      return result;
    };
  }
  JSON.parse = (text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    count += text.length;
    return originalParse(text, reviver);
  };
  try {
    work();
  } finally {
    for (const [name, method] of originals) prototype[name] = method;
    originals.clear();
    JSON.parse = originalParse;
  }
  return count;
}

function streamed(text: string, size: number): ParseResult {
  const scanner = new CallScanner(vocabulary);
  const result: ParseResult = { commands: [], mentions: [], errors: [] };
  for (let offset = 0; offset < text.length; offset += size) collectEvents(scanner.push(text.slice(offset, offset + size)), result);
  return collectEvents(scanner.end(), result);
}

/** Work per character for `make(n)` and `make(2n)`, counted while `run` reads each. */
function workPerCharacter(make: (n: number) => string, n: number, run: (text: string) => unknown): [number, number] {
  const [small, large] = [n, 2 * n].map((size) => {
    const text = make(size);
    return countWork(() => run(text)) / text.length;
  });
  return [small!, large!];
}

/** 100,000 of `opener`, then a blank line and a command: read in linear work (`expectLinear`); the dialects of the commands that ran ("clio" for this language's own). */
function floodDialects(opener: string): string[] {
  const flood = (n: number) => `${opener.repeat(n)}\n\n${READ}`;
  expectLinear(flood, 20_000);
  return parse(flood(100_000), vocabulary).commands.map((command) => command.dialect ?? "clio");
}

/** Doubling the input at most doubles the work (and a little), one-shot and in chunks of 7; the scanner alone reads every character. */
function expectLinear(make: (n: number) => string, n: number): void {
  const oneShot = workPerCharacter(make, n, (text) => parse(text, vocabulary));
  expect(oneShot[0]).toBeGreaterThan(0.5);
  expect(oneShot[1] / oneShot[0]).toBeLessThan(1.15);
  const chunked = workPerCharacter(make, n / 10, (text) => streamed(text, 7));
  expect(chunked[0]).toBeGreaterThan(0.5);
  expect(chunked[1] / chunked[0]).toBeLessThan(1.15);
}

it("the work count sees quadratic work: a search from every character doubles per character as the text doubles", () => {
  const quadratic = (text: string) => {
    for (let i = 0; i < text.length; i++) text.indexOf("!", i);
  };
  const [small, large] = workPerCharacter((n) => "x".repeat(n), 2_000, quadratic);
  expect(large / small).toBeGreaterThan(1.9);
});

const READ = '[FILE_OP:action=read:path="after"]';

describe("bad input to the dialect layer: clear error or plain text, in linear work", () => {
  it("a JSON object of megabytes in a reply is read once and is plain text; the command after it runs", () => {
    const big = (n: number) => `Here:\n{"name": "data", "payload": "${"x".repeat(n)}"}\n${READ}`;
    const result = parse(big(10_000_000), vocabulary);
    expect(result.commands.map((command) => command.dialect ?? "clio")).toEqual(["clio"]);
    expect(result.errors).toEqual([]);
    expectLinear(big, 200_000);
  });

  it("deeply nested JSON is given up past a depth and the rest is scanned", () => {
    const deep = (n: number) => `{"a": ${"[".repeat(n)}\n\n${READ}`;
    expect(parse(deep(200_000), vocabulary).commands).toHaveLength(1);
    expectLinear(deep, 100_000);
    const deepCall = (n: number) => `<tool_call>{"name": "read_file", "arguments": {"path": ${"[".repeat(n)}${"]".repeat(n)}}}</tool_call>`;
    expect(parse(deepCall(100_000), vocabulary).errors).toMatchObject([{ code: "unmapped_call", message: expect.stringContaining("not valid JSON") }]);
    expectLinear(deepCall, 50_000);
  });

  it("an XML tag that never closes is plain text, and what follows it still runs", () => {
    const unclosed = (n: number) => `<read_file>\n<path>a.ts</path>\n${"and then I stopped. ".repeat(n)}\n${READ}`;
    const result = parse(unclosed(10_000), vocabulary);
    expect(result.commands.map((command) => command.dialect ?? "clio")).toEqual(["clio"]);
    expect(result.errors).toEqual([]);
    expectLinear(unclosed, 20_000);
    const many = (n: number) => `${"<read_file> x ".repeat(n)}\n${READ}`;
    expect(parse(many(20_000), vocabulary).commands).toHaveLength(1);
    expectLinear(many, 20_000);
  });

  it("100,000 <tool_call> openers are one stretch of plain text", () => {
    const openers = (n: number) => `${"<tool_call>".repeat(n)}{"name": "x"}`;
    expect(parse(openers(100_000), vocabulary)).toEqual({ commands: [], mentions: [], errors: [] });
    expectLinear(openers, 50_000);
  });

  it("100,000 <tool_call> start tags with attributes, ended or not, are read in linear work; the command after them runs", () => {
    for (const opener of ['<tool_call name="read_file" ', '<tool_call name="read_file">', "<tool_call arguments='{"]) expect(floodDialects(opener), opener).toEqual(["clio"]);
    expect(floodDialects('<tool_call name="read_file"/>')).toHaveLength(100_001);
  });

  it("100,000 lines opening a command without its brackets are text, or an error each, in linear work", () => {
    for (const opener of ["FILE_OP:\n", "FILE_OP: key\n", "FILE_OP:k=<", "FILE_OP:FILE_OP:"]) expect(floodDialects(opener), opener).toEqual(["clio"]);
    const lines = (n: number) => `${"FILE_OP:action=read\n".repeat(n)}\n${READ}`;
    expect(parse(lines(100_000), vocabulary).errors).toHaveLength(100_000);
    expectLinear(lines, 20_000);
  });

  it("100,000 `[NAME:` openers, with or without an action after them, are text in linear work; one left open is one error", () => {
    for (const opener of ["[FILE_OP:", "[FILE_OP:read", "[FILE_OP: read ", "[FILE_OP:readx:"]) expect(floodDialects(opener), opener).toEqual(["clio"]);
    const open = (n: number) => `${"[FILE_OP:read:".repeat(n)}\n\n${READ}`;
    expect(parse(open(100_000), vocabulary).errors).toHaveLength(1);
    expectLinear(open, 20_000);
  });

  it("<invoke> and GLM calls with thousands of unclosed parameters, keys or attributes: an error or text, in linear work; the command after them runs", () => {
    const cases: [string, (n: number) => string, string | undefined][] = [
      ["unclosed <parameter>s", (n) => `<invoke name="read_file">${'<parameter name="path">a '.repeat(n)}</invoke>\n\n${READ}`, "<parameter name"],
      ["<arg_key>s without values", (n) => `<tool_call>read_file${"<arg_key>k</arg_key>".repeat(n)}</tool_call>\n${READ}`, "<arg_value>"],
      ["unclosed <arg_value>s", (n) => `<tool_call>read_file${"<arg_key>k</arg_key><arg_value>v ".repeat(n)}</tool_call>\n${READ}`, "<arg_value>"],
      ["name attributes never quoted to an end", (n) => `<invoke name="read_file"><parameter${' name="x'.repeat(n)}>v</parameter></invoke>\n\n${READ}`, undefined],
      ["<invoke openers", (n) => `${'<invoke name="read_file">'.repeat(n)}\n\n${READ}`, undefined],
      ["an <invoke tag whose attributes run on", (n) => `<invoke ${"x ".repeat(n)}>\n\n${READ}`, undefined],
    ];
    for (const [name, make, message] of cases) {
      const result = parse(make(5_000), vocabulary);
      // The last command is the clio one after the bad text (a name attribute read to the next quote may map to a call before it).
      expect(result.commands.at(-1)?.dialect, name).toBeUndefined();
      expect(result.commands.length, name).toBeLessThanOrEqual(2);
      if (message !== undefined) expect(result.errors, name).toMatchObject([{ code: "unmapped_call", message: expect.stringContaining(message) }]);
      expectLinear(make, 5_000);
    }
  });

  it("JSON arrays of calls: floods of `[{`, an array that never closes, thousands of calls in one array: linear work, nothing run that was not written", () => {
    const call = '{"name": "read_file", "arguments": {"path": "a"}}';
    const floods: [string, (n: number) => string, number][] = [
      ["an array of calls that never closes", (n) => `[${`${call},\n`.repeat(n)}`, 0],
      ["`[{` at every line's start", (n) => "[{\n".repeat(n), 0],
      ["`[{` over and over on one line", (n) => "[{ ".repeat(n), 0],
      ["arrays of objects that name nothing", (n) => '[{"name": "app", "port": 8080}]\n'.repeat(n), 0],
      ["marker tokens at every line's start", (n) => "<|python_tag|>\n".repeat(n), 0],
      ["marker tokens and JSON that never closes", (n) => `<|python_tag|>{"name": "read_file", "parameters": {"path": "${"x".repeat(n)}`, 0],
      ["long names after <|", (n) => `<|${"a".repeat(40)}|>\n`.repeat(n), 0],
      ["ReAct action lines", (n) => "Action: read_file\n".repeat(n), 0],
      ["ReAct steps whose JSON input never closes", (n) => `Action: read_file\nAction Input: {"path": "${"x".repeat(n)}`, 0],
      ["a ReAct action line that runs on", (n) => `Action: ${"read_file ".repeat(n)}\nAction Input: {}`, 0],
    ];
    for (const [name, make, commands] of floods) {
      expect(parse(make(5_000), vocabulary).commands, name).toHaveLength(commands);
      expectLinear(make, 5_000);
    }
    const many = (n: number) => `[${Array.from({ length: n }, () => call).join(", ")}]\n${READ}`;
    expect(parse(many(2_000), vocabulary).commands).toHaveLength(2_001);
    expectLinear(many, 2_000);
  });

  it("model tokens (DeepSeek's, InternLM's, Mistral's [TOOL_CALLS]) in floods or never closed: linear work, nothing run that was not written", () => {
    const floods: [string, (n: number) => string, number][] = [
      ["DeepSeek call openers that never close", (n) => "<｜tool▁call▁begin｜>".repeat(n), 0],
      ["DeepSeek block openers", (n) => "<｜tool▁calls▁begin｜> x\n".repeat(n), 0],
      ["a DeepSeek block of calls without their end tokens", (n) => `<｜tool▁calls▁begin｜>${"<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{}".repeat(n)}`, 5_000],
      ["DeepSeek separators after one opener", (n) => `<｜tool▁call▁begin｜>${"<｜tool▁sep｜>".repeat(n)}`, 0],
      ["long names after <｜", (n) => `<｜${"tool▁".repeat(20)}|>\n`.repeat(n), 0],
      ["InternLM action openers", (n) => "<|action_start|>".repeat(n), 0],
      ["[TOOL_CALLS] over and over", (n) => "[TOOL_CALLS]".repeat(n), 0],
      ["[TOOL_CALLS] and a name over and over", (n) => "[TOOL_CALLS]read_file".repeat(n), 0],
      ["[TOOL_CALLS] and blanks", (n) => `[TOOL_CALLS]${" ".repeat(n)}read_file{}`, 0],
      ["[TOOL_CALLS], a name and blanks", (n) => `[TOOL_CALLS]read_file${" ".repeat(n)}{}`, 0],
      ["a Mistral call whose arguments never close", (n) => `[TOOL_CALLS]read_file[ARGS]{"path": "${"x".repeat(n)}`, 0],
      ["FireFunction openers at every line's start", (n) => "functools[{\n".repeat(n), 0],
      ["functools words", (n) => "functools functools[ functools\n".repeat(n), 0],
      ["Kimi and Cohere openers", (n) => "<|tool_calls_section_begin|><|START_ACTION|>\n".repeat(n), 0],
      ["harmony headers", (n) => "<|start|>assistant<|channel|>".repeat(n), 0],
      ["harmony headers that run on", (n) => `<|channel|>commentary to=${"x ".repeat(n)}<|message|>{}`, 0],
      ["a harmony call whose arguments never end", (n) => `<|channel|>commentary to=functions.read_file<|message|>{"path": "${"x".repeat(n)}`, 0],
      ["Functionary step lines", (n) => ">>>read_file\n".repeat(n), 0],
      ["quote lines", (n) => "> a quote >>>\n>>> x\n".repeat(n), 0],
      ["> on one line", (n) => ">".repeat(n), 0],
      ["Functionary openers in the middle of one line", (n) => "x >>>read_file".repeat(n), 0],
      ["Functionary openers whose name is not registered", (n) => " >>>read_filex\n".repeat(n), 0],
      ["mid-line Functionary steps whose JSON never closes", (n) => `x >>>read_file {"path": "${"x".repeat(n)}`, 0],
      ["Qwen-Agent function lines", (n) => "✿FUNCTION✿: read_file\n".repeat(n), 0],
      ["Qwen-Agent flowers", (n) => "✿✿✿\n".repeat(n), 0],
      ["a Python list of calls that never closes", (n) => `[read_file(path="a"), ${'list_files(path="."), '.repeat(n)}`, 0],
      ["a Python list whose first call names nothing, never closed", (n) => `[a(1), ${'read_file(path="."), '.repeat(n)}`, 0],
      ["Python list openers naming nothing on one line", (n) => "[a(1), ".repeat(n), 0],
      ["nested Python list openers", (n) => "[a([b(".repeat(n), 0],
    ];
    for (const [name, make, commands] of floods) {
      expect(parse(make(5_000), vocabulary).commands, name).toHaveLength(commands);
      expectLinear(make, 5_000);
    }
  });

  it("a <tool_call> naming an unknown tool is an error that lists what exists; nothing runs", () => {
    const unknown = '<tool_call>{"name": "browser_open", "arguments": {"url": "http://127.0.0.1/"}}</tool_call>';
    const result = parse(unknown, vocabulary);
    expect(result.commands).toEqual([]);
    expect(result.errors).toMatchObject([{ code: "unmapped_call", message: expect.stringContaining("EXEC, FILE_OP") }]);
    const many = (n: number) => `${unknown}\n`.repeat(n);
    expect(parse(many(1_000), vocabulary).errors).toHaveLength(1_000);
    expectLinear(many, 2_000);
  });

  it("arguments of the wrong JSON type are an error naming the parameter and the type; nothing runs", () => {
    for (const [args, expected] of [
      ['{"path": ["a", "b"]}', "path must be text, not a JSON array"],
      ['{"path": {"nested": 1}}', "path must be text"],
      ["7", "must be a JSON object"],
      ['"{not json"', "not a JSON object"],
      ["null", "must be a JSON object"],
    ] as const) {
      const result = parse(`<tool_call>{"name": "read_file", "arguments": ${args}}</tool_call>`, vocabulary);
      expect(result.commands, args).toEqual([]);
      expect(result.errors[0]?.message, args).toContain(expected);
    }
    const numbers = parse('<tool_call>{"name": "read_file", "arguments": {"path": "a", "limit": 10}}</tool_call>', vocabulary);
    expect(numbers.commands[0]!.parameters.map((parameter) => [parameter.key, parameter.text])).toEqual([
      ["action", "read"],
      ["path", "a"],
      ["limit", "10"],
    ]);
  });

  it("floods of near-miss, function-call and JSON-line starts are text, in linear work", () => {
    const floods: [string, (n: number) => string][] = [
      ["near-miss starts", (n) => "[FILE_OP ".repeat(n)],
      ["function-call starts", (n) => "FILE_OP(\n".repeat(n)],
      ["tags named after a protocol", (n) => "<FILE_OP>".repeat(n)],
      ["JSON lines that never close", (n) => '{"name": "read_file",\n'.repeat(n)],
      ["registered names before parentheses mid-line", (n) => "x FILE_OP(".repeat(n)],
      ["a long name before each parenthesis", (n) => `${"a".repeat(200)}(`.repeat(n)],
      ["indentation before each parenthesis", (n) => `\n${" ".repeat(200)}(`.repeat(n)],
      ["words after brackets", (n) => "[FILE OP EXEC read_file x ".repeat(n)],
      ["a Python list over lines that never closes", (n) => `[\n${"  foo(x=1),\n".repeat(n)}`],
      ["Python lists over lines, each broken off by a line of prose", (n) => "[\n  foo(x=1),\n  bar(\n    y=2),\nprose\n".repeat(n)],
      ["brackets alone on their lines", (n) => "[\n".repeat(n)],
      ["loose JSON in a tool call that never closes a string", (n) => `<tool_call>{${"'k': True,  , ".repeat(n)}'</tool_call>`],
      ["Python dicts on lines of their own, none a call", (n) => "{'k': 'v', 'n': True}\n".repeat(n)],
      ["a Python dict whose string never closes", (n) => `{'k': '${"{x} ".repeat(n)}`],
      ["Python dicts that never close", (n) => "{'name': 'read_file',\n".repeat(n)],
      ["namespaced words after brackets", (n) => "[functions.x [functions. [functions.md] ".repeat(n)],
      ["unclosed near-misses with prose after their calls", (n) => '[read_file(path="a") and then (more)\n\n'.repeat(n)],
      ["one unclosed near-miss with a long prose after its call", (n) => `[read_file(path="a") ${"and (then) ".repeat(n)}`],
      ["Python lists left open at their lines' ends", (n) => 'x [foo(x=1), read_file(path="a")\n'.repeat(n)],
      ["braces and first keys in prose", (n) => 'x {a} {"na {"name" { "tool_name": 1} '.repeat(n)],
      ["JSON calls in prose", (n) => 'x {"name": "read_file", "arguments": {"path": "a"}} y '.repeat(n)],
      ["a JSON call in prose whose string never closes", (n) => `x {"name": "${"{a} <b ".repeat(n)}`],
      ["JSON calls in prose nested past the depth limit", (n) => `x ${'{"name": '.repeat(n)}`],
      ["near-misses with prose among their calls", (n) => '[read_file(path="a") and then x(y) z]\n'.repeat(n)],
      ["one near-miss with thousands of calls among prose", (n) => `[${'read_file(path="a") and '.repeat(n)}]`],
      ["Python lists with words among their calls", (n) => "[foo(x=1) and [bar(y) then (z) ".repeat(n)],
      ["one Python list with thousands of words among its calls", (n) => `[foo(x=1) ${'and read_file(path="a") ('.repeat(n)}]`],
      ["registered names before parentheses mid-line, each line", (n) => "x read_file(\n".repeat(n)],
      ["registered names in a namespace before parentheses mid-line", (n) => "x default_api.read_file(".repeat(n)],
      ["a call in prose whose string never closes", (n) => `x read_file(path="${"(a) ".repeat(n)}`],
      ["calls in prose nested past the depth limit", (n) => `x ${"read_file(".repeat(n)}`],
      ["parentheses in prose", (n) => "a (b) c(d) (".repeat(n)],
      ["long words before parentheses in prose", (n) => `x ${"read_file".repeat(20)}(`.repeat(n)],
      ["print( wrappers at every line's start", (n) => "print(\n".repeat(n)],
      ["nested print( wrappers on one line", (n) => "print(".repeat(n)],
      ["<tool_call> tags whose unquoted arguments never close", (n) => '<tool_call name="read_file" arguments={"path": "a"/>\n'.repeat(n)],
    ];
    for (const [name, make] of floods) {
      expect(parse(make(5_000), vocabulary).commands, name).toEqual([]);
      expectLinear(make, 5_000);
    }
  });

  it("a line of 100,000 function calls after one at its start runs each once, in linear work", () => {
    const line = (n: number) => `${'read_file(path="a"), '.repeat(n)}\n`;
    const result = parse(line(100_000), vocabulary);
    expect(result.commands).toHaveLength(100_000);
    expect(result.errors).toEqual([]);
    expectLinear(line, 5_000);
    // Prose after the first call: the calls after it do not run; each is an error whose hint is the command.
    const prose = (n: number) => `read_file(path="a")${' x(y), read_file(path="a")'.repeat(n)}\n`;
    const told = parse(prose(100_000), vocabulary);
    expect(told.commands).toHaveLength(1);
    expect(told.errors).toHaveLength(100_000);
    expectLinear(prose, 5_000);
    // 100,000 openers of calls in the middle of a line, each closed or none: linear, nothing run.
    const openers = (n: number) => `Let me ${"read_file(".repeat(n)}`;
    expect(parse(openers(100_000), vocabulary)).toEqual({ commands: [], mentions: [], errors: [] });
    expectLinear(openers, 5_000);
    const closed = (n: number) => 'x read_file(path="a")'.repeat(n);
    expect(parse(closed(100_000), vocabulary).errors).toHaveLength(100_000);
    expectLinear(closed, 5_000);
  });

  it("a Python list over lines of thousands of calls, closed or broken off by prose, runs each call once, in linear work", () => {
    const closed = (n: number) => `[\n${'  read_file(path="a"),\n'.repeat(n)}]\n`;
    const broken = (n: number) => `[\n${'  read_file(path="a"),\n'.repeat(n)}prose\n`;
    for (const make of [closed, broken]) {
      const result = parse(make(5_000), vocabulary);
      expect(result.commands).toHaveLength(5_000);
      expect(result.errors).toEqual([]);
      expectLinear(make, 5_000);
    }
  });
});
