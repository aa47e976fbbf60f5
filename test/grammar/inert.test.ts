import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";
import { parseChunks, shape } from "./support.js";

describe("fenced code blocks", () => {
  it("make commands inert and report them as mentions with their position", () => {
    const result = parse("Like this:\n```\n[A:k=1]\n```\n[B:j=2]");
    expect(result.commands.map((command) => command.protocol)).toEqual(["B"]);
    expect(result.mentions).toEqual([{ text: "[A:k=1]", context: "fence", span: { start: { offset: 15, line: 3, column: 1 }, end: { offset: 22, line: 3, column: 8 } } }]);
    expect(result.errors).toEqual([]);
  });

  it("open with 3+ backticks or tildes indented up to 3 spaces, with an info string", () => {
    for (const opener of ["```", "~~~", "   ```ts", "````", "~~~ js {1}", "~~~ a`b"]) {
      const closer = opener.trim().startsWith("~") ? "~~~~~~" : "``````";
      const result = parse(`${opener}\n[A:k=1]\n${closer}\n[B:j=2]`);
      expect(
        result.mentions.map((mention) => mention.text),
        opener,
      ).toEqual(["[A:k=1]"]);
      expect(
        result.commands.map((command) => command.protocol),
        opener,
      ).toEqual(["B"]);
    }
  });

  it("do not open with 4 spaces of indent, or a backtick in a backtick fence's info string", () => {
    expect(parse("    ```\n[A:k=1]").commands).toHaveLength(1);
    expect(parse("```a`\n[A:k=1]").commands).toHaveLength(1);
  });

  it("close only at a line of the same character, at least as long, with only spaces after", () => {
    const text = "````\n```\n~~~~\n```` x\n[A:k=1]\n  ````  \n[B:j=2]";
    const result = parse(text);
    expect(result.mentions.map((mention) => mention.text)).toEqual(["[A:k=1]"]);
    expect(result.commands.map((command) => command.protocol)).toEqual(["B"]);
  });

  it("run to the end of the text when never closed", () => {
    const result = parse("```\n[A:k=1]\nmore\n[B:j=2]");
    expect(result.commands).toEqual([]);
    expect(result.mentions.map((mention) => mention.text)).toEqual(["[A:k=1]", "[B:j=2]"]);
  });

  it("report a command that breaks or is cut by the fence's end through the end of its first line", () => {
    const result = parse("```\n[A:k=1 !] tail\n[B:k<<EOF\nbody\n```\n");
    expect(result.mentions.map((mention) => mention.text)).toEqual(["[A:k=1 !] tail", "[B:k<<EOF"]);
    expect(result.errors).toEqual([]);
  });

  it("report a multi-line command that completes inside the fence whole", () => {
    const result = parse("```\n[A:k<<EOF\nbody\nEOF\n]\n```");
    expect(result.mentions.map((mention) => mention.text)).toEqual(["[A:k<<EOF\nbody\nEOF\n]"]);
    expect(result.mentions[0]!.span.end).toEqual({ offset: 24, line: 5, column: 2 });
  });

  it("are not opened by a fence line inside a quoted or heredoc value", () => {
    const result = parse("[A:k<<EOF\n```\nEOF\n]\n[B:j=1]");
    expect(result.commands.map((command) => command.protocol)).toEqual(["A", "B"]);
  });

  it("report command-shaped text in the opening line's info string as a fence mention", () => {
    const backticks = parse("```sh [A:k=1]\nx\n```\n[B:j=2]");
    expect(backticks.mentions).toEqual([{ text: "[A:k=1]", context: "fence", span: { start: { offset: 6, line: 1, column: 7 }, end: { offset: 13, line: 1, column: 14 } } }]);
    expect(backticks.commands.map((command) => command.protocol)).toEqual(["B"]);
    expect(parse("~~~ [A:k=1]\r\n~~~\n").mentions.map((mention) => [mention.text, mention.context])).toEqual([["[A:k=1]", "fence"]]);
    expect(parse('~~~ [A:k="open\r\n~~~').mentions.map((mention) => mention.text)).toEqual(['[A:k="open']);
    expect(parse("```x [A:k=1]").mentions.map((mention) => mention.text)).toEqual(["[A:k=1]"]);
    expect(parse("~~~x [A:k=1]").mentions.map((mention) => mention.text)).toEqual(["[A:k=1]"]);
    const afterError = parse("[B:k=1!\n``` [A:k=1]\n```\n[C:k=1]");
    expect(afterError.mentions.map((mention) => mention.text)).toEqual(["[A:k=1]"]);
    expect(afterError.commands.map((command) => command.protocol)).toEqual(["C"]);
    expect(parse("[B:k=1!\n``` [A:k=1]").mentions.map((mention) => mention.text)).toEqual(["[A:k=1]"]);
    expect(parse("~~ [A:k=1]").commands).toHaveLength(1);
    for (const chunks of [
      ["~~~ x [A:k=1]", " y"],
      ["~~~ x [A:k", "=1] y\n"],
      ["``` x [A:k=1]", " y"],
    ]) {
      expect(parseChunks(chunks), chunks.join("")).toEqual(parse(chunks.join("")));
    }
  });

  it("treat \\[ inside a fence as text too", () => {
    expect(parse("```\n\\[A:k=1]\n```").mentions).toEqual([]);
  });
});

