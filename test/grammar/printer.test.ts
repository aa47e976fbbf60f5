import { describe, expect, it } from "vitest";
import { decodeParameter, parse, print, printCanonical } from "../../grammar/index.js";
import { shape } from "./support.js";

describe("print", () => {
  it("writes bare values as is, quoted values as JSON strings, heredocs with EOF", () => {
    const text = print({
      protocol: "FILE_OP",
      parameters: [
        { key: "action", form: "bare", text: "write" },
        { key: "path", form: "quoted", text: 'a "b"]:c' },
        { key: "content", form: "heredoc", text: "# Todo\n- [ ] ship" },
      ],
    });
    expect(text).toBe('[FILE_OP:action=write:path="a \\"b\\"]:c":content<<EOF\n# Todo\n- [ ] ship\nEOF\n]');
  });

  it("writes the protocol name in its canonical upper case", () => {
    expect(print({ protocol: "file_op", parameters: [{ key: "action", form: "bare", text: "read" }] })).toBe("[FILE_OP:action=read]");
    expect(printCanonical("file_op", [{ key: "action", kind: "word", value: "read" }])).toBe("[FILE_OP:action=read]");
  });

  it("falls back to quoted for a bare value that is not bare-safe", () => {
    expect(print({ protocol: "A", parameters: [{ key: "k", form: "bare", text: "a]b" }] })).toBe('[A:k="a]b"]');
    expect(print({ protocol: "A", parameters: [{ key: "k", form: "bare", text: "" }] })).toBe('[A:k=""]');
  });

  it("picks a heredoc tag that is not a line of the body", () => {
    const text = print({ protocol: "A", parameters: [{ key: "k", form: "heredoc", text: "EOF\nEOF1  \nx" }] });
    expect(text).toBe("[A:k<<EOF2\nEOF\nEOF1  \nx\nEOF2\n]");
    expect(parse(text).commands.map(shape)).toEqual([{ protocol: "A", parameters: [["k", "heredoc", "EOF\nEOF1  \nx"]] }]);
  });

  it("picks a heredoc tag that is not a line of the body when a lone carriage return ends a line (found by clio fuzz)", () => {
    for (const body of ["EOF\r]", "\rEOF", "x\rEOF \ry", "EOF\r\nEOF1\rz"]) {
      const text = print({ protocol: "A", parameters: [{ key: "k", form: "heredoc", text: body }] });
      expect(parse(text).errors).toEqual([]);
      expect(parse(text).commands.map(shape)).toEqual([{ protocol: "A", parameters: [["k", "heredoc", body]] }]);
    }
    expect(print({ protocol: "A", parameters: [{ key: "k", form: "heredoc", text: "EOF\r]" }] })).toBe("[A:k<<EOF1\nEOF\r]\nEOF1\n]");
  });

  it("falls back to quoted for a heredoc body ending in a carriage return", () => {
    expect(print({ protocol: "A", parameters: [{ key: "k", form: "heredoc", text: "a\r" }] })).toBe('[A:k="a\\r"]');
  });
});

describe("printCanonical", () => {
  it("writes text, json and bytes as standard base64 with padding, words bare", () => {
    const text = printCanonical("FILE_OP", [
      { key: "action", kind: "word", value: "read" },
      { key: "path", kind: "text", value: "README.md" },
      { key: "meta", kind: "json", value: '{"a":1}' },
      { key: "data", kind: "bytes", value: Buffer.from([0xfb, 0xff]) },
    ]);
    expect(text).toBe("[FILE_OP:action=read:path=UkVBRE1FLm1k:meta=eyJhIjoxfQ==:data=+/8=]");
  });

  it("quotes words that are not bare-safe, and empty values", () => {
    expect(
      printCanonical("A", [
        { key: "w", kind: "word", value: "two words" },
        { key: "t", kind: "text", value: "" },
      ]),
    ).toBe('[A:w="two words":t=""]');
  });

  it("reads back to the same decoded values", () => {
    const text = printCanonical("A", [{ key: "t", kind: "text", value: "日本 ]:\n" }]);
    const [command] = parse(text).commands;
    expect(decodeParameter(command!.parameters[0]!, "text")).toEqual({ ok: true, value: "日本 ]:\n" });
  });

  it('reads back empty text and empty bytes, written as ""', () => {
    const text = printCanonical("A", [
      { key: "t", kind: "text", value: "" },
      { key: "b", kind: "bytes", value: Buffer.alloc(0) },
    ]);
    const [command] = parse(text).commands;
    expect(decodeParameter(command!.parameters[0]!, "text")).toEqual({ ok: true, value: "" });
    expect(decodeParameter(command!.parameters[1]!, "bytes")).toEqual({ ok: true, value: Buffer.alloc(0) });
  });
});
