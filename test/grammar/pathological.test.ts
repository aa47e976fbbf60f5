import { describe, expect, it } from "vitest";
import { encodeBase64, parse } from "../../grammar/index.js";
import { parseChunks } from "./support.js";

/** Inputs built to trip a backtracking or quadratic parser. Each must finish with a sensible result. */
describe("pathological input", () => {
  it("100,000 [ in a row is text", () => {
    expect(parse("[".repeat(100_000))).toEqual({ commands: [], mentions: [], errors: [] });
  });

  it("a 5 MB base64 value is one bare value", () => {
    const value = encodeBase64(Buffer.alloc(3_750_000, 7));
    const [command] = parse(`[FILE_OP:action=write:content=${value}]`).commands;
    expect(command!.parameters[1]!.text.length).toBe(5_000_000);
  });

  it("10,000 fences open and close", () => {
    const result = parse("```\n[A:k=1]\n```\n".repeat(10_000));
    expect(result.mentions).toHaveLength(10_000);
    expect(result.commands).toEqual([]);
  });

  it("deeply repeated [A: prefixes are text", () => {
    expect(parse("[A:".repeat(100_000))).toEqual({ commands: [], mentions: [], errors: [] });
  });

  it("[A:k= repeated is one error, then recovery to the end", () => {
    const result = parse("[A:k=".repeat(100_000));
    expect(result.commands).toEqual([]);
    expect(result.errors.map((error) => error.code)).toEqual(["unexpected_character"]);
  });

  it("a 1 MB run of spaces after [A: still finds the key", () => {
    expect(parse(`[A:${" ".repeat(1_000_000)}k=1]`).commands).toHaveLength(1);
    expect(parse(`[A:${" ".repeat(1_000_000)}!`).errors).toEqual([]);
  });

  it("random bytes parse without error entries from the parser itself", () => {
    let seed = 42;
    const text = Array.from({ length: 500_000 }, () => {
      seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
      return String.fromCharCode(seed % 256);
    }).join("");
    const result = parse(text);
    expect(result.errors.filter((error) => error.message.startsWith("internal"))).toEqual([]);
  });

  it("backtick runs of every length on one line are all literal", () => {
    const text = `${Array.from({ length: 1_000 }, (_, index) => "`".repeat(index + 1)).join(" ")} [A:k=1]`;
    expect(parse(text).commands).toHaveLength(1);
  });

  it("many paragraphs with an unmatched backtick and a command each", () => {
    expect(parse("`a [A:k=1] b\n\n".repeat(20_000)).commands).toHaveLength(20_000);
  });

  it("a paragraph of 20,000 lines after an unmatched backtick is held once, then read as prose", () => {
    expect(parse(`\`x\n${"a [A:k=1] b\n".repeat(20_000)}`).commands).toHaveLength(20_000);
  });

  it("50,000 unclosed comments, instructions or quoted attributes in one paragraph are each given up at once", () => {
    for (const unit of ["<!-- x ", "<? x ", '<b t="x ', "<![CDATA[ x ", "<!X x "]) {
      expect(parse(`a ${unit.repeat(50_000)}[A:k=1]`).commands.map((command) => command.protocol)).toEqual(["A"]);
    }
  });

  it("100,000 backtick runs in one paragraph pair up over lines", () => {
    const result = parse("`a [A:k=1]\n".repeat(100_000));
    expect(result.mentions).toHaveLength(50_000);
    expect(result.commands).toHaveLength(50_000);
  });

  it("a long unterminated heredoc is one error", () => {
    const result = parse(`[A:k<<EOF\n${"line\n".repeat(200_000)}`);
    expect(result.errors.map((error) => error.code)).toEqual(["unterminated_heredoc"]);
  });

  it("streams a large heredoc in small chunks with the same result", () => {
    const text = `[A:k<<EOF\n${"x [B:j=1] ```\n".repeat(20_000)}EOF\n]`;
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += 7) chunks.push(text.slice(i, i + 7));
    expect(parseChunks(chunks)).toEqual(parse(text));
  });
});