describe("inline code spans", () => {
  it("make commands inert and report them as mentions", () => {
    const result = parse("Write `[A:k=1]` like that, then [B:j=2]");
    expect(result.commands.map((command) => command.protocol)).toEqual(["B"]);
    expect(result.mentions).toEqual([{ text: "[A:k=1]", context: "inline-code", span: { start: { offset: 7, line: 1, column: 8 }, end: { offset: 14, line: 1, column: 15 } } }]);
  });

  it("end at the next run of exactly as many backticks", () => {
    const result = parse("``a ` [A:k=1] ``` b`` [B:j=2]");
    expect(result.mentions.map((mention) => mention.text)).toEqual(["[A:k=1]"]);
    expect(result.commands.map((command) => command.protocol)).toEqual(["B"]);
  });

  it("run over the lines of one paragraph, and end with it: an unmatched run is literal text", () => {
    const spanning = parse("a `stray [A:k=1]\nb` [B:j=2]");
    expect(spanning.commands.map((command) => command.protocol)).toEqual(["B"]);
    expect(spanning.mentions.map((mention) => [mention.context, mention.text, mention.span.start.line])).toEqual([["inline-code", "[A:k=1]", 1]]);
    const ended = parse("a `stray [A:k=1]\n\nb` [B:j=2]");
    expect(ended.commands.map((command) => command.protocol)).toEqual(["A", "B"]);
    expect(ended.mentions).toEqual([]);
  });

  it("leave a command that runs past the line live when the opening run is unmatched", () => {
    const result = parse("`x [A:k=1\n:j=2]");
    expect(result.commands.map(shape)).toEqual([
      {
        protocol: "A",
        parameters: [
          ["k", "bare", "1"],
          ["j", "bare", "2"],
        ],
      },
    ]);
  });

  it("report the rest of the span when a command in it does not complete", () => {
    const result = parse('`[A:k=1 !x] [B:j=2]` then `[C:k="open` end');
    expect(result.mentions.map((mention) => mention.text)).toEqual(["[A:k=1 !x] [B:j=2]", '[C:k="open']);
  });

  it("may hold backticks inside a command's quoted value without closing there", () => {
    const result = parse('`` [A:k="`"] `` [B:j="``"]');
    expect(result.mentions.map((mention) => mention.text)).toEqual(['[A:k="`"]']);
    expect(result.commands.map(shape)).toEqual([{ protocol: "B", parameters: [["j", "quoted", "``"]] }]);
  });

  it("are not looked for inside a command's values", () => {
    expect(parse('[A:k="`":j="`"]').commands).toHaveLength(1);
  });
});
