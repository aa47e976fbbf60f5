import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";
import { parseChunks } from "./support.js";

function firstError(text: string) {
  const { errors } = parse(text);
  expect(errors).toHaveLength(1);
  return errors[0]!;
}

describe("syntax errors", () => {
  it("unexpected_character: at the first character that cannot continue, saying what was expected", () => {
    const error = firstError("ok\n[FILE_OP:action=read:path=src/main.ts!]");
    expect(error).toMatchObject({ code: "unexpected_character", protocol: "FILE_OP" });
    expect(error.span.start).toEqual({ offset: 40, line: 2, column: 38 });
    expect(error.message).toContain("expected `:` or `]` after the value of path");
    expect(error.message).toContain('found "!"');
    expect(error.message).toContain("started at 2:1");
  });

  it.each([
    ["[A:k=1:]", "a key after `:`", 7],
    ["[A:k=1:j]", "`=` or `<<` after the key j", 8],
    ["[A:k=1:j<x]", "`<<TAG` after j", 9],
    ["[A:k<<1\n]", "a heredoc tag right after `<<`", 6],
    ["[A:k<<EOF x\n]", "a line break after `k<<EOF`", 10],
    ["[A:k=!]", "a value after k=", 5],
    ["[A:k=YQ==x]", "`:` or `]` after the value of k", 9],
  ])("unexpected_character in %s says it expected %s", (text, expected, offset) => {
    const error = firstError(text);
    expect(error.code).toBe("unexpected_character");
    expect(error.message).toContain(expected);
    expect(error.span.start.offset).toBe(offset);
  });

  it("a heredoc tag with a character a tag cannot hold says what a tag may hold", () => {
    const error = firstError("[A:k<<END-OF-FILE\nx\nEND-OF-FILE\n]");
    expect(error.span.start.offset).toBe(9);
    expect(error.message).toContain("a tag holds only letters, digits and `_`");
  });

  it("names an invisible or space-like character by its code point, and an emoji as such", () => {
    expect(firstError("[A:k=1\u00a0]").message).toContain("found U+00A0 (an invisible or space-like character)");
    expect(firstError("[A:k=1\u200b]").message).toContain("found U+200B (an invisible or space-like character)");
    expect(firstError("[A:k=1😀]").message).toContain("found a character beyond U+FFFF (such as an emoji)");
    expect(firstError("[A:k=é]").message).toContain('found "é"');
  });

  it("missing_value: a key with = and nothing before : or ]", () => {
    const error = firstError("[A:k=  ]");
    expect(error).toMatchObject({ code: "missing_value", span: { start: { offset: 7, line: 1, column: 8 } } });
    expect(error.message).toContain('write k="..."');
    expect(firstError("[A:k=:j=1]").code).toBe("missing_value");
  });

  it("invalid_quoted: a raw line break or a bad escape inside a quoted value", () => {
    const lineBreak = firstError('[A:k="one\ntwo"]');
    expect(lineBreak).toMatchObject({ code: "invalid_quoted", span: { start: { offset: 9, line: 1, column: 10 }, end: { offset: 10, line: 2, column: 1 } } });
    expect(lineBreak.message).toContain("\\n");
    expect(firstError('[A:k="a\\qb"]')).toMatchObject({ code: "invalid_quoted", span: { start: { offset: 8 } } });
    expect(firstError('[A:k="\\u12G4"]').code).toBe("invalid_quoted");
    expect(firstError('[A:k="tab\there"]').code).toBe("invalid_quoted");
  });

  it("unterminated_quoted: the text ends inside a quoted value", () => {
    const error = firstError('x\n[A:k="never closed');
    expect(error).toMatchObject({ code: "unterminated_quoted", span: { start: { offset: 7, line: 2, column: 6 }, end: { offset: 20, line: 2, column: 19 } } });
    expect(error.message).toContain("opened at 2:6");
  });

  it("unterminated_heredoc: names the tag and how to close it; the rest of the text is its body", () => {
    const error = firstError("[A:k<<EOF\nbody\n[B:j=1]\nEOF]");
    expect(error).toMatchObject({ code: "unterminated_heredoc", span: { start: { offset: 3, line: 1, column: 4 }, end: { offset: 27, line: 4, column: 5 } } });
    expect(error.message).toContain("exactly EOF");
    expect(error.message).toContain("a line `EOF]` does not close it");
    expect(parse("[A:k<<EOF\nbody\n[B:j=1]\nEOF]").commands).toEqual([]);
  });

  it("unterminated_command: the text ends before the ], naming where the command started", () => {
    const error = firstError("one\ntwo [A:k=1:j=2");
    expect(error).toMatchObject({ code: "unterminated_command", span: { start: { offset: 8, line: 2, column: 5 }, end: { offset: 18, line: 2, column: 15 } } });
    expect(error.message).toContain("starts at 2:5");
    expect(error.message).toContain("`]`");
    expect(firstError("[A:k<<EOF\nx\nEOF").code).toBe("unterminated_command");
  });

  it("duplicate_key: the command is not returned; the error is at the second key", () => {
    const result = parse("[A:k=1:j=2:k=3]");
    expect(result.commands).toEqual([]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ code: "duplicate_key", span: { start: { offset: 11, line: 1, column: 12 } } });
    expect(result.errors[0]!.message).toContain("first at 1:4");
  });

  it("an unfinished candidate at the end of the text is prose, not an error", () => {
    expect(parse("[A:k")).toEqual({ commands: [], mentions: [], errors: [] });
    expect(parse("[A:  \n ")).toEqual({ commands: [], mentions: [], errors: [] });
  });
});

