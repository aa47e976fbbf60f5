/**
 * The dialect layer (§4a): calls written in other formats, and near-misses of this language,
 * found beside the scanner, decided by the region log, in the same stream of findings.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ParseResult } from "../../grammar/ast.js";
import { CallScanner, CallVocabulary, parse, print } from "../../grammar/index.js";
import { collectEvents } from "../../grammar/parse.js";

/** A vocabulary as an application would pass it in (the grammar itself names no protocol). */
const vocabulary = new CallVocabulary({
  protocols: [
    {
      name: "FILE_OP",
      actions: {
        read: { parameters: { path: "text", limit: "word" } },
        write: { parameters: { path: "text", content: "text" } },
        list: { parameters: { path: "text", recursive: "word" } },
      },
    },
    { name: "EXEC", actions: { run: { parameters: { command: "text", timeout: "word" } } } },
    { name: "MEMORY", actions: { store: { parameters: { key: "word", value: "text", metadata: "json" } } } },
  ],
  aliases: {
    read_file: { protocol: "FILE_OP", action: "read" },
    write_to_file: { protocol: "FILE_OP", action: "write" },
    execute_command: { protocol: "EXEC", action: "run", ignore: ["requires_approval"] },
    list_files: { protocol: "FILE_OP", action: "list" },
  },
});

function chunked(chunks: string[]): ParseResult {
  const scanner = new CallScanner(vocabulary);
  const result: ParseResult = { commands: [], mentions: [], errors: [] };
  for (const chunk of chunks) collectEvents(scanner.push(chunk), result);
  return collectEvents(scanner.end(), result);
}

/** `text` parsed in chunks of `size` gives the one-shot result, its commands, mentions and errors each in source order; returns that result. */
function expectSizedChunksAgree(text: string, size: number): ParseResult {
  const whole = parse(text, vocabulary);
  for (const list of [whole.commands, whole.mentions, whole.errors]) {
    const starts = list.map(({ span }) => span.start.offset);
    expect([...starts].sort((left, right) => left - right)).toEqual(starts);
  }
  const chunks: string[] = [];
  for (let at = 0; at < text.length; at += size) chunks.push(text.slice(at, at + size));
  expect(chunked(chunks)).toEqual(whole);
  return whole;
}

