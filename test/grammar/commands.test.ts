import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";
import { shape } from "./support.js";

describe("where a command starts", () => {
  it("starts at [ NAME : KEY = and runs to its ]", () => {
    const result = parse("I'll look at the config first.\n[FILE_OP:action=read:path=Y29uZmlnLnlhbWw=]");
    expect(result.errors).toEqual([]);
    expect(result.commands.map(shape)).toEqual([
      {
        protocol: "FILE_OP",
        parameters: [
          ["action", "bare", "read"],
          ["path", "bare", "Y29uZmlnLnlhbWw="],
        ],
      },
    ]);
  });

  it("reports the span of the example on line 2: 2:1 to 2:44", () => {
    const [command] = parse("text\n[FILE_OP:action=read:path=Li9zcmMvbWFpbi5j]").commands;
    expect(command!.span).toEqual({ start: { offset: 5, line: 2, column: 1 }, end: { offset: 48, line: 2, column: 44 } });
  });

  it.each([
    ["a markdown link", "See [docs](http://x) now."],
    ["a bracketed word", "[x] and [NOTE] and [ ] and []"],
    ["a bracket with a colon and prose", "[WARNING: be careful]"],
    ["a name and colon without a key", "[A:] [A: ] [A:k] [A:k ] [A: k]"],
    ["a key followed by something else", "[A:k-x] [A:k<x] [A:k < < x]"],
    ["a name that starts with a digit or underscore", "[1A:k=1] [_A:k=1]"],
    ["a space before the colon", "[A :k=1] [ A:k=1]"],
    ["markdown task lists and footnotes", "- [ ] ship\n- [x] done\n[^1]: note\n[link]: http://x"],
  ])("treats %s as text, with no error", (_, text) => {
    expect(parse(text)).toEqual({ commands: [], mentions: [], errors: [] });
  });

  it("treats a [ right after a backslash as text, however many backslashes stand there", () => {
    expect(parse("\\[A:k=1]").commands).toEqual([]);
    expect(parse("\\\\\\[A:k=1]").commands).toEqual([]);
    expect(parse("\\\\[A:k=1]").commands).toEqual([]);
  });

  it("matches names case-insensitively: protocol is upper case, name as written", () => {
    const [command] = parse("[file_Op:action=read]").commands;
    expect(command!.protocol).toBe("FILE_OP");
    expect(command!.name).toBe("file_Op");
  });

  it("finds a command in the middle of a word and several on one line", () => {
    expect(parse("abc[A:k=1]def[B:j=2]").commands.map((command) => command.protocol)).toEqual(["A", "B"]);
  });

  it("allows whitespace and line breaks between the pieces of a command", () => {
    const text = "[FILE_OP:\n  action = read :\n  path =\n    cGF0aA==\n  ]";
    const result = parse(text);
    expect(result.errors).toEqual([]);
    expect(result.commands.map(shape)).toEqual([
      {
        protocol: "FILE_OP",
        parameters: [
          ["action", "bare", "read"],
          ["path", "bare", "cGF0aA=="],
        ],
      },
    ]);
    expect(result.commands[0]!.span.end).toEqual({ offset: text.length, line: 5, column: 4 });
  });

  it("accepts keys with digits, underscores and dashes", () => {
    expect(parse("[A:_k-1_x=1:Key2=2]").commands.map(shape)).toEqual([
      {
        protocol: "A",
        parameters: [
          ["_k-1_x", "bare", "1"],
          ["Key2", "bare", "2"],
        ],
      },
    ]);
  });
});