describe("recovery", () => {
  it("resumes after the ] of the broken command, so good commands around it are found", () => {
    const result = parse("[A:k=1] [B:k=1!x:j=2] [C:k=3]");
    expect(result.commands.map((command) => command.protocol)).toEqual(["A", "C"]);
    expect(result.errors.map((error) => [error.code, error.protocol])).toEqual([["unexpected_character", "B"]]);
  });

  it("resumes at the next line that starts a command when the broken one has no ]", () => {
    const result = parse("[A:k=1!\n  [B:j=2]\n[C:k=3]");
    expect(result.commands.map((command) => command.protocol)).toEqual(["B", "C"]);
    expect(result.errors).toHaveLength(1);
  });

  it("resumes at a line that starts a command right where the error is", () => {
    const result = parse("[A:k=1\n[B:j=2]");
    expect(result.commands.map((command) => command.protocol)).toEqual(["B"]);
    expect(result.errors[0]).toMatchObject({ code: "unexpected_character", span: { start: { line: 2, column: 1 } } });
  });

  it("does not resume at a [ in the middle of a line", () => {
    const result = parse("[A:k=1! see [B:j=2] [C:k=3]");
    expect(result.commands.map((command) => command.protocol)).toEqual(["C"]);
  });

  it("resumes at a fence line, which then opens a fence", () => {
    const result = parse("[A:k=1!\n```\n[B:j=2]\n```\n[C:k=3]");
    expect(result.commands.map((command) => command.protocol)).toEqual(["C"]);
    expect(result.mentions.map((mention) => mention.text)).toEqual(["[B:j=2]"]);
  });

  it('after a raw line break in a quoted value, the rest of the value stays data: recovery resumes after its closing "]', () => {
    const result = parse('[A:k="one\n[B:j=2] two\nend"]\n[C:k=3]');
    expect(result.commands.map((command) => command.protocol)).toEqual(["C"]);
    expect(result.errors).toMatchObject([{ code: "invalid_quoted", hint: '[A:k="one\\n[B:j=2] two\\nend"]', span: { start: { line: 1, column: 10 } } }]);
    expect(result.errors[0]!.message).toContain("raw line break");
  });

  it("at a raw line break after a `]` in a quoted value, takes the `]` for the command's: the quote was left open, the next line is read", () => {
    const result = parse('[A:k="broken]\n[B:j=2]\n');
    expect(result.commands.map((command) => command.protocol)).toEqual(["B"]);
    expect(result.errors).toMatchObject([{ code: "invalid_quoted", hint: '[A:k="broken"]' }]);
    expect(result.errors[0]!.message).toContain('its closing `"` is missing before the `]`');
  });

  it("after a raw tab or a bad escape in a quoted value, the rest of the value stays data; the hint escapes them", () => {
    const tabbed = parse('[A:k="a\tb\n[B:j=2]\n"]\n[C:k=3]');
    expect(tabbed.commands.map((command) => command.protocol)).toEqual(["C"]);
    expect(tabbed.errors).toMatchObject([{ code: "invalid_quoted", hint: '[A:k="a\\tb\\n[B:j=2]\\n"]' }]);
    const regex = parse('[A:k="re.match(\\"\\d+\\", s)\n[B:j=2]\nend"]\n[C:k=3]');
    expect(regex.commands.map((command) => command.protocol)).toEqual(["C"]);
    expect(regex.errors).toMatchObject([{ code: "invalid_quoted", hint: '[A:k="re.match(\\"\\\\d+\\", s)\\n[B:j=2]\\nend"]' }]);
    expect(regex.errors[0]!.message).toContain("`\\d` is not a JSON escape");
    expect(parse('[A:path="C:\\Users\\me"]').errors[0]!.hint).toBe('[A:path="C:\\\\Users\\\\me"]');
    // In a Windows path every backslash is one, also before a letter that would make an escape (`\b`).
    expect(parse('[A:path="C:\\logs\\build.txt"]').errors[0]!.hint).toBe('[A:path="C:\\\\logs\\\\build.txt"]');
  });

  it("after a raw line break in a quoted value, ends the value at its first `\"]`, brackets not paired: a value left open takes the text to the next command's end, no further", () => {
    const result = parse('[A:k="one\nThen [B:j="2"]\n[C:k=3]\n');
    expect(result.commands.map((command) => command.protocol)).toEqual(["C"]);
    expect(result.errors).toMatchObject([{ code: "invalid_quoted" }]);
    // Its `"]` ends a line that starts a command: most likely that command's, so no hint guesses the value.
    expect(result.errors[0]!.hint).toBeUndefined();
  });

  it("after a raw line break in a quoted value that never closes, takes the rest as its value, with no hint", () => {
    const result = parse('[A:k="one\nThen [B:j=2]\nand more\n');
    expect(result.commands).toEqual([]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.hint).toBeUndefined();
    expect(result.errors[0]!.message).toContain("send again the commands that came after it");
  });

  it('after a stray quote, the rest of the value stays data: recovery resumes after its closing "]', () => {
    const result = parse('[A:k="say "hi"\n[B:j=2]\nbye"]\n[C:k=3]');
    expect(result.commands.map((command) => command.protocol)).toEqual(["C"]);
    expect(result.errors).toMatchObject([{ code: "invalid_quoted", hint: '[A:k="say \\"hi\\"\\n[B:j=2]\\nbye"]' }]);
  });

  it("does not resume inside the heredoc body of a broken command: command-shaped lines in it stay data", () => {
    const body = "[SHELL:action=run:command=cm0=]";
    for (const text of [
      `[FILE_OP:action=write:path=x!:content<<EOF\n${body}\nEOF\n]\n[B:k=1]`,
      `[FILE_OP:action=write:path=x!\n  :content<<EOF\n${body}\n  EOF\nEOF \n]\n[B:k=1]`,
      `[FILE_OP:action=write:path=x!:content\n<<EOF\n${body}\nEOF\n]\n[B:k=1]`,
      `[FILE_OP:action=write:content<< EOF\n${body}\nEOF\n]\n[B:k=1]`,
      `[FILE_OP:action=write:content<<"EOF"\n${body}\nEOF\n]\n[B:k=1]`,
      `[FILE_OP:action=write:content<<END-OF-FILE\n${body}\nEND-OF-FILE\n]\n[B:k=1]`,
      `[FILE_OP:action=write:content<<EOF x\r\n${body}\r\nEOF\r\n]\n[B:k=1]`,
    ]) {
      const result = parse(text);
      expect(
        result.commands.map((command) => command.protocol),
        text,
      ).toEqual(["B"]);
      expect(result.errors, text).toHaveLength(1);
      expect(parseChunks([...text]), text).toEqual(result);
    }
  });

  it("still resumes at the next command line after a << that does not end its line", () => {
    expect(parse("[A:k=1! a<<b c\n[B:k=1]").commands.map((command) => command.protocol)).toEqual(["B"]);
    expect(parse("[A:k=1! a<<= b\n[B:k=1]").commands.map((command) => command.protocol)).toEqual(["B"]);
    expect(parse("[A:k<<EOF ]\n[B:k=1]").commands.map((command) => command.protocol)).toEqual(["B"]);
  });

  it("reports several broken commands each once, in order", () => {
    const result = parse('[A:k=] [B:k=1:] [C:k="\\x"] [D:k=1]');
    expect(result.errors.map((error) => [error.protocol, error.code])).toEqual([
      ["A", "missing_value"],
      ["B", "unexpected_character"],
      ["C", "invalid_quoted"],
    ]);
    expect(result.commands.map((command) => command.protocol)).toEqual(["D"]);
  });
});

