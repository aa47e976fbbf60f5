import { describe, expect, it } from "vitest";
import type { Parameter } from "../../grammar/ast.js";
import { decodeBase64, decodeParameter, encodeBase64, formatArgumentError, parse } from "../../grammar/index.js";

function parameter(text: string): Parameter {
  const [command] = parse(text).commands;
  return command!.parameters[0]!;
}

describe("decoding by kind", () => {
  it("word: the text as written, in any form", () => {
    expect(decodeParameter(parameter("[A:k=read]"), "word")).toEqual({ ok: true, value: "read" });
    expect(decodeParameter(parameter('[A:k="two words"]'), "word")).toEqual({ ok: true, value: "two words" });
  });

  it("text: bare is base64 of UTF-8 (either alphabet, any padding, whitespace ignored); quoted and heredoc are literal", () => {
    expect(decodeParameter(parameter("[A:path=c3JjL21haW4udHM=]"), "text")).toEqual({ ok: true, value: "src/main.ts" });
    expect(decodeParameter(parameter("[A:path=c3JjL21haW4udHM]"), "text")).toEqual({ ok: true, value: "src/main.ts" });
    expect(decodeParameter(parameter("[A:t=d2hpY2g_]"), "text")).toEqual({ ok: true, value: "which?" });
    const wrapped = encodeBase64("✓ à la mode").replace(/(.{8})/g, "$1\n  ");
    expect(decodeParameter(parameter(`[A:t=${wrapped}]`), "text")).toEqual({ ok: true, value: "✓ à la mode" });
    expect(decodeParameter(parameter('[A:path="src/main.ts"]'), "text")).toEqual({ ok: true, value: "src/main.ts" });
    expect(decodeParameter(parameter("[A:c<<EOF\n日本\nEOF\n]"), "text")).toEqual({ ok: true, value: "日本" });
  });

  it("text: bare that is not base64 fails, saying how to write it", () => {
    const result = decodeParameter(parameter("[FILE_OP:path=src/main.ts]"), "text");
    expect(result).toEqual({ ok: false, expected: "valid base64", received: "src/main.ts", fix: 'write path="src/main.ts" or path=c3JjL21haW4udHM=', literal: "src/main.ts" });
    expect(formatArgumentError("FILE_OP.read", "path", result as Extract<typeof result, { ok: false }>)).toBe(
      'FILE_OP.read: path is not valid base64 — write path="src/main.ts" or path=c3JjL21haW4udHM=',
    );
    const readme = decodeParameter(parameter("[FILE_OP:path=README.md]"), "text");
    expect(formatArgumentError("FILE_OP.read", "path", readme as Extract<typeof readme, { ok: false }>)).toBe(
      'FILE_OP.read: path is not valid base64 — write path="README.md" or path=UkVBRE1FLm1k',
    );
  });

  it("an argument error says what came, unless the message already shows it", () => {
    const failed = (text: string, kind: "text" | "json" | "bytes") => {
      const result = decodeParameter(parameter(text), kind);
      if (result.ok) throw new Error(`${text} decoded`);
      return formatArgumentError("FILE_OP.write", "k", result);
    };
    expect(failed("[A:k=wyg=]", "text")).toBe(
      'FILE_OP.write: k is not base64 of UTF-8 text (it decodes to bytes that are not UTF-8) — encode the text\'s UTF-8 bytes, or if you meant the text itself, write k="wyg=" or k=d3lnPQ==',
    );
    expect(failed(`[A:k=${encodeBase64(Buffer.alloc(40, 0xff))}]`, "text")).toContain(', got "/////');
    expect(failed(`[A:k=${"a.".repeat(30)}]`, "text")).toContain(`, got "${"a.".repeat(20)}…" — write k="…"`);
    expect(failed('[A:k="{a:1}"]', "json")).toMatch(/^FILE_OP\.write: k is not valid JSON \(.*\), got "\{a:1\}" — write /);
    expect(failed('[A:k="AP8="]', "bytes")).toBe("FILE_OP.write: k is not base64 (binary data cannot be quoted or a heredoc), got a quoted value — write k=<base64 of the bytes>");
    expect(failed("[A:k=a.b]", "text")).toBe('FILE_OP.write: k is not valid base64 — write k="a.b" or k=YS5i');
    expect(failed(`[A:k=${Buffer.from("not json").toString("base64")}]`, "json")).not.toContain("got");
  });

  it("text: a bare word that happens to be base64 of bytes that are not UTF-8 is answered with its literal spellings", () => {
    const result = decodeParameter(parameter("[FILE_OP:path=test]"), "text");
    expect(formatArgumentError("FILE_OP.read", "path", result as Extract<typeof result, { ok: false }>)).toBe(
      'FILE_OP.read: path is not base64 of UTF-8 text (it decodes to bytes that are not UTF-8) — encode the text\'s UTF-8 bytes, or if you meant the text itself, write path="test" or path=dGVzdA==',
    );
  });

  it("text: base64 of bytes that are not UTF-8 fails (no replacement characters)", () => {
    const result = decodeParameter(parameter(`[A:k=${encodeBase64(Buffer.from([0xc3, 0x28]))}]`), "text");
    expect(result).toMatchObject({ ok: false, expected: expect.stringContaining("UTF-8") });
  });

  it("text: keeps a leading byte order mark", () => {
    expect(decodeParameter(parameter(`[A:k=${encodeBase64("\ufeffhi")}]`), "text")).toEqual({ ok: true, value: "\ufeffhi" });
  });

  it("json: bare is base64 of JSON, quoted and heredoc are JSON text; the value is the JSON text", () => {
    const json = '{"a":[1,2]}';
    expect(decodeParameter(parameter(`[A:h=${encodeBase64(json)}]`), "json")).toEqual({ ok: true, value: json });
    expect(decodeParameter(parameter(`[A:h=${JSON.stringify(json)}]`), "json")).toEqual({ ok: true, value: json });
    expect(decodeParameter(parameter(`[A:h<<EOF\n${json}\nEOF\n]`), "json")).toEqual({ ok: true, value: json });
  });

  it("json: text that is not JSON fails with the reason", () => {
    const result = decodeParameter(parameter('[A:h="{a:1}"]'), "json");
    expect(result).toMatchObject({ ok: false, expected: expect.stringMatching(/^valid JSON \(/), received: "{a:1}" });
    expect(decodeParameter(parameter(`[A:h=${encodeBase64("nope")}]`), "json")).toMatchObject({ ok: false });
  });

  it("bytes: bare base64 gives a Buffer; quoted and heredoc are not allowed", () => {
    expect(decodeParameter(parameter("[A:b=AP8=]"), "bytes")).toEqual({ ok: true, value: Buffer.from([0, 255]) });
    const quoted = decodeParameter(parameter('[A:b="AP8="]'), "bytes");
    expect(quoted).toMatchObject({ ok: false, received: "a quoted value", fix: "write b=<base64 of the bytes>" });
    expect(decodeParameter(parameter("[A:b<<EOF\nAP8=\nEOF\n]"), "bytes")).toMatchObject({ ok: false, received: "a heredoc value" });
    expect(decodeParameter(parameter("[A:b=AP8]"), "bytes")).toEqual({ ok: true, value: Buffer.from([0, 255]) });
  });
});

describe("base64", () => {
  it("accepts standard and URL-safe alphabets, with or without padding, with whitespace anywhere", () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0x01]);
    for (const text of ["+/+/AQ==", "+/+/AQ", "-_-_AQ==", "-_-_AQ", " +/+/\n AQ\r\n==\t"]) {
      expect(decodeBase64(text), text).toEqual(bytes);
    }
    expect(decodeBase64("")).toEqual(Buffer.alloc(0));
  });

  it("rejects other characters, mixed alphabets, impossible lengths, misplaced or partial padding, and non-zero trailing bits", () => {
    for (const text of ["a!bc", "+/-_", "A", "AAAAA", "AA=A", "A===", "AA=", "=AAA", "AB==", "AAB=", "src/main.ts"]) {
      expect(decodeBase64(text), text).toBeUndefined();
    }
  });

  it("encodes standard base64 with padding, from bytes or UTF-8 text", () => {
    expect(encodeBase64("README.md")).toBe("UkVBRE1FLm1k");
    expect(encodeBase64(Buffer.from([0xfb, 0xff]))).toBe("+/8=");
  });
});