describe("bare values", () => {
  it("hold A-Z a-z 0-9 + / _ . , @ % ~ - and may end in = or ==", () => {
    const [command] = parse("[A:a=Az09+/_.,@%~-:b=YQ==:c=YWI=]").commands;
    expect(command!.parameters.map((parameter) => parameter.text)).toEqual(["Az09+/_.,@%~-", "YQ==", "YWI="]);
  });

  it("may be broken over lines (wrapped base64): the raw text keeps the whitespace", () => {
    const [command] = parse("[A:content=SGVsbG8s\n  IHdvcmxk\n  IQ==]").commands;
    expect(command!.parameters[0]).toMatchObject({ form: "bare", raw: "SGVsbG8s\n  IHdvcmxk\n  IQ==", text: "SGVsbG8s\n  IHdvcmxk\n  IQ==" });
  });

  it("end before whitespace that is followed by : or ]", () => {
    const [command] = parse("[A:k=abc   \n :j=def \n]").commands;
    expect(command!.parameters.map((parameter) => parameter.raw)).toEqual(["abc", "def"]);
    expect(command!.parameters[0]!.span.end).toEqual({ offset: 8, line: 1, column: 9 });
  });
});

describe("quoted values", () => {
  it("are JSON string literals holding ], :, quotes, escapes and command-shaped text as data", () => {
    const [command] = parse('[A:k="a]b:c \\"q\\" \\\\ \\n\\t\\u00e9 [B:j=1]"]').commands;
    expect(command!.parameters[0]).toMatchObject({ form: "quoted", raw: '"a]b:c \\"q\\" \\\\ \\n\\t\\u00e9 [B:j=1]"', text: 'a]b:c "q" \\ \n\té [B:j=1]' });
    expect(parse('[A:k="a]b:c \\"q\\" [B:j=1]"]').commands).toHaveLength(1);
  });

  it("may be empty and may hold any Unicode", () => {
    const [command] = parse('[A:k="":j="日本 😀"]').commands;
    expect(command!.parameters.map((parameter) => parameter.text)).toEqual(["", "日本 😀"]);
  });
});

describe("heredoc values", () => {
  it("take every line up to the line that is exactly TAG, literally, without the last line break", () => {
    const text = '[FILE_OP:action=write:path="notes/todo.md":content<<EOF\n# Todo\n- [ ] ship\n[B:k=1]\n```\nEOF\n]';
    const result = parse(text);
    expect(result.errors).toEqual([]);
    expect(result.mentions).toEqual([]);
    expect(result.commands).toHaveLength(1);
    expect(result.commands[0]!.parameters[2]).toMatchObject({ key: "content", form: "heredoc", tag: "EOF", text: "# Todo\n- [ ] ship\n[B:k=1]\n```" });
    expect(result.commands[0]!.parameters[2]!.span.end).toEqual({ offset: text.length - 2, line: 6, column: 4 });
  });

  it("allow spaces after the tag on the closing line and after <<TAG on the header line", () => {
    const [command] = parse("[A:k<<END  \nbody\nEND \t\n:j=1]").commands;
    expect(command!.parameters.map((parameter) => parameter.text)).toEqual(["body", "1"]);
  });

  it("do not end at a line that only starts with the tag, or holds the tag and ]", () => {
    const [command] = parse("[A:k<<EOF\nEOFX\n EOF\nEOF]\nEOF\n]").commands;
    expect(command!.parameters[0]!.text).toBe("EOFX\n EOF\nEOF]");
  });

  it("may be empty, and keep blank lines", () => {
    expect(parse("[A:k<<EOF\nEOF\n]").commands[0]!.parameters[0]!.text).toBe("");
    expect(parse("[A:k<<EOF\n\n\nEOF\n]").commands[0]!.parameters[0]!.text).toBe("\n");
  });

  it("end their body at a CRLF line break as one line break", () => {
    const [command] = parse("[A:k<<EOF\r\na\r\nb\r\nEOF\r\n]").commands;
    expect(command!.parameters[0]!.text).toBe("a\r\nb");
  });

  it("continue the command after the closing line with ws then : or ]", () => {
    const [command] = parse("[A:k<<EOF\nx\nEOF\n\n  :j<<T\ny\nT\n  ]").commands;
    expect(command!.parameters.map((parameter) => [parameter.key, parameter.text])).toEqual([
      ["k", "x"],
      ["j", "y"],
    ]);
  });
});