/** `text` parsed in every two-piece chunking and in 1-character chunks gives the one-shot result; returns that result. */
function expectEveryChunking(text: string): ParseResult {
  const whole = parse(text, vocabulary);
  for (let cut = 1; cut < text.length; cut++) expect(chunked([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(whole);
  expect(chunked([...text])).toEqual(whole);
  return whole;
}

function calls(text: string): [string, string | undefined, Record<string, string>][] {
  return parse(text, vocabulary).commands.map((command) => [
    command.protocol,
    command.dialect,
    Object.fromEntries(command.parameters.map((parameter) => [parameter.key, parameter.text])),
  ]);
}

const READ = { action: "read", path: "a.ts" };

const FORMS: Record<string, string> = {
  hermes: '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>',
  "hermes, protocol name": '<tool_call>{"name": "FILE_OP", "arguments": {"action": "read", "path": "a.ts"}}</tool_call>',
  "hermes, OpenAI shape with string arguments": '<tool_call>{"type": "function", "function": {"name": "read_file", "arguments": "{\\"path\\": \\"a.ts\\"}"}}</tool_call>',
  "hermes, unclosed with a whole JSON call": '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}',
  json: 'Reading it.\n{"name": "read_file", "parameters": {"path": "a.ts"}}\nDone.',
  "json over lines": '{\n  "name": "FILE_OP",\n  "arguments": {"action": "read", "path": "a.ts"}\n}',
  "qwen-xml": "<tool_call>\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>",
  "qwen-xml, bare function": "<function=FILE_OP>\n<parameter=action>\nread\n</parameter>\n<parameter=path>\na.ts\n</parameter>\n</function>",
  "glm-xml": "<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>a.ts</arg_value>\n</tool_call>",
  "glm-xml, protocol name on one line": "<tool_call>FILE_OP<arg_key>action</arg_key><arg_value>read</arg_value><arg_key>path</arg_key><arg_value>a.ts</arg_value></tool_call>",
  "glm-xml, unclosed": "<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>a.ts</arg_value>",
  "invoke-xml": '<invoke name="read_file">\n<parameter name="path">a.ts</parameter>\n</invoke>',
  "invoke-xml, in function_calls":
    "<function_calls>\n<invoke name='FILE_OP'><parameter name='action'>read</parameter><parameter name='path'>a.ts</parameter></invoke>\n</function_calls>",
  "invoke-xml, in minimax:tool_call": '<minimax:tool_call>\n<invoke name="read_file">\n<parameter name="path">a.ts</parameter>\n</invoke>\n</minimax:tool_call>',
  "invoke-xml, unclosed": '<invoke name="read_file">\n<parameter name="path">a.ts</parameter>',
  "json, an array of one call": '[{"name": "read_file", "arguments": {"path": "a.ts"}}]',
  "json, an array over lines after an indentation": 'Calling:\n  [\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n]',
  "hermes, an array of one call": '<tool_call>\n[{"name": "read_file", "arguments": {"path": "a.ts"}}]\n</tool_call>',
  "json after Llama's <|python_tag|>": '<|python_tag|>{"name": "read_file", "parameters": {"path": "a.ts"}}<|eom_id|>',
  "json after a marker, on the next line": '<|python_tag|>\n{"name": "read_file", "parameters": {"path": "a.ts"}}',
  "json array after Phi-4's <|tool_call|>": '<|tool_call|>[{"name": "read_file", "arguments": {"path": "a.ts"}}]<|/tool_call|>',
  "json array after Mistral's [TOOL_CALLS]": '[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a.ts"}}]</s>',
  react: 'Thought: I need the file.\nAction: read_file\nAction Input: {"path": "a.ts"}\nObservation: (waiting)',
  "react, plain input": "Action: read_file\nAction Input: a.ts",
  "react, JSON over lines": 'Action: FILE_OP\nAction Input: {\n  "action": "read",\n  "path": "a.ts"\n}',
  "json, LangChain tool_input": '{"tool": "read_file", "tool_input": {"path": "a.ts"}}',
  "json, LangChain action_input": '{"action": "read_file", "action_input": {"path": "a.ts"}}',
  "xml, tool element": "<read_file>\n<path>a.ts</path>\n</read_file>",
  "xml, protocol element": "<FILE_OP><action>read</action><path>a.ts</path></FILE_OP>",
  "xml, attributes, self-closing": '<read_file path="a.ts"/>',
  "xml, attributes in single quotes, a blank before />": "<read_file path='a.ts' />",
  "xml, an unquoted attribute": "<read_file path=a.ts/>",
  "xml, protocol element with attributes": '<FILE_OP action="read" path="a.ts"></FILE_OP>',
  function: 'FILE_OP(action="read", path="a.ts")',
  "function, dotted": "FILE_OP.read(path='a.ts')",
  "function, tool name": 'read_file(path="a.ts")',
  "near-miss, space after [": '[ FILE_OP:action=read:path="a.ts"]',
  "near-miss, space before :": '[FILE_OP :action=read:path="a.ts"]',
  "near-miss, space in the name": '[FILE OP:action=read:path="a.ts"]',
  "near-miss, spaces between parameters": '[FILE_OP action=read path="a.ts"]',
  "near-miss, commas": '[FILE_OP, action=read, path="a.ts"]',
  "near-miss, bars": '[FILE_OP|action=read|path="a.ts"]',
  "near-miss, JSON": '[FILE_OP:{"action": "read", "path": "a.ts"}]',
  "near-miss, dotted action": '[FILE_OP.read:path="a.ts"]',
  "near-miss, line break before :": '[FILE_OP\n:action=read:path="a.ts"]',
  "near-miss, fullwidth": '［FILE_OP：action=read：path="a.ts"］',
  "near-miss, function in brackets": '[FILE_OP(action="read", path="a.ts")]',
  "hermes, <function_call>": '<function_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</function_call>',
  "hermes, <tools>": '<tools>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tools>',
  "json, xLAM's tool_calls": '{"tool_calls": [{"name": "read_file", "arguments": {"path": "a.ts"}}]}',
  "json, AutoGPT's command": '{"thoughts": {"text": "I need the file."}, "command": {"name": "read_file", "args": {"path": "a.ts"}}}',
  "json, OpenAI's function_call": '{"function_call": {"name": "read_file", "arguments": "{\\"path\\": \\"a.ts\\"}"}}',
  "qwen-xml, Llama 3.1's JSON body": '<function=read_file>{"path": "a.ts"}</function>',
  "deepseek V3": '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{"path": "a.ts"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  "deepseek V3.1": '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path": "a.ts"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  "deepseek, a call without its block": '<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path":"a.ts"}<｜tool▁call▁end｜>',
  "deepseek, ASCII bars": '<|tool▁calls▁begin|><|tool▁call▁begin|>read_file<|tool▁sep|>{"path": "a.ts"}<|tool▁call▁end|><|tool▁calls▁end|>',
  "deepseek, unclosed": '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path": "a.ts"}',
  internlm: '<|action_start|><|plugin|>\n{"name": "read_file", "parameters": {"path": "a.ts"}}<|action_end|>',
  "mistral, name and [ARGS]": '[TOOL_CALLS]read_file[ARGS]{"path": "a.ts"}',
  "mistral, name and arguments": 'Reading it.[TOOL_CALLS]read_file{"path": "a.ts"}</s>',
  "mistral, blanks between its tokens": '[TOOL_CALLS] read_file [ARGS] {"path": "a.ts"}',
  "mistral, with [CALL_ID]": '[TOOL_CALLS]FILE_OP.read[CALL_ID]a1b2c3d4e[ARGS]{"path": "a.ts"}',
  "qwen-agent": '✿FUNCTION✿: read_file\n✿ARGS✿: {"path": "a.ts"}',
  "qwen-agent, indented, its result to come": '  ✿FUNCTION✿: FILE_OP\n✿ARGS✿: {"action": "read", "path": "a.ts"}\n✿RESULT✿:',
  "function, a Python list of one call": '[read_file(path="a.ts")]',
  "function, Llama 4's python tokens": '<|python_start|>[read_file(path="a.ts")]<|python_end|>',
  "json after FireFunction's functools": ' functools[{"name": "read_file", "arguments": {"path": "a.ts"}}]<|eot_id|>',
  harmony: '<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path":"a.ts"}<|call|>',
  "harmony, the recipient in the role":
    '<|channel|>analysis<|message|>I need it.<|end|><|start|>assistant to=functions.read_file<|channel|>commentary json<|message|>{"path": "a.ts"}<|call|>',
  kimi: '<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{"path": "a.ts"}<|tool_call_end|>\n<|tool_calls_section_end|>',
  "hermes, Cohere's <|START_ACTION|>": '<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "read_file", "parameters": {"path": "a.ts"}}\n]<|END_ACTION|>',
  "hermes, Apriel's <tool_calls>": '<tool_calls>[{"name": "read_file", "arguments": {"path": "a.ts"}}]</tool_calls>',
  "hermes, Nemotron's <TOOLCALL>": '<TOOLCALL>[{"name": "read_file", "arguments": {"path": "a.ts"}}]</TOOLCALL>',
};

describe("other dialects and near-misses", () => {
  it.each(Object.entries(FORMS))("%s runs as the equivalent command", (_name, text) => {
    const [call] = calls(text);
    expect(call?.[0]).toBe("FILE_OP");
    expect(call?.[1]).not.toBe("clio");
    expect(call?.[2]).toEqual(READ);
    expect(parse(text, vocabulary).errors).toEqual([]);
  });

  it.each(Object.entries(FORMS))("%s, on a later line after prose or a blank line, runs the same, one-shot, cut anywhere in two and a character at a time", (name, form) => {
    // An unclosed form runs to the text's end: prose after it would be its body.
    const after = name.includes("unclosed") ? "" : "\nMore prose.";
    for (const text of [`Some prose.\n${form}${after}`, `Some prose.\n\n${form}`, `${"x".repeat(40)}\n${form}`]) {
      const whole = parse(text, vocabulary);
      expect(
        whole.commands.map((command) => command.protocol),
        text,
      ).toEqual(["FILE_OP"]);
      for (let cut = 1; cut < text.length; cut++) expect(chunked([text.slice(0, cut), text.slice(cut)]), `${text} cut at ${cut}`).toEqual(whole);
      expect(chunked([...text])).toEqual(whole);
    }
  });

  it("[NAME: is a near-miss only when a blank or { follows the colon, wherever a chunk ends", () => {
    const near = ['[FILE_OP: {"action": "read", "path": "a.ts"}]', '[FILE_OP:\r\n{"action": "read", "path": "a.ts"}]', '[FILE_OP:\t{"action": "read", "path": "a.ts"}]'];
    for (const text of [...near, '[FILE_OP:action=read:path="a.ts"]', '[FILE_OP:x{"action": "read"}]']) {
      const whole = parse(text, vocabulary);
      expect(
        whole.commands.map((command) => command.dialect),
        text,
      ).toEqual(near.includes(text) ? ["clio-variant"] : text.includes("x{") ? [] : [undefined]);
      for (let cut = 1; cut < text.length; cut++) expect(chunked([text.slice(0, cut), text.slice(cut)]), `${text} cut at ${cut}`).toEqual(whole);
    }
  });

  it("names the dialect each was written in; clio's own form has none", () => {
    expect(calls(FORMS.hermes!)[0]![1]).toBe("hermes");
    expect(calls(FORMS["qwen-xml"]!)[0]![1]).toBe("qwen-xml");
    expect(calls(FORMS["glm-xml"]!)[0]![1]).toBe("glm-xml");
    expect(calls(FORMS["invoke-xml"]!)[0]![1]).toBe("invoke-xml");
    expect(calls(FORMS.react!)[0]![1]).toBe("react");
    expect(calls(FORMS["xml, tool element"]!)[0]![1]).toBe("xml");
    expect(calls(FORMS.function!)[0]![1]).toBe("function");
    expect(calls(FORMS["deepseek V3"]!)[0]![1]).toBe("deepseek");
    expect(calls(FORMS.internlm!)[0]![1]).toBe("internlm");
    expect(calls(FORMS["mistral, name and [ARGS]"]!)[0]![1]).toBe("mistral");
    expect(calls(FORMS["qwen-agent"]!)[0]![1]).toBe("qwen-agent");
    expect(calls(FORMS.kimi!)[0]![1]).toBe("kimi");
    expect(calls(FORMS.harmony!)[0]![1]).toBe("harmony");
    expect(calls(FORMS["near-miss, bars"]!)[0]![1]).toBe("clio-variant");
    expect(calls('[FILE_OP:action=read:path="a.ts"]')[0]![1]).toBeUndefined();
  });

  it("GLM's and <invoke>'s forms: a name that is nothing registered is an error listing the protocols; malformed arguments an error; prose about the tags is text", () => {
    for (const text of [
      '<invoke name="web_search"><parameter name="q">x</parameter></invoke>',
      "<tool_call>web_search\n<arg_key>q</arg_key>\n<arg_value>x</arg_value>\n</tool_call>",
    ]) {
      const result = parse(text, vocabulary);
      expect(result.commands, text).toEqual([]);
      expect(result.errors, text).toMatchObject([{ code: "unmapped_call", message: expect.stringContaining("FILE_OP") }]);
    }
    expect(parse('<invoke name="read_file"><path>a.ts</path></invoke>', vocabulary).errors).toMatchObject([
      { code: "unmapped_call", message: expect.stringContaining('<parameter name="KEY">') },
    ]);
    expect(parse("<invoke><parameter name='path'>a.ts</parameter></invoke>", vocabulary)).toEqual({ commands: [], mentions: [], errors: [] });
    expect(parse("<tool_call>read_file\n<arg_key>path</arg_key>a.ts\n</tool_call>", vocabulary).errors).toMatchObject([
      { code: "unmapped_call", message: expect.stringContaining("<arg_value>") },
    ]);
    for (const prose of [
      "I will use <invoke> tags and <invoke name=x> later.",
      'Write <invoke name="read_file"> then stop.',
      '{"action": "Final Answer", "action_input": "done"}',
    ]) {
      expect(parse(prose, vocabulary), prose).toEqual({ commands: [], mentions: [], errors: [] });
    }
  });

  it("a JSON array of calls at a line's start runs each call, with its own span; elsewhere, or naming nothing, it is text", () => {
    const text = 'Both:\n[{"name": "read_file", "arguments": {"path": "a.ts"}},\n {"name": "execute_command", "arguments": {"command": "npm test"}}]\nDone.';
    const result = parse(text, vocabulary);
    expect(result.errors).toEqual([]);
    const first = '{"name": "read_file", "arguments": {"path": "a.ts"}}';
    const second = '{"name": "execute_command", "arguments": {"command": "npm test"}}';
    expect(result.commands.map((command) => [command.protocol, command.dialect, command.span.start.line, command.span.start.column, command.span.end.column])).toEqual([
      ["FILE_OP", "json", 2, 2, 2 + first.length],
      ["EXEC", "json", 3, 2, 2 + second.length],
    ]);
    expect(text.slice(result.commands[1]!.span.start.offset, result.commands[1]!.span.end.offset)).toBe(second);
    const pretty = parse(`Both:\n  [\n    ${first},\n    ${second}\n  ]\n`, vocabulary);
    expect(pretty.commands.map((command) => [command.protocol, command.span.start.line, command.span.start.column])).toEqual([
      ["FILE_OP", 3, 5],
      ["EXEC", 4, 5],
    ]);
    expect(parse(`[\n\n${first}]`, vocabulary).commands).toEqual([]);
    const hermes = parse('<tool_call>[{"name": "read_file", "arguments": {"path": "a.ts"}}, {"name": "browser_open", "arguments": {}}]</tool_call>', vocabulary);
    expect(hermes.commands.map((command) => command.dialect)).toEqual(["hermes"]);
    expect(hermes.errors).toMatchObject([{ code: "unmapped_call", message: expect.stringContaining("browser_open") }]);
    for (const plain of [
      'Inline [{"name": "read_file", "arguments": {"path": "a.ts"}}] is prose.',
      '[{"name": "app", "port": 8080}]',
      "[{x}] and [{y}](https://example.com)",
      '[{"name": "read_file", "arguments": {"path": "a.ts"}}, "text"]',
      '[[{"name": "read_file", "arguments": {"path": "a.ts"}}]]',
      '[{"name": "read_file", "arguments": {"path": "a.ts"}}] and more on the line',
    ]) {
      expect(parse(plain, vocabulary).commands, plain).toEqual([]);
    }
    expect(parse('```json\n[{"name": "read_file", "arguments": {"path": "a.ts"}}]\n```', vocabulary).mentions).toMatchObject([
      { context: "fence", hint: '[FILE_OP:action=read:path="a.ts"]' },
    ]);
  });

  it("a marker token (<|python_tag|>, <|tool_call|>) counts only at a line's start and only when it is one of those", () => {
    const call = '{"name": "read_file", "parameters": {"path": "a.ts"}}';
    const two = parse(`<|tool_call|>[${call}, {"name": "execute_command", "arguments": {"command": "ls"}}]<|/tool_call|>`, vocabulary);
    expect(two.commands.map((command) => command.protocol)).toEqual(["FILE_OP", "EXEC"]);
    expect(parse('<|python_tag|>read_file(path="a.ts")', vocabulary).commands.map((command) => command.dialect)).toEqual(["function"]);
    for (const plain of [`The token <|python_tag|>${call} is prose here.`, `<|im_start|>${call}`, `<|python_tag|> and then ${call}`, '<|python_tag|>{"name": "app", "port": 1}']) {
      expect(parse(plain, vocabulary).commands, plain).toEqual([]);
    }
  });

  it("[TOOL_CALLS] is a marker wherever it stands whatever the vocabulary names (this one has no name beginning with T), in any chunking", () => {
    const text = '[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "a.ts"}}, {"name": "execute_command", "arguments": {"command": "ls"}}]';
    const whole = parse(text, vocabulary);
    expect(whole.commands.map((command) => command.protocol)).toEqual(["FILE_OP", "EXEC"]);
    for (let cut = 1; cut < text.length; cut++) expect(chunked([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    expect(chunked([...text])).toEqual(whole);
    // After prose on its line, as Mistral's models write it straight after their text.
    expect(parse('text [TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a.ts"}}]', vocabulary).commands.map((command) => command.protocol)).toEqual(["FILE_OP"]);
    for (const plain of ['[TOOL_CALL][{"name": "read_file", "arguments": {"path": "a.ts"}}]', "[TOOLS] and [TOOL_CALLS]"]) {
      expect(parse(plain, vocabulary).commands, plain).toEqual([]);
    }
  });

  it("DeepSeek's block runs each of its calls; in a fence of its own it is a mention", () => {
    const call = (name: string, args: string) => `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${name}\n\`\`\`json\n${args}\n\`\`\`<｜tool▁call▁end｜>`;
    const text = `Both.<｜tool▁calls▁begin｜>${call("read_file", '{"path": "a.ts"}')}\n${call("execute_command", '{"command": "ls"}')}<｜tool▁calls▁end｜>`;
    const whole = parse(text, vocabulary);
    expect(whole.commands.map((command) => [command.protocol, command.span.start.line])).toEqual([
      ["FILE_OP", 1],
      ["EXEC", 5],
    ]);
    for (let cut = 1; cut < text.length; cut++) expect(chunked([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    expect(chunked([...text])).toEqual(whole);
    const fenced = parse(`DeepSeek writes:\n\n\`\`\`\n${FORMS["deepseek, a call without its block"]}\n\`\`\`\n`, vocabulary);
    expect(fenced.commands).toEqual([]);
    expect(fenced.mentions).toMatchObject([{ context: "fence", hint: '[FILE_OP:action=read:path="a.ts"]' }]);
  });

  it("DeepSeek V3's end token closes the ```json fence its call opened, so a command after the block runs, in any chunking", () => {
    const block = FORMS["deepseek V3"]!;
    const text = `${block}\nThen the tests:\n[EXEC:action=run:command="npm test"]\n`;
    const whole = parse(text, vocabulary);
    expect(whole.commands.map((command) => [command.protocol, command.dialect, command.span.start.line])).toEqual([
      ["FILE_OP", "deepseek", 1],
      ["EXEC", undefined, 6],
    ]);
    expect([...whole.errors, ...whole.mentions]).toEqual([]);
    for (let cut = 1; cut < text.length; cut++) expect(chunked([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    expect(chunked([...text])).toEqual(whole);
    // The scanner alone reads the fence the same way.
    expect(parse(text).commands.map((command) => command.protocol)).toEqual(["EXEC"]);
    const ascii = parse('```json\n{"a": 1}\n```<|tool_call_end|><|tool_calls_end|>  \n[EXEC:action=run:command="ls"]\n', vocabulary);
    expect(ascii.commands.map((command) => command.protocol)).toEqual(["EXEC"]);
  });

  it("any other fence stays open as CommonMark says: unclosed, a plain ``` or one whose first line is no JSON object, or text after the token; a block quoted in a fence, or an end token alone, changes nothing", () => {
    const after = '\n[EXEC:action=run:command="ls"]\n';
    for (const text of [
      '```json\n{"a": 1}\n',
      '```json\n{"a": 1}\n``` x',
      '```\n{"a": 1}\n```<｜tool▁call▁end｜>',
      "```json\nconst a = 1;\n```<｜tool▁call▁end｜>",
      '```json\n{"a": 1}\n```<｜tool▁call▁end｜> and more',
      '```json\n{"a": 1}\n```<｜tool▁call▁ended｜>',
    ]) {
      const result = parse(text + after, vocabulary);
      expect(result.commands, text).toEqual([]);
      expect(
        result.mentions.map((mention) => mention.context),
        text,
      ).toEqual(["fence"]);
    }
    const quoted = `Example:\n\n\`\`\`\n${FORMS["deepseek V3"]}\n\`\`\`${after}`;
    const result = parse(quoted, vocabulary);
    expect(result.commands.map((command) => command.protocol)).toEqual(["EXEC"]);
    expect(result.mentions).toMatchObject([{ context: "fence", hint: '[FILE_OP:action=read:path="a.ts"]' }]);
    expect(parse(`<｜tool▁call▁end｜><｜tool▁calls▁end｜>${after}`, vocabulary).commands.map((command) => command.protocol)).toEqual(["EXEC"]);
  });

  it("a Python list of calls (Llama 3.2, ToolACE) runs each call; once one names a tool, one naming nothing is an error", () => {
    const text = 'Both:\n[read_file(path="a.ts"), list_files(path=".", recursive=True)]\nDone.';
    const whole = parse(text, vocabulary);
    expect(whole.commands.map((command) => [command.protocol, command.dialect, command.span.start.column])).toEqual([
      ["FILE_OP", "function", 2],
      ["FILE_OP", "function", 26],
    ]);
    for (let cut = 1; cut < text.length; cut++) expect(chunked([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    expect(chunked([...text])).toEqual(whole);
    const unknown = parse('[read_file(path="a.ts"), browser_open(url="x")]', vocabulary);
    expect(unknown.commands).toHaveLength(1);
    expect(unknown.errors).toMatchObject([{ code: "unmapped_call", message: expect.stringContaining("browser_open") }]);
    expect(parse("[foo(1), bar(2)] are Python calls; [x(1), y(2)] too.", vocabulary)).toEqual({ commands: [], mentions: [], errors: [] });
  });

  it("a Python list on one line whose first call names nothing is calls too, once a later one names a tool: that one runs, each naming nothing is an error", () => {
    const text = 'Sure: [foo(x=1), read_file(path="a.ts"), bar(y="]")]\nDone.';
    const whole = parse(text, vocabulary);
    expect(whole.commands.map((command) => [command.protocol, command.dialect, command.span.start.column])).toEqual([["FILE_OP", "function", 18]]);
    expect(whole.errors.map((error) => [error.code, error.span.start.column, error.message.includes("no clio command")])).toEqual([
      ["unmapped_call", 8, true],
      ["unmapped_call", 42, true],
    ]);
    for (let cut = 1; cut < text.length; cut++) expect(chunked([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    expect(chunked([...text])).toEqual(whole);
    expect(parse('`[foo(x=1), read_file(path="a.ts")]`', vocabulary).mentions).toMatchObject([
      { context: "inline-code" },
      { context: "inline-code", hint: '[FILE_OP:action=read:path="a.ts"]' },
    ]);
  });

  it("a Python list pretty-printed over lines runs every call, in any chunking: [ alone on its line, or the first call on it, a comma before ] or not, indented", () => {
    const shapes = [
      '[\n  read_file(path="a.ts"),\n  list_files(path="src")\n]\n',
      '[\n  read_file(path="a.ts"),\n  list_files(path="src"),\n]\n',
      '[read_file(path="a.ts"),\nlist_files(path="src")]\n',
      '[read_file(path="a.ts"),\n list_files(path="src"),\n]\n',
      '  [\r\n    read_file(path="a.ts"),\r\n    list_files(\r\n      path="src",\r\n    ),\r\n  ]\r\n',
      'Both:\n\n[\n  read_file(path="a.ts"),\n  list_files(path="src")\n]\n\nDone.',
    ];
    for (const text of shapes) {
      const whole = parse(text, vocabulary);
      expect(
        whole.commands.map((command) => print(command)),
        text,
      ).toEqual(['[FILE_OP:action=read:path="a.ts"]', '[FILE_OP:action=list:path="src"]']);
      expect([...whole.mentions, ...whole.errors], text).toEqual([]);
      for (let cut = 1; cut < text.length; cut++) expect(chunked([text.slice(0, cut), text.slice(cut)]), `${text} cut at ${cut}`).toEqual(whole);
      expect(chunked([...text])).toEqual(whole);
    }
    expect(parse('[read_file(path="a.ts"), list_files(path="src"),]', vocabulary).commands.map((command) => command.dialect)).toEqual(["function", "function"]);
  });

  it("a [ that ends a line of prose opens a Python list or a JSON array of calls over the lines after it, in any chunking", () => {
    const text =
      'Sure: [\n  read_file(path="a.ts"),\n  get_weather(city="P")\n]\nCalls: [\n  {"name": "read_file", "arguments": {"path": "b.ts"}},\n  {"name": "list_files", "arguments": {"path": "src"}}\n]\n';
    const whole = parse(text, vocabulary);
    expect(whole.commands.map((command) => [print(command), command.dialect, command.span.start.line])).toEqual([
      ['[FILE_OP:action=read:path="a.ts"]', "function", 2],
      ['[FILE_OP:action=read:path="b.ts"]', "json", 6],
      ['[FILE_OP:action=list:path="src"]', "json", 7],
    ]);
    expect(whole.errors).toMatchObject([{ code: "unmapped_call", message: expect.stringContaining("get_weather"), span: { start: { line: 3 } } }]);
    for (let cut = 1; cut < text.length; cut++) expect(chunked([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    expect(chunked([...text])).toEqual(whole);
    for (const prose of ["x = [\n  foo(1),\n  bar(2)\n]\n", "see [\nlink](http://x) and [\n", "a [{ b }] c\n"])
      expect(parse(prose, vocabulary), prose).toEqual({ commands: [], mentions: [], errors: [] });
  });

  it("a Python list over lines: one call naming no tool is an error beside those that run, none naming a tool is text, in a fence each call is a mention", () => {
    const mixed = parse('[\n  get_weather(city="Paris"),\n  read_file(path="a.ts")\n]', vocabulary);
    expect(mixed.commands.map((command) => [print(command), command.span.start.line])).toEqual([['[FILE_OP:action=read:path="a.ts"]', 3]]);
    expect(mixed.errors).toMatchObject([{ code: "unmapped_call", message: expect.stringContaining("get_weather"), span: { start: { line: 2, column: 3 } } }]);
    const first = parse('[get_weather(city="Paris"),\n  read_file(path="a.ts")]', vocabulary);
    expect(first.commands.map((command) => print(command))).toEqual(['[FILE_OP:action=read:path="a.ts"]']);
    expect(first.errors).toHaveLength(1);
    for (const text of ["[\n  len(x),\n  max(y)\n]", "[len(x),\n max(y),\n]", "  [\n    f(1),\n  ]\n"])
      expect(parse(text, vocabulary), text).toEqual({ commands: [], mentions: [], errors: [] });
    const fenced = parse('```\n[\n  read_file(path="a.ts"),\n  list_files(path="src")\n]\n```\n', vocabulary);
    expect(fenced.commands).toEqual([]);
    expect(fenced.mentions).toMatchObject([
      { context: "fence", hint: '[FILE_OP:action=read:path="a.ts"]' },
      { context: "fence", hint: '[FILE_OP:action=list:path="src"]' },
    ]);
  });

  it("a Python list over lines that is broken off or never closed leaves each call that began its line to run as such a call, and reads the line it stopped in from its start", () => {
    const broken = parse('[\n  read_file(path="a.ts"),\n  list_files(path="src")\nThen the tests.\n', vocabulary);
    expect(broken.commands.map((command) => [print(command), command.span.start.line])).toEqual([
      ['[FILE_OP:action=read:path="a.ts"]', 2],
      ['[FILE_OP:action=list:path="src"]', 3],
    ]);
    const unclosed = parse('[\n  foo(x),\n  read_file(path="a.ts"),\n  execute_command(command="ls")', vocabulary);
    expect(unclosed.commands.map((command) => print(command))).toEqual(['[FILE_OP:action=read:path="a.ts"]', '[EXEC:action=run:command="ls"]']);
    expect(unclosed.errors).toEqual([]);
    const blank = parse('[\n  read_file(path="a.ts"),\n\n  list_files(path="src")\n]', vocabulary);
    expect(blank.commands.map((command) => print(command))).toEqual(['[FILE_OP:action=read:path="a.ts"]', '[FILE_OP:action=list:path="src"]']);
    const react = parse('[\n  foo(x),\nAction: read_file\nAction Input: {"path": "a.ts"}\n', vocabulary);
    expect(react.commands.map((command) => [print(command), command.dialect])).toEqual([['[FILE_OP:action=read:path="a.ts"]', "react"]]);
    const json = parse('[\n  foo(x),\n  {"name": "read_file", "arguments": {"path": "a.ts"}}\n', vocabulary);
    expect(json.commands.map((command) => [print(command), command.dialect])).toEqual([['[FILE_OP:action=read:path="a.ts"]', "json"]]);
  });

  it("a near-miss or a Python list whose ] never comes, before a blank line or the reply's end, is an error per call whose hint is the command, in any chunking", () => {
    const text =
      '[read_file(path="a.ts"),\n list_files(path="src")\n\nThen [FILE_OP action=read path="b.ts"\n\n[EXEC:action=run:command="ls"]\n［FILE_OP：action=read：path="c.ts"';
    const whole = parse(text, vocabulary);
    expect(whole.commands.map((command) => print(command))).toEqual(['[EXEC:action=run:command="ls"]']);
    expect(whole.errors.map((error) => [error.code, error.hint, error.span.start.line, error.span.start.column])).toEqual([
      ["unmapped_call", '[FILE_OP:action=read:path="a.ts"]', 1, 2],
      ["unmapped_call", '[FILE_OP:action=list:path="src"]', 2, 2],
      ["unmapped_call", '[FILE_OP:action=read:path="b.ts"]', 4, 6],
      ["unmapped_call", '[FILE_OP:action=read:path="c.ts"]', 7, 1],
    ]);
    expect(whole.errors[2]!.message).toContain("never closed");
    expect(whole.errors[2]!.span.end).toMatchObject({ line: 4, column: 38 });
    for (let cut = 1; cut < text.length; cut++) expect(chunked([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    expect(chunked([...text])).toEqual(whole);
    const array =
      '[\n  {"name": "read_file", "arguments": {"path": "a"}},\n  {"name": "list_files", "arguments": {"path": "s"}},\n\nDone.\n[\n  {"name": "read_file", "arguments": {"path": "b"}}';
    const arrays = parse(array, vocabulary);
    expect(arrays.commands).toEqual([]);
    expect(arrays.errors.map((error) => [error.hint, error.span.start.line])).toEqual([
      ['[FILE_OP:action=read:path="a"]', 2],
      ['[FILE_OP:action=list:path="s"]', 3],
      ['[FILE_OP:action=read:path="b"]', 7],
    ]);
    for (let cut = 1; cut < array.length; cut++) expect(chunked([array.slice(0, cut), array.slice(cut)]), `cut at ${cut}`).toEqual(arrays);
    expect(chunked([...array])).toEqual(arrays);
    // A JSON array cut short inside a call says nothing of it (its arguments may be cut short too).
    expect(parse('[\n  {"name": "write_to_file", "arguments": {"path": "a", "content": "x"', vocabulary)).toEqual({ commands: [], mentions: [], errors: [] });
    // Prose after a bracket that names a tool but maps to no call stays text.
    for (const prose of [
      "See the [FILE_OP protocol (below)\n\nok",
      "[read_file is the tool to use",
      "See the [FILE_OP protocol (below) for more\n\nok",
      "[read_file (see below) for how\n",
    ]) {
      expect(parse(prose, vocabulary), prose).toEqual({ commands: [], mentions: [], errors: [] });
    }
  });

  it("a near-miss or a Python list whose ] never comes with prose after its call, or a list left open at its line's end, is an error per call whose hint is the command, in any chunking", () => {
    const text = [
      '[execute_command(command="ls") and then I will check',
      "",
      'So [FILE_OP:{"action": "read", "path": "a.ts"} next.',
      "",
      'x [foo(x=1), read_file(path="b.ts")',
      '[functions.read_file(path="c.ts")',
      "",
      '[foo(x=1), list_files(path="src"),',
      "",
    ].join("\n");
    const whole = expectEveryChunking(text);
    expect(whole.commands).toEqual([]);
    expect(whole.mentions).toEqual([]);
    expect(whole.errors.map((error) => [error.code, error.hint, error.span.start.line, error.span.start.column])).toEqual([
      ["unmapped_call", '[EXEC:action=run:command="ls"]', 1, 1],
      ["unmapped_call", '[FILE_OP:action=read:path="a.ts"]', 3, 4],
      ["unmapped_call", '[FILE_OP:action=read:path="b.ts"]', 5, 14],
      ["unmapped_call", '[FILE_OP:action=read:path="c.ts"]', 6, 1],
      ["unmapped_call", '[FILE_OP:action=list:path="src"]', 8, 12],
    ]);
    expect(whole.errors[0]!.message).toContain("never closed");
    expect(whole.errors[0]!.span.end).toMatchObject({ line: 1, column: 31 });
    // Naming no tool, it is as before: lists of other calls stay text.
    for (const prose of ["[foo(x=1), bar(y) and more\n", '[foo(x=1), bar(y="z")\n', "[f(x) for x in xs\n"]) {
      expect(parse(prose, vocabulary), prose).toEqual({ commands: [], mentions: [], errors: [] });
    }
  });

  it("lists, links and calls in prose that name no tool stay text, and a list broken off leaves what follows it to be read", () => {
    for (const prose of ["[a(1), b(2)]", "[x(y)]", "See [the docs](https://x.y/read_file(a)) and [a, b].", "[f(x) for x in xs]", "[foo(1),\nbar(2)]"]) {
      expect(parse(prose, vocabulary), prose).toEqual({ commands: [], mentions: [], errors: [] });
    }
    // A call naming a tool among them is one in the middle of a line: an error whose hint is the command (inline-call.ts).
    expect(parse('[foo (1), read_file(path="a")]', vocabulary).errors.map((error) => error.hint)).toEqual(['[FILE_OP:action=read:path="a"]']);
    expect(parse("[a(1), ".repeat(150_000), vocabulary)).toEqual({ commands: [], mentions: [], errors: [] });
    const broken = parse('[foo(x) <tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>', vocabulary);
    expect(broken.commands.map((command) => command.dialect)).toEqual(["hermes"]);
    const inFence = parse('```\n[foo(x=1), read_file(path="a.ts")]\n```\n', vocabulary);
    expect(inFence.commands).toEqual([]);
    expect(inFence.mentions.map((mention) => mention.context)).toEqual(["fence", "fence"]);
  });

  it("Functionary's >>>NAME step is a block quote to CommonMark: a mention whose hint is the command, in any chunking; its >>>all text is nothing", () => {
    const text = '>>>all\nI will read the file.\n>>>read_file\n{"path": "a.ts"}\n';
    const whole = parse(text, vocabulary);
    expect(whole.commands).toEqual([]);
    expect(whole.errors).toEqual([]);
    expect(whole.mentions).toMatchObject([{ context: "quote", text: ">>>read_file", hint: '[FILE_OP:action=read:path="a.ts"]' }]);
    for (let cut = 1; cut < text.length; cut++) expect(chunked([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    expect(chunked([...text])).toEqual(whole);
    expect(parse("> quoted\n>>> nested\n> > more\n>>>\n", vocabulary)).toEqual({ commands: [], mentions: [], errors: [] });
  });

  it("a tool's name in the functions. namespace (functions.read_file, as GPT-5 writes it) names that tool, in JSON, function-call style and ReAct, in any chunking", () => {
    const text =
      'functions.read_file(path="a.ts")\n<tool_call>{"name": "functions.execute_command", "arguments": {"command": "ls"}}</tool_call>\n{"name": "Functions.FILE_OP", "arguments": {"action": "list", "path": "src"}}\nAction: functions.read_file\nAction Input: b.ts\nfunctions.FILE_OP.read(path="c.ts")\n';
    const whole = parse(text, vocabulary);
    expect(whole.commands.map((command) => [print(command), command.dialect])).toEqual([
      ['[FILE_OP:action=read:path="a.ts"]', "function"],
      ['[EXEC:action=run:command="ls"]', "hermes"],
      ['[FILE_OP:action=list:path="src"]', "json"],
      ['[FILE_OP:action=read:path="b.ts"]', "react"],
      ['[FILE_OP:action=read:path="c.ts"]', "function"],
    ]);
    expect([...whole.errors, ...whole.mentions]).toEqual([]);
    for (let cut = 1; cut < text.length; cut++) expect(chunked([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    expect(chunked([...text])).toEqual(whole);
    // The namespace alone, or before a name that is no tool, names nothing; a protocol needs its registered case there too.
    for (const prose of ['functions.get_weather(city="P")', "functions(x)", 'functions.file_op(action="read", path="a")']) {
      expect(parse(prose, vocabulary), prose).toEqual({ commands: [], mentions: [], errors: [] });
    }
  });

  it("JSON as models write it loosely is read: line breaks and tabs inside strings, Python's quotes and words, a comma before a closing brace, a ```json fence inside <tool_call>", () => {
    const text = [
      '{"name": "write_to_file", "arguments": {"path": "a.py", "content": "x = 1\n\ty = 2"}}',
      "<tool_call>{'name': 'list_files', 'arguments': {'path': 'src', 'recursive': True, 'note': None}}</tool_call>",
      '{"name": "read_file", "arguments": {"path": "a.ts",},}',
      "<tool_call>{'name': 'write_to_file', 'arguments': {'path': 'q.txt', 'content': 'it\\'s \"quoted\"'}}</tool_call>",
      '<tool_call>\n```json\n{"name": "execute_command", "arguments": {"command": "npm test"}}\n```\n</tool_call>',
      "",
    ].join("\n");
    const whole = parse(text, vocabulary);
    expect(whole.commands.map((command) => print(command))).toEqual([
      '[FILE_OP:action=write:path="a.py":content="x = 1\\n\\ty = 2"]',
      '[FILE_OP:action=list:path="src":recursive=true]',
      '[FILE_OP:action=read:path="a.ts"]',
      '[FILE_OP:action=write:path="q.txt":content="it\'s \\"quoted\\""]',
      '[EXEC:action=run:command="npm test"]',
    ]);
    expect([...whole.errors, ...whole.mentions]).toEqual([]);
    for (let cut = 1; cut < text.length; cut += 7) expect(chunked([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    expect(chunked([...text])).toEqual(whole);
    // A closing brace too many, or one too few before </tool_call>, is read; two too few, or a call the reply cuts short, is not.
    const braces = parse(
      '<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}</tool_call>\n<tool_call>{"name": "read_file", "arguments": {"path": "b.ts"}}}</tool_call>',
      vocabulary,
    );
    expect(braces.commands.map((command) => print(command))).toEqual(['[FILE_OP:action=read:path="a.ts"]', '[FILE_OP:action=read:path="b.ts"]']);
    expect(parse('<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"\n</tool_call>', vocabulary)).toMatchObject({ commands: [], errors: [{ code: "unmapped_call" }] });
    expect(parse('<tool_call>{"name": "write_to_file", "arguments": {"path": "a.py", "content": "x"', vocabulary)).toMatchObject({
      commands: [],
      errors: [{ code: "unmapped_call", message: expect.stringContaining("not valid JSON") }],
    });
    // Still no call: an unclosed string, words that only begin like Python's, a JSON object that is no call.
    expect(parse("<tool_call>{'name': 'read_file', 'arguments': {'path: 'a'}}</tool_call>", vocabulary).errors).toMatchObject([{ code: "unmapped_call" }]);
    expect(parse('{"Trueish": Nonesuch}\n', vocabulary)).toEqual({ commands: [], mentions: [], errors: [] });
    expect(parse('{"name": "x", "value": "a\nb",}\n', vocabulary)).toEqual({ commands: [], mentions: [], errors: [] });
  });

  it("a call written as a Python dict on a line of its own, after [TOOL_CALLS] or as a ReAct input is read as its JSON is; Python dicts that are no call stay text", () => {
    const text = [
      "Let me look.",
      "{'name': 'read_file', 'arguments': {'path': 'a.ts'}}",
      "  {'name': 'list_files', 'arguments': {'path': 'src', 'recursive': True, 'note': None}}",
      "{'name': 'write_to_file', 'arguments': {'path': 'q.txt', 'content': 'a {brace} and \"quotes\" and it\\'s'}}",
      "[TOOL_CALLS]{'name': 'read_file', 'arguments': {'path': 'b.ts'}}",
      "Action: read_file",
      "Action Input: {'path': 'c.ts'}",
      "",
    ].join("\n");
    const whole = expectEveryChunking(text);
    expect(whole.commands.map((command) => print(command))).toEqual([
      '[FILE_OP:action=read:path="a.ts"]',
      '[FILE_OP:action=list:path="src":recursive=true]',
      '[FILE_OP:action=write:path="q.txt":content="a {brace} and \\"quotes\\" and it\'s"]',
      '[FILE_OP:action=read:path="b.ts"]',
      '[FILE_OP:action=read:path="c.ts"]',
    ]);
    expect([...whole.errors, ...whole.mentions]).toEqual([]);
    // Still text: a dict that is no call, prose in braces, a dict followed by prose on its line; in a fence, a mention.
    for (const prose of ["{'a': 1, 'b': 'x'}\n", "{'a' is a letter}\n", "{'name': 'read_file', 'arguments': {'path': 'a.ts'}} is how it looks\n"]) {
      expect(parse(prose, vocabulary), prose).toEqual({ commands: [], mentions: [], errors: [] });
    }
    const fenced = parse("```python\n{'name': 'read_file', 'arguments': {'path': 'a.ts'}}\n```\n", vocabulary);
    expect(fenced.commands).toEqual([]);
    expect(fenced.mentions.map((mention) => mention.hint)).toEqual(['[FILE_OP:action=read:path="a.ts"]']);
  });

  it("several function calls on one line, after one at its start, each run: blanks and one comma or semicolon between them; after prose between them, or in a line that no call begins, each is an error whose hint is the command", () => {
    const text = [
      'read_file(path="a"), read_file(path="b")',
      '  list_files(path="src");execute_command(command="ls") functions.read_file(path="c")',
      'read_file(path="d") and then read_file(path="e")',
      'Use read_file(path="f"), read_file(path="g")',
      'read_file(path="h"),, read_file(path="i")',
      "",
    ].join("\n");
    const whole = expectEveryChunking(text);
    expect(whole.commands.map((command) => [print(command), command.span.start.line, command.span.start.column])).toEqual([
      ['[FILE_OP:action=read:path="a"]', 1, 1],
      ['[FILE_OP:action=read:path="b"]', 1, 22],
      ['[FILE_OP:action=list:path="src"]', 2, 3],
      ['[EXEC:action=run:command="ls"]', 2, 26],
      ['[FILE_OP:action=read:path="c"]', 2, 56],
      ['[FILE_OP:action=read:path="d"]', 3, 1],
      ['[FILE_OP:action=read:path="h"]', 5, 1],
    ]);
    expect(whole.mentions).toEqual([]);
    expect(whole.errors.map((error) => [error.hint, error.span.start.line, error.span.start.column])).toEqual([
      ['[FILE_OP:action=read:path="e"]', 3, 30],
      ['[FILE_OP:action=read:path="f"]', 4, 5],
      ['[FILE_OP:action=read:path="g"]', 4, 26],
      ['[FILE_OP:action=read:path="i"]', 5, 23],
    ]);
    // In a fence each is a mention; after a call, a Markdown link or braces are text.
    const fenced = parse('```\nread_file(path="a"), read_file(path="b")\n```\n', vocabulary);
    expect(fenced.commands).toEqual([]);
    expect(fenced.mentions.map((mention) => mention.hint)).toEqual(['[FILE_OP:action=read:path="a"]', '[FILE_OP:action=read:path="b"]']);
    for (const prose of ['read_file(path="a") [the docs](https://x.io/read_file(path="b"))\n', 'read_file(path="a"), {"name": "read_file", "arguments": {"path": "b"}}\n']) {
      expect(
        parse(prose, vocabulary).commands.map((command) => print(command)),
        prose,
      ).toEqual(['[FILE_OP:action=read:path="a"]']);
    }
  });

  it("a Python list in brackets whose calls name tools in the functions. namespace runs, alone or among others, at a line's start or in the middle of one; look-alikes stay text", () => {
    const text = [
      '[functions.read_file(path="a.ts")]',
      'Then [functions.list_files(path="src"), functions.FILE_OP.read(path="b.ts")] and',
      '  [functions.get_weather(city="P"), read_file(path="c.ts")]',
      "",
    ].join("\n");
    const whole = expectEveryChunking(text);
    expect(whole.commands.map((command) => print(command))).toEqual([
      '[FILE_OP:action=read:path="a.ts"]',
      '[FILE_OP:action=list:path="src"]',
      '[FILE_OP:action=read:path="b.ts"]',
      '[FILE_OP:action=read:path="c.ts"]',
    ]);
    expect(whole.errors.map((error) => error.message)).toEqual([expect.stringContaining('"functions.get_weather"')]);
    expect(whole.mentions).toEqual([]);
    for (const prose of [
      "See [functions.md](docs/functions.md).\n",
      '[functions.get_weather(city="P")]\n',
      "[functions.read_file]\n",
      "[functions]\n",
      "[functions. read_file(x)]\n",
    ]) {
      expect(parse(prose, vocabulary), prose).toEqual({ commands: [], mentions: [], errors: [] });
    }
    const code = parse('`[functions.read_file(path="a.ts")]`\n', vocabulary);
    expect(code.commands).toEqual([]);
    expect(code.mentions.map((mention) => mention.hint)).toEqual(['[FILE_OP:action=read:path="a.ts"]']);
  });

  it("a Functionary or ReAct step whose input is key=value pairs of the action's parameters takes them as its arguments; other plain input is the first parameter's value", () => {
    const hints = (text: string) => parse(text, vocabulary).mentions.map((mention) => mention.hint);
    expect(hints(">>>FILE_OP\naction=read path=a.ts\n")).toEqual(['[FILE_OP:action=read:path="a.ts"]']);
    expect(hints('>>>read_file\npath="a b.ts", limit=40\n')).toEqual(['[FILE_OP:action=read:path="a b.ts":limit=40]']);
    expect(hints(">>>read_file\na.ts\n")).toEqual(['[FILE_OP:action=read:path="a.ts"]']);
    const ran = (text: string) => parse(text, vocabulary).commands.map((command) => print(command));
    expect(ran("Action: read_file\nAction Input: path=a.ts\n")).toEqual(['[FILE_OP:action=read:path="a.ts"]']);
    expect(ran("Action: FILE_OP\nAction Input: action=list path=src recursive=true\n")).toEqual(['[FILE_OP:action=list:path="src":recursive=true]']);
    // Keys that are not the action's parameters, or words that are no pairs: the input is one value.
    expect(ran("Action: execute_command\nAction Input: NODE_ENV=test npm test\n")).toEqual(['[EXEC:action=run:command="NODE_ENV=test npm test"]']);
    expect(ran("Action: execute_command\nAction Input: FOO=1\n")).toEqual(['[EXEC:action=run:command="FOO=1"]']);
  });

  it("Functionary's >>>NAME in the middle of a line is live text: it runs, its JSON arguments on the next line or the same one, in any chunking", () => {
    const text = 'Sure. >>>read_file\n{"path": "a.ts"}\nAnd >>>list_files {"path": "src"} too.\n';
    const whole = parse(text, vocabulary);
    expect(whole.commands.map((command) => [command.protocol, command.dialect, command.span.start.line, command.span.start.column])).toEqual([
      ["FILE_OP", "functionary", 1, 7],
      ["FILE_OP", "functionary", 3, 5],
    ]);
    expect(whole.commands.map((command) => print(command))).toEqual(['[FILE_OP:action=read:path="a.ts"]', '[FILE_OP:action=list:path="src"]']);
    expect([...whole.errors, ...whole.mentions]).toEqual([]);
    for (let cut = 1; cut < text.length; cut++) expect(chunked([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    expect(chunked([...text])).toEqual(whole);
  });

  it("a mid-line >>>NAME in code or a quote is a mention whose hint is the command; one naming nothing, without JSON, or with more than three > is text", () => {
    const hint = '[FILE_OP:action=read:path="a"]';
    expect(parse('Use `x >>>read_file {"path": "a"}` there.', vocabulary).mentions).toMatchObject([{ context: "inline-code", hint }]);
    expect(parse('```\nx >>>read_file\n{"path": "a"}\n```\n', vocabulary).mentions).toMatchObject([{ context: "fence", hint }]);
    expect(parse('> q >>>read_file\n{"path": "a"}', vocabulary).mentions).toMatchObject([{ context: "quote", hint }]);
    for (const text of ['a >>>>read_file\n{"path": "a"}', "x >>>all\nI will", 'x >>>foo\n{"a": 1}', "a >>> b", "x >>>read_file\nplain words", "if a >>> 2: pass"]) {
      expect(parse(text, vocabulary), text).toEqual({ commands: [], mentions: [], errors: [] });
    }
    // A function call after it is one in the middle of a line: an error whose hint is the command (inline-call.ts).
    expect(parse('x >>>read_file(path="a")', vocabulary).errors.map((error) => error.hint)).toEqual([hint]);
    const after = parse('x >>>read_file\nnot json <tool_call>{"name": "read_file", "arguments": {"path": "b"}}</tool_call>', vocabulary);
    expect(after.commands.map((command) => command.dialect)).toEqual(["hermes"]);
    expect(parse(">>>".repeat(100_000), vocabulary)).toEqual({ commands: [], mentions: [], errors: [] });
  });

  it("a tool's definition (its parameters a JSON Schema) is no call: text on a line of its own, an error saying so in a <tools> or <tool_call> block", () => {
    const definition =
      '{"type": "function", "function": {"name": "read_file", "description": "Read a file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}';
    expect(parse(`The tool:\n${definition}\n`, vocabulary)).toEqual({ commands: [], mentions: [], errors: [] });
    for (const tag of ["tools", "tool_call"]) {
      const result = parse(`<${tag}>\n${definition}\n</${tag}>`, vocabulary);
      expect(result.commands).toEqual([]);
      expect(result.errors).toMatchObject([{ code: "unmapped_call", message: expect.stringContaining("a tool's definition") }]);
    }
  });

  it("calls between model tokens naming an unknown tool are errors; the tokens in prose are text", () => {
    for (const unknown of [
      '<｜tool▁call▁begin｜>browser_open<｜tool▁sep｜>{"url": "x"}<｜tool▁call▁end｜>',
      '[TOOL_CALLS]browser_open[ARGS]{"url": "x"}',
      '<|action_start|><|plugin|>\n{"name": "browser_open", "parameters": {"url": "x"}}<|action_end|>',
      '{"tool_calls": [{"name": "browser_open", "arguments": {"url": "x"}}]}',
      '✿FUNCTION✿: browser_open\n✿ARGS✿: {"url": "x"}',
      '<|channel|>commentary to=functions.browser_open <|constrain|>json<|message|>{"url": "x"}<|call|>',
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.browser_open:0<|tool_call_argument_begin|>{"url": "x"}<|tool_call_end|><|tool_calls_section_end|>',
    ]) {
      const result = parse(unknown, vocabulary);
      expect(result.commands, unknown).toEqual([]);
      expect(result.errors, unknown).toMatchObject([{ code: "unmapped_call", message: expect.stringContaining("browser_open") }]);
    }
    for (const plain of [
      "The <｜tool▁call▁begin｜> token opens a call, [TOOL_CALLS] marks them, <|action_start|> too.",
      "<function_call> and <tools> wrap JSON calls.",
      "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>The answer is 42.<|return|>",
      'functools is a module; functools[0] too\nfunctools[{"name": "alice"}]',
      "✿ flowers ✿\n✿FUNCTION✿ is Qwen-Agent's label.\n✿FUNCTION✿: read_file\nand no arguments line",
      '{"tool_calls": []}',
    ]) {
      expect(parse(plain, vocabulary), plain).toEqual({ commands: [], mentions: [], errors: [] });
    }
    // Not FireFunction's marker (a blank before its `[`): a JSON call in the middle of a line, told but not run.
    const spaced = parse('functools [{"name": "read_file", "arguments": {"path": "a.ts"}}]', vocabulary);
    expect(spaced.commands).toEqual([]);
    expect(spaced.errors.map((error) => error.hint)).toEqual(['[FILE_OP:action=read:path="a.ts"]']);
  });

  it("a ReAct step needs `Action:` at a line's start, a registered name, and an `Action Input:` line; otherwise it is text", () => {
    for (const plain of [
      "Action: we fix the bug now\nAction Input: nothing",
      "Action: web_search\nAction Input: cats",
      "Action: read_file\nThen I read it.",
      'Actually, Action: read_file\nAction Input: {"path": "a.ts"}',
      'Next Action: read_file\nAction Input: {"path": "a.ts"}',
      "Action items: read_file and more",
    ]) {
      expect(parse(plain, vocabulary), plain).toEqual({ commands: [], mentions: [], errors: [] });
    }
    expect(parse('Action: read_file\nAction Input: ["a.ts"]', vocabulary).errors).toMatchObject([
      { code: "unmapped_call", message: expect.stringContaining("Action Input is not a JSON object") },
    ]);
    // The line after a step with no `Action Input:` is read as any other line.
    expect(calls('Action: read_file\n{"name": "read_file", "arguments": {"path": "a.ts"}}')).toEqual([["FILE_OP", "json", READ]]);
  });

  it("maps other agents' parameter names and drops the ones declared meaningless", () => {
    expect(calls("<execute_command>\n<command>npm test</command>\n<requires_approval>true</requires_approval>\n</execute_command>")).toEqual([
      ["EXEC", "xml", { action: "run", command: "npm test" }],
    ]);
  });

  it("is inert where the scanner's region log says so: a mention with the equivalent command as its hint", () => {
    const fenced = parse('```json\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n```', vocabulary);
    expect(fenced.commands).toEqual([]);
    expect(fenced.mentions).toMatchObject([{ context: "fence", hint: '[FILE_OP:action=read:path="a.ts"]' }]);
    const inline = parse('Use `<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>` like so.', vocabulary);
    expect(inline.mentions).toMatchObject([{ context: "inline-code" }]);
    expect(parse("> <read_file><path>a.ts</path></read_file>", vocabulary).mentions).toMatchObject([{ context: "quote" }]);
    expect(parse('<think>maybe <tool_call>{"name": "read_file", "arguments": {"path": "x"}}</tool_call></think>\nNo.', vocabulary).commands).toEqual([]);
  });

  it("inside a command's quoted value or heredoc a call is data: neither a command nor a mention", () => {
    const result = parse(
      '[FILE_OP:action=write:path="x":content<<EOF\n<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>\nFILE_OP(action="read", path="b")\nEOF\n]',
      vocabulary,
    );
    expect(result.commands.map((command) => command.dialect ?? "clio")).toEqual(["clio"]);
    expect(result.mentions).toEqual([]);
  });

  it("a clio command inside a live call's text is that call's data", () => {
    const result = parse('<tool_call>{"name": "write_to_file", "arguments": {"path": "n.md", "content": "see [EXEC:action=run:command=bHM=]"}}</tool_call>', vocabulary);
    expect(result.commands).toHaveLength(1);
    expect(result.commands[0]!.dialect).toBe("hermes");
    expect(result.errors).toEqual([]);
  });

  it("leaves prose alone: links, task lists, notes, JSON data, code calls, HTML, names in passing", () => {
    for (const text of [
      "See [the docs](http://x), [x], [NOTE] and [WARNING: be careful].",
      "- [ ] ship\n- [x] test",
      'The config:\n{"name": "app", "port": 8080}\nis enough.',
      "print(read_file)\nresult = compute(3)",
      '<div class="x">hello</div>',
      "FILE_OP and EXEC are protocols; [FILE_OP] handles files, and [EXEC history] is long.",
      "I used read_file in the old code.",
    ]) {
      expect(parse(text, vocabulary), text).toEqual({ commands: [], mentions: [], errors: [] });
    }
  });

  it("answers what cannot be mapped with an error whose hint is the clio command", () => {
    const unknown = parse('<tool_call>{"name": "browser_open", "arguments": {"url": "x"}}</tool_call>', vocabulary).errors;
    expect(unknown).toMatchObject([{ code: "unmapped_call" }]);
    expect(unknown[0]!.message).toContain("EXEC, FILE_OP, MEMORY");
    const noAction = parse('<tool_call>{"name": "FILE_OP", "arguments": {"path": "a.ts"}}</tool_call>', vocabulary).errors;
    expect(noAction).toMatchObject([{ code: "unmapped_call", hint: '[FILE_OP:action=read:path="a.ts"]' }]);
    const wrongType = parse('<tool_call>{"name": "read_file", "arguments": {"path": ["a", "b"]}}</tool_call>', vocabulary).errors;
    expect(wrongType[0]!.message).toContain("path must be text, not a JSON array");
    const notObject = parse('<tool_call>{"name": "read_file", "arguments": 7}</tool_call>', vocabulary).errors;
    expect(notObject[0]!.message).toContain("must be a JSON object");
    // One unnamed argument: not run, the hint takes it for the action's first parameter; two: no guess.
    const positional = parse('read_file("a.ts")', vocabulary);
    expect(positional.commands).toEqual([]);
    expect(positional.errors).toMatchObject([{ code: "unmapped_call", hint: '[FILE_OP:action=read:path="a.ts"]' }]);
    expect(positional.errors[0]!.message).toContain("no name");
    expect(chunked([...'read_file("a.ts")'])).toEqual(positional);
    expect(parse("execute_command('npm test')", vocabulary).errors).toMatchObject([{ hint: '[EXEC:action=run:command="npm test"]' }]);
    const two = parse('read_file("a.ts", 5)', vocabulary).errors;
    expect(two[0]!.message).toContain("must be named");
    expect(two[0]!.hint).toBeUndefined();
    expect(parse('print("hello")', vocabulary)).toEqual({ commands: [], mentions: [], errors: [] });
  });

  it("takes a JSON object value for a json parameter and numbers and booleans as words", () => {
    expect(calls('<tool_call>{"name": "MEMORY", "arguments": {"action": "store", "key": "k", "value": "v", "metadata": {"a": 1}}}</tool_call>')[0]![2]).toEqual({
      action: "store",
      key: "k",
      value: "v",
      metadata: '{"a":1}',
    });
    expect(calls('<tool_call>{"name": "list_files", "arguments": {"path": ".", "recursive": true}}</tool_call>')[0]![2]).toEqual({ action: "list", path: ".", recursive: "true" });
  });
});

describe("the vocabulary's remembered answers", () => {
  it("are the same after the memory of names is emptied, and no parse changes them", () => {
    const long = `FILE_OP.${"x".repeat(100)}`;
    const names = ["FILE_OP", "file_op", "read_file", "READ_FILE", "FILE_OP.read", "FILE_OP_write", "FILE_OP.nothing", "commit", "store", "nothing", long];
    const fresh = () => names.map((name) => [vocabulary.resolve(name), vocabulary.resolve(name, true)]);
    const first = structuredClone(fresh());
    const parsedFirst = Object.values(FORMS).map((text) => parse(text, vocabulary));
    // More distinct names than are remembered: the memory is emptied on the way.
    for (let i = 0; i < 2_500; i++) vocabulary.resolve(`unknown_${i}`, i % 2 === 0);
    expect(fresh()).toEqual(first);
    expect(vocabulary.resolve(long)).toMatchObject({ type: "protocol", action: "x".repeat(100) });
    expect(Object.values(FORMS).map((text) => parse(text, vocabulary))).toEqual(parsedFirst);
    expect(fresh()).toEqual(first);
  });
});

describe("bad input", () => {
  it("a 10 MB JSON object on its own line is read once and is plain text", () => {
    const big = `{"name": "data", "payload": "${"x".repeat(10_000_000)}"}`;
    expect(parse(`Here:\n${big}\n[FILE_OP:action=read:path="a"]`, vocabulary).commands).toHaveLength(1);
  });

  it("deeply nested JSON is given up past a depth, and the rest is scanned", () => {
    const deep = `{"a": ${"[".repeat(200_000)}`;
    expect(parse(`${deep}\n\n[FILE_OP:action=read:path="a"]`, vocabulary).commands).toHaveLength(1);
    const deepCall = `<tool_call>{"name": "read_file", "arguments": {"path": ${"[".repeat(100_000)}${"]".repeat(100_000)}}}</tool_call>`;
    expect(parse(deepCall, vocabulary).errors).toMatchObject([{ code: "unmapped_call" }]);
  });

  it("an XML tag that never closes is plain text, and what follows it still runs", () => {
    const result = parse('<read_file>\n<path>a.ts</path>\nand then I stopped.\n[FILE_OP:action=read:path="b"]', vocabulary);
    expect(result.commands.map((command) => command.dialect ?? "clio")).toEqual(["clio"]);
    expect(result.errors).toEqual([]);
  });

  it("100,000 <tool_call> openers are one plain stretch of text", () => {
    expect(parse(`${"<tool_call>".repeat(100_000)}{"name": "x"}`, vocabulary)).toEqual({ commands: [], mentions: [], errors: [] });
  });

  it("100,000 <invoke openers, and an <invoke tag whose attributes never end, are text", () => {
    expect(parse('<invoke name="read_file">'.repeat(100_000), vocabulary).commands).toEqual([]);
    // A blank line ends the HTML block the tag opens to CommonMark; the command after it runs.
    expect(parse(`<invoke ${"x".repeat(1_000_000)}>\n\n[FILE_OP:action=read:path="a"]`, vocabulary).commands).toHaveLength(1);
    expect(parse(`<tool_call>read_file${"<arg_key>k</arg_key>".repeat(50_000)}</tool_call>`, vocabulary).errors).toMatchObject([{ code: "unmapped_call" }]);
  });

  it("100,000 near-miss and function-call starts are text", () => {
    expect(parse("[FILE_OP ".repeat(100_000), vocabulary).commands).toEqual([]);
    expect(parse("FILE_OP(\n".repeat(100_000), vocabulary).commands).toEqual([]);
    expect(parse("<FILE_OP>".repeat(20_000), vocabulary).commands).toEqual([]);
  });
});

const PIECES = [
  ...Object.values(FORMS),
  '[FILE_OP:action=read:path="b"]',
  "```json\n",
  "```\n",
  "`",
  "> ",
  "\n",
  "\n\n",
  " prose ",
  "<think>",
  "</think>",
  '{"name": 1}',
  "<tool_call>",
  "</tool_call>",
  "<invoke ",
  'name="read_file">',
  '<parameter name="path">',
  "</parameter>",
  "</invoke>",
  "<arg_key>path</arg_key>",
  "[{",
  "<|python_tag|>",
  "Action: ",
  "read_file\n",
  "Action Input: ",
  "Actually",
  "[TOOL_CALLS]",
  "[TOOL",
  "_CALLS]",
  "<|tool_call|>",
  "<|/tool_call|>",
  "<|eom_id|>",
  "[\n",
  "  [",
  '"name": "execute_command", "arguments": {"command": "ls"}}',
  ", {",
  "}]",
  "<arg_value>a</arg_value>",
  "[",
  "]",
  '"',
  "(",
  ")",
  "<",
  ">",
  "FILE_OP",
  "：",
  "［",
  // Pieces of the calls between model tokens.
  "<｜tool▁calls▁begin｜>",
  "<｜tool▁call▁begin｜>",
  "function<｜tool▁sep｜>read_file\n",
  "<｜tool▁sep｜>",
  "<｜tool▁call▁end｜>",
  "<｜",
  "｜>",
  "<|tool_calls_section_begin|>",
  "<|tool_call_begin|>functions.read_file:0",
  "<|tool_call_argument_begin|>",
  "<|action_start|>",
  "<|plugin|>",
  "<|action_end|>",
  "<|START_ACTION|>",
  "<|start|>assistant",
  "<|channel|>",
  "commentary to=functions.read_file ",
  "<|message|>",
  "<|call|>",
  "<|channel|>analysis<|message|>",
  "analysis",
  "<|end|>",
  "[TOOL_CALLS]read_file",
  "[ARGS]",
  "✿FUNCTION✿: ",
  "✿ARGS✿: ",
  "✿",
  ">>>read_file\n",
  ">",
  "functools",
  "functools[",
  "<function_call>",
  "<TOOLCALL>",
  '{"tool_calls": [',
  'read_file(path="a"), ',
  "; ",
  "functions.",
  "[functions",
  "[functions.read_file(",
  // Gemini's: the default_api. namespace, print( around a call, a call in the middle of a sentence.
  "default_api.",
  "print(",
  "Let me call ",
  ")",
  // A call as a Python dict: its first key in single quotes, strings that hold braces and the other quote.
  "{'",
  "name': 'read_file', 'arguments': {'path': 'a'}}",
  "'x}\"'",
  // Python lists over lines: a `[` alone on its line, one call a line, a comma before the `]`.
  '  read_file(path="a"),\n',
  "  foo(x),\n",
  "),\n",
  ",\n]",
  "\n]\n",
  // Pieces of calls, so names, indentation and arguments fall across chunk boundaries.
  "  ",
  "\t",
  "FILE",
  "_OP",
  ".read",
  "read_file",
  "x",
  "{",
  '"name": "read_file", "arguments": {"path": "a"}}',
  'path="a")',
  " action=read path=a]",
  // Heredocs and the other fence, so a command read in a fence runs on past calls found after its start.
  ":content<<EOF\n",
  "EOF\n",
  "EOF]",
  "~~~\n",
  '"x]"',
];

describe("laws", () => {
  it("any chunking of a text mixing every dialect gives exactly the one-shot result", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 25 }), fc.array(fc.nat(), { maxLength: 20 }), (pieces, cuts) => {
        const text = pieces.join("");
        const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((left, right) => left - right);
        const chunks: string[] = [];
        let last = 0;
        for (const point of points) {
          chunks.push(text.slice(last, point));
          last = point;
        }
        chunks.push(text.slice(last));
        const whole = parse(text, vocabulary);
        expect(chunked(chunks)).toEqual(whole);
        expect(chunked([...text])).toEqual(whole);
      }),
      { numRuns: 400 },
    );
  });

  it("a command read in a fence that runs on past a call found after its start comes first, in any chunking", () => {
    const pieces = [
      "```\n",
      "~~~\n",
      "[FILE_OP:action=read:path=",
      '"x]"',
      "[FILE_OP action=read path=a]",
      '[FILE_OP:{"action": "read"}]',
      ":content<<EOF\n",
      "EOF\n",
      "EOF]",
      "\n",
      "a ",
      "<read_file><path>a</path></read_file>",
      'FILE_OP.read(path="a")',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 16 }), fc.integer({ min: 1, max: 17 }), (parts, size) => {
        expectSizedChunksAgree(parts.join(""), size);
      }),
      { numRuns: 3000 },
    );
  });

  it("a scanner finding inside a live call, read out after the call, is the call's data in any chunking", () => {
    // Found by the replay's chunk-invariance property: the fence's unfinished command is the
    // scanner's mention, read out only when the fence closes, after the call it sits in was let go.
    const pieces = ["<tool_call>", "</tool_call>", "\n", "~~~\n", "```\n", '[I:_=""', "[FILE_OP:action=read:path=a]", ":content<<EOF\n", "EOF\n", "a "];
    const text = '<tool_call>\n~~~\n[I:_=""</tool_call>\n~~~\n';
    const whole = parse(text, vocabulary);
    expect(whole.mentions).toEqual([]);
    expect(chunked([...text])).toEqual(whole);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 14 }), fc.integer({ min: 1, max: 9 }), (parts, size) => {
        const joined = parts.join("");
        const chunks: string[] = [];
        for (let at = 0; at < joined.length; at += size) chunks.push(joined.slice(at, at + size));
        expect(chunked(chunks)).toEqual(parse(joined, vocabulary));
      }),
      { numRuns: 3000 },
    );
  });

  it("a Python list left open gives its line calls and its errors in source order (found by the law below at 100 times its runs)", () => {
    const text = '```\n[\nlist_files(\n  path="s",\n),   read_file(path="a"),\n';
    const whole = expectSizedChunksAgree(text, 1);
    expect(whole.mentions.map((mention) => mention.span.start.offset)).toEqual([6, 35]);
  });

  it("a Python list of calls over lines, whole, broken off, in a fence or indented, gives the one-shot result in any chunking", () => {
    // A dropped list leaves each call that began its line to run as such a call, and the line it stopped in to be read from its start.
    const pieces = [
      "[",
      "[\n",
      "  [\n",
      "Sure: [\n",
      '{"name": "list_files", "arguments": {"path": "c"}},\n',
      "\n",
      "\r\n",
      "  ",
      '  read_file(path="a"),\n',
      'read_file(path="a")',
      'list_files(\n  path="s",\n)',
      "foo(x)",
      'get_weather(city="P")',
      ", ",
      ",\n",
      "]",
      "]\n",
      "Action: read_file\nAction Input: a\n",
      '{"name": "read_file", "arguments": {"path": "b"}}\n',
      "<tool_call>",
      "prose ",
      "```\n",
      ">>>read_file\n",
      "Action",
      ": ",
      '"',
      "(",
      ")",
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 14 }), fc.integer({ min: 1, max: 19 }), (parts, size) => {
        const text = parts.join("");
        expect(chunked([...text])).toEqual(expectSizedChunksAgree(text, size));
      }),
      { numRuns: 2000 },
    );
  });

  it("never throws, and reports commands, mentions and errors each in source order", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...PIECES, "a", "=", ":", ",", "|", "{", "}", "'", "\\"), maxLength: 60 }), (text) => {
        const result = parse(text, vocabulary);
        for (const spans of [result.commands, result.mentions, result.errors].map((list) => list.map(({ span }) => span.start.offset))) {
          expect([...spans].sort((left, right) => left - right)).toEqual(spans);
        }
      }),
      { numRuns: 500 },
    );
  });
});
