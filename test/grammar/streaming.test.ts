import { describe, expect, it } from "vitest";
import { parse, StreamingScanner } from "../../grammar/index.js";
import { parseChunks } from "./support.js";

describe("streaming", () => {
  it("emits a command in the same push that delivers its ]", () => {
    const scanner = new StreamingScanner();
    expect(scanner.push("Reading it now. [FILE_OP:action=read:pa")).toEqual([]);
    expect(scanner.push("th=eA==")).toEqual([]);
    const events = scanner.push("] and then more text");
    expect(events.map((event) => event.type)).toEqual(["command"]);
    expect(scanner.end()).toEqual([]);
  });

  it("keeps offsets, lines and columns absolute across chunks", () => {
    const scanner = new StreamingScanner();
    scanner.push("line one\nline ");
    const [event] = scanner.push("two [A:k=1]");
    expect(event).toMatchObject({ type: "command", command: { span: { start: { offset: 18, line: 2, column: 10 }, end: { offset: 25, line: 2, column: 17 } } } });
  });

  it("counts a \\r\\n split between chunks as one line break", () => {
    expect(parseChunks(["a\r", "\n[A:k=1]"])).toEqual(parse("a\r\n[A:k=1]"));
    expect(parseChunks(["a\r", "\n[A:k=1]"]).commands[0]!.span.start).toEqual({ offset: 3, line: 2, column: 1 });
  });

  it("reads a lone \\r as a line break, also when it ends a chunk and when it ends the text", () => {
    expect(parse("a\r[A:k=1]").commands[0]!.span.start).toEqual({ offset: 2, line: 2, column: 1 });
    expect(parseChunks(["a\r", "[A:k=1]"])).toEqual(parse("a\r[A:k=1]"));
    expect(parseChunks(["a\r", "\r", "\n", "[A:k=1]"]).commands[0]!.span.start).toEqual({ offset: 4, line: 3, column: 1 });
    expect(parseChunks(["```\r", "[A:k=1]\r"])).toEqual(parse("```\r[A:k=1]\r"));
    expect(parse("```\r[A:k=1]\r").mentions.map((mention) => mention.text)).toEqual(["[A:k=1]"]);
  });

  it("emits a command before the \\r held back after it is decided", () => {
    const scanner = new StreamingScanner();
    expect(scanner.push("[A:k=1]\r").map((event) => event.type)).toEqual(["command"]);
    expect(scanner.push("```\n[B:k=1]\n").map((event) => event.type)).toEqual(["mention"]);
    expect(scanner.end()).toEqual([]);
  });

  it("holds text after an unmatched backtick run until it closes or its paragraph ends", () => {
    const scanner = new StreamingScanner();
    expect(scanner.push("a `b [A:k=1] c")).toEqual([]);
    expect(scanner.push("\n")).toEqual([]);
    expect(scanner.push("\n").map((event) => event.type)).toEqual(["command"]);
    const closed = new StreamingScanner();
    closed.push("a `b [A:k=1] c");
    expect(closed.push("` d").map((event) => event.type)).toEqual(["mention"]);
    const nextLine = new StreamingScanner();
    nextLine.push("a `b [A:k=1] c\nmore");
    expect(nextLine.push("` d").map((event) => event.type)).toEqual(["mention"]);
    const newBlock = new StreamingScanner();
    newBlock.push("a `b [A:k=1] c\n");
    expect(newBlock.push("- item").map((event) => event.type)).toEqual(["command"]);
  });

  it("reports what never finished only at end()", () => {
    const scanner = new StreamingScanner();
    expect(scanner.push("[A:k=1")).toEqual([]);
    expect(scanner.end().map((event) => event.type === "error" && event.error.code)).toEqual(["unterminated_command"]);
    expect(scanner.push("[B:k=1]")).toEqual([]);
    expect(scanner.end()).toEqual([]);
  });

  it("decides a heredoc's closing line only once the line ends", () => {
    const scanner = new StreamingScanner();
    scanner.push("[A:k<<EOF\nbody\nEOF");
    expect(scanner.push("X\nEOF\n]").map((event) => event.type)).toEqual(["command"]);
    expect(parse("[A:k<<EOF\nbody\nEOFX\nEOF\n]").commands[0]!.parameters[0]!.text).toBe("body\nEOFX");
  });

  it("ignores an empty chunk: a fence line after it is still a fence, a recovery line still resumes", () => {
    const fenced = "a\n```\n[A:k=1]\n```\n";
    expect(parseChunks(["a\n", "", "```\n[A:k=1]\n```\n"])).toEqual(parse(fenced));
    expect(parseChunks(["a\n", "", "```\n[A:k=1]\n```\n"]).commands).toEqual([]);
    const recovered = "[B:k=1!\n[A:k=1]";
    expect(parseChunks(["[B:k=1!\n", "", "[A:k=1]"])).toEqual(parse(recovered));
    expect(parseChunks(["[B:k=1!\n", "", "[A:k=1]"]).commands.map((command) => command.protocol)).toEqual(["A"]);
  });

  it("gives the same result for every one-character chunking of a mixed document", () => {
    const text = [
      "Intro with [docs](http://x) and \\[A:k=1].\r\n",
      "```ts\n[A:k=1]\n```\n",
      'Inline `[B:j=2]` and a live [C:path="a]b":content<<EOF\nline\n```\nEOF\n]\n',
      "Broken [D:k=1!] then [E:k=",
      "",
    ].join("");
    expect(parseChunks([...text])).toEqual(parse(text));
    expect(parse(text).commands.map((command) => command.protocol)).toEqual(["C"]);
  });
});