describe("line breaks", () => {
  it("count \\r\\n as one line break: columns restart after it", () => {
    const result = parse("a\r\nb\r\n[A:k=1\r\n:j=2]\r\n[B:k=!]");
    expect(result.commands[0]!.span).toEqual({ start: { offset: 6, line: 3, column: 1 }, end: { offset: 19, line: 4, column: 6 } });
    expect(result.errors[0]!.span.start).toEqual({ offset: 26, line: 5, column: 6 });
  });

  it("end a missing-: error that covers a line break on the next line (the position law found 1:10)", () => {
    expect(firstError("[B:j=~~~\nk=1").span).toEqual({ start: { offset: 8, line: 1, column: 9 }, end: { offset: 9, line: 2, column: 1 } });
    expect(firstError("[B:j=a\rk=1]").span.end).toEqual({ offset: 7, line: 2, column: 1 });
  });

  it("count columns in UTF-16 code units", () => {
    const [command] = parse("😀é [A:k=1]").commands;
    expect(command!.span.start).toEqual({ offset: 4, line: 1, column: 5 });
  });
});

describe("a missing : before a parameter on the next line", () => {
  it("the error's span ends on the next line when a line feed stands where the : belonged (found by a long property run)", () => {
    for (const text of ['[B:j="x]"\nk=1', '[B:j="x"\n  k=1]']) {
      const span = parse(text).errors[0]!.span;
      expect(text.charCodeAt(span.start.offset)).toBe(0x0a);
      expect(span.end).toEqual({ offset: span.start.offset + 1, line: span.start.line + 1, column: 1 });
    }
    const carriageReturn = parse('[B:j="x]"\r\nk=1').errors[0]!.span;
    expect(carriageReturn.end).toEqual({ offset: carriageReturn.start.offset + 1, line: carriageReturn.start.line, column: carriageReturn.start.column + 1 });
  });

  it("is reported where the : belongs, on the line before the break (found by the position law)", () => {
    for (const [text, offset] of [
      ['[B:j="x]"\r\nk=1', 9],
      ['[B:j="x"\nk=1]', 8],
      ["[B:a=b\n c=1]", 6],
    ] as const) {
      const [error] = parse(text).errors;
      expect(error?.span.start, text).toEqual({ offset, line: 1, column: offset + 1 });
    }
  });
});
