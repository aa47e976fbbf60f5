/**
 * gpt-oss's harmony messages printed as text (a server without a harmony parser): the analysis
 * channel is reasoning, like a `<think>` block (contract §4; docs/protocol.md, "Quoted material
 * and reasoning"); the final channel is the reply; a call to a tool still runs (§4a).
 */
import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";
import { chunkedAndWhole, chunksOf, parseChunks, SMALL_VOCABULARY } from "./support.js";

const READ_A = '[FILE_OP:action=read:path="a.ts"]';
const READ_B = '[FILE_OP:action=read:path="b.ts"]';
/** A reply as llama.cpp or vLLM prints it when the special tokens are kept. */
const REPLY = `<|channel|>analysis<|message|>The user wants a.ts. I could write ${READ_A} but first think.<|end|><|start|>assistant<|channel|>final<|message|>Reading it. ${READ_B}<|return|>`;

function found(text: string): { commands: string[]; mentions: string[] } {
  const result = parse(text);
  return {
    commands: result.commands.map((command) => command.parameters.map((parameter) => parameter.text).join(" ")),
    mentions: result.mentions.map((mention) => `${mention.context} ${mention.text}`),
  };
}

describe("harmony's analysis channel is reasoning", () => {
  it("a command in the analysis message is a mention (reasoning); the final channel's command runs", () => {
    expect(found(REPLY)).toEqual({ commands: ["read b.ts"], mentions: [`reasoning ${READ_A}`] });
  });

  it("the header may follow <|start|>assistant, and may hold more than the channel's name", () => {
    expect(found(`<|start|>assistant<|channel|>analysis<|message|>${READ_A}<|end|>`).mentions).toEqual([`reasoning ${READ_A}`]);
    expect(found(`<|channel|>analysis <|constrain|>text<|message|>${READ_A}<|end|>`).mentions).toEqual([`reasoning ${READ_A}`]);
  });

  it("runs over lines, and an unclosed analysis message runs to the end of the reply", () => {
    const text = `<|channel|>analysis<|message|>Plan:\n\n- ${READ_A}\n\n\`\`\`\n${READ_B}\n`;
    expect(found(text)).toEqual({ commands: [], mentions: [`reasoning ${READ_A}`, `reasoning ${READ_B}`] });
  });

  it("ends at <|end|> mid-line: a command after it on the same line runs", () => {
    expect(found(`<|channel|>analysis<|message|>no ${READ_A}<|end|> yes ${READ_B}`)).toEqual({ commands: ["read b.ts"], mentions: [`reasoning ${READ_A}`] });
  });

  it("ends at <|return|> or <|call|>, and where the next message's <|start|> or <|channel|> begins when <|end|> is missing", () => {
    for (const closer of ["<|return|>", "<|call|>", "<|start|>assistant<|channel|>final<|message|>", "<|channel|>final<|message|>"]) {
      expect(found(`<|channel|>analysis<|message|>no ${READ_A}${closer}${READ_B}`)).toEqual({ commands: ["read b.ts"], mentions: [`reasoning ${READ_A}`] });
    }
  });

  it("reads CRLF line endings as other line breaks", () => {
    const text = `<|start|>assistant<|channel|>analysis<|message|>a\r\n${READ_A}\r\nb<|end|>\r\n<|start|>assistant<|channel|>final<|message|>${READ_B}\r\n`;
    expect(found(text)).toEqual({ commands: ["read b.ts"], mentions: [`reasoning ${READ_A}`] });
  });

  it("is code inside a fence or a code span, and text when escaped", () => {
    expect(found(`\`\`\`\n<|channel|>analysis<|message|>\n\`\`\`\n${READ_A}`).commands).toEqual(["read a.ts"]);
    expect(found(`\`<|channel|>analysis<|message|>\` ${READ_A}`).commands).toEqual(["read a.ts"]);
    expect(found(`\\<|channel|>analysis<|message|> ${READ_A}`).commands).toEqual(["read a.ts"]);
  });

  it("other channels, headers naming a recipient, and broken headers are text", () => {
    for (const header of [
      "<|channel|>final<|message|>",
      "<|channel|>commentary<|message|>",
      "<|channel|>analysis to=functions.read_file<|message|>",
      "<|start|>assistant to=functions.read_file<|channel|>analysis<|message|>",
      "<|channel|>analysis\n<|message|>",
      "<|channel|>analysis`<|message|>",
      "<|channel|>analysis<|start|><|message|>",
      "<|channel|>analysisx<|message|>",
      "<|start|>assistant<|message|>",
      "<|channel|>",
    ]) {
      expect({ header, commands: found(`${header} ${READ_A}`).commands }).toEqual({ header, commands: ["read a.ts"] });
    }
  });

  it("gives the same findings in any chunking", () => {
    const text = `${REPLY}\r\n<|channel|>analysis<|message|>x ${READ_A}\nmore<|end|> ${READ_B}\n<|channel|>analysis<|message|>${READ_A}`;
    const whole = parse(text);
    expect(parseChunks([...text])).toEqual(whole);
    for (const sizes of [[2], [3, 7], [5, 1, 11]]) expect(parseChunks(chunksOf(text, sizes))).toEqual(whole);
  });

  it("100,000 <|channel|> openers without <|message|>, a huge unclosed analysis message, 100,000 messages on one line, are read in linear time", () => {
    const openers = `${"<|channel|>analysis ".repeat(100_000)}${READ_A}`;
    let started = performance.now();
    expect(found(openers).commands).toEqual(["read a.ts"]);
    const huge = `<|channel|>analysis<|message|>${`x ${READ_A} <|channel <|end| `.repeat(100_000)}`;
    const result = parse(huge);
    expect(result.commands).toEqual([]);
    expect(result.mentions).toHaveLength(100_000);
    expect(performance.now() - started).toBeLessThan(5_000);
    started = performance.now();
    const touching = `${`<|channel|>analysis<|message|>x ${READ_A}<|end|> `.repeat(100_000)}${READ_B}`;
    expect(parse(touching).commands).toHaveLength(1);
    const lines = `<|channel|>analysis<|message|>${`x ${READ_A}\n`.repeat(100_000)}`;
    expect(parseChunks(chunksOf(lines, [7])).mentions).toHaveLength(100_000);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe("harmony with the dialect layer", () => {
  const CALL = '<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path": "a.ts"}<|call|>';

  it("a harmony tool call after the analysis message still runs, also when its header names the analysis channel", () => {
    for (const text of [
      `<|channel|>analysis<|message|>I need a.ts.<|end|>${CALL}`,
      `<|channel|>analysis<|message|>I need a.ts.${CALL}`,
      '<|channel|>analysis to=functions.read_file<|message|>{"path": "a.ts"}<|call|>',
    ]) {
      const result = parse(text, SMALL_VOCABULARY);
      expect({ text, calls: result.commands.map((command) => command.dialect) }).toEqual({ text, calls: ["harmony"] });
    }
  });

  it("a call-shaped text inside the analysis message does not run: a reasoning mention whose hint is the command", () => {
    const text =
      '<|channel|>analysis<|message|>Maybe <tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call><|end|><|start|>assistant<|channel|>final<|message|>Done.';
    const result = parse(text, SMALL_VOCABULARY);
    expect(result.commands).toEqual([]);
    expect(result.mentions).toMatchObject([{ context: "reasoning", hint: READ_A }]);
    const { chunked, whole } = chunkedAndWhole(SMALL_VOCABULARY, text, [...text]);
    expect(chunked).toEqual(whole);
  });
});
