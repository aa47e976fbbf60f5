import { describe, expect, it } from "vitest";
import type { Parameter } from "../../grammar/ast.js";
import { decodeParameter, formatArgumentError } from "../../grammar/index.js";

function bare(text: string): Parameter {
  const at = { offset: 0, line: 1, column: 1 };
  return { key: "path", form: "bare", raw: text, text, span: { start: at, end: at } };
}

function message(text: string): string {
  const result = decodeParameter(bare(text), "text");
  if (result.ok) throw new Error(`${text} decoded to ${String(result.value)}`);
  return formatArgumentError("FILE_OP.read", "path", result);
}

describe("bare text values that are base64 near-misses (contract §3)", () => {
  it("a plain word that is valid base64 of implausible text is an error whose hint is the quoted word, never a command on the decoded bytes", () => {
    expect(message("dist")).toContain('write path="dist"');
    expect(message("dist")).toContain('"v+-"');
    expect(message("AAAA")).toContain('write path="AAAA"');
  });

  it("bad padding or one character too many: the hint shows the decoded guess and both right spellings", () => {
    expect(message("Y29uZmlnLnlhbWw===")).toContain('it reads as "config.yaml"; if that is what you meant, write path="config.yaml" or path=Y29uZmlnLnlhbWw=');
    expect(message("UkVBRE1FLm1kx")).toContain('"README.md"');
  });

  it("plain words that are not base64 keep their literal spellings", () => {
    expect(message("src/main.c")).toContain('write path="src/main.c" or path=c3JjL21haW4uYw==');
    expect(message("test")).toContain('write path="test"');
  });

  it("real base64, padded or not, still decodes", () => {
    for (const [text, value] of [
      ["Y29uZmlnLnlhbWw=", "config.yaml"],
      ["Y29uZmlnLnlhbWw", "config.yaml"],
      ["bHM=", "ls"],
      ["bHMgLWxh", "ls -la"],
    ] as const) {
      expect(decodeParameter(bare(text), "text")).toEqual({ ok: true, value });
    }
  });

  it("a decoding with control characters is refused even when long", () => {
    const control = Buffer.from("abc\u0001def ghi jkl mno pqr stu vwx").toString("base64");
    expect(decodeParameter(bare(control), "text").ok).toBe(false);
  });
});
