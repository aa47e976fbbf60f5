/**
 * The corrected command in an error's hint for the commonest slips of a model writing this
 * language by hand: a comma (or `;`) where a `:` belongs, the closing `]` (or `"]`) left out where the text
 * or the line ends. The hint, parsed, is the one command meant (a bare value that is neither a word
 * nor base64 quoted, so the checks pass it too); every chunking reports the same.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";
import { parseChunks } from "./support.js";

const READ = '[FILE_OP:action=read:path="src/a.ts"]';

/** Each slip with the error code it gets and the hint it must carry. */
const SLIPS: Array<{ text: string; code: string; hint: string }> = [
  { text: '[FILE_OP:action=read, path="src/a.ts"]', code: "unexpected_character", hint: READ },
  { text: '[FILE_OP:action=read:path="src/a.ts", limit=5]', code: "unexpected_character", hint: '[FILE_OP:action=read:path="src/a.ts":limit=5]' },
  { text: '[FILE_OP:action=read:path="src/a.ts",limit=5]', code: "unexpected_character", hint: '[FILE_OP:action=read:path="src/a.ts":limit=5]' },
  { text: '[FILE_OP:action=read, path="src/a.ts", limit=5]', code: "unexpected_character", hint: '[FILE_OP:action=read:path="src/a.ts":limit=5]' },
  { text: '[FILE_OP:action=read,path="src/a.ts"]', code: "unexpected_character", hint: READ },
  { text: "[FILE_OP:action=read,path=src/a.ts,limit=5]", code: "unexpected_character", hint: '[FILE_OP:action=read:path="src/a.ts":limit=5]' },
  { text: "[FILE_OP:action=read path=src/a.ts]", code: "unexpected_character", hint: READ },
  {
    text: "[FILE_OP:action=write,path=a.txt,content<<EOF\nx=1,y=2\nEOF\n]",
    code: "unexpected_character",
    hint: '[FILE_OP:action=write:path="a.txt":content<<EOF\nx=1,y=2\nEOF\n]',
  },
  { text: 'Now [FILE_OP:action=read;path="src/a.ts"] first.', code: "unexpected_character", hint: READ },
  { text: "[FILE_OP:action=read,path=c3JjL2EudHM=,limit=5]", code: "unexpected_character", hint: "[FILE_OP:action=read:path=c3JjL2EudHM=:limit=5]" },
  { text: '[FILE_OP:action=read:path: "src/a.ts"]', code: "unexpected_character", hint: '[FILE_OP:action=read:path= "src/a.ts"]' },
  { text: '[FILE_OP:action=read:path: "src/a.ts" limit=5]', code: "unexpected_character", hint: '[FILE_OP:action=read:path= "src/a.ts":limit=5]' },
  { text: 'Reading: [FILE_OP:action=read:path="src/a.ts"', code: "unterminated_command", hint: READ },
  { text: 'Reading: [FILE_OP:action=read:path="src/a.ts"  \n', code: "unterminated_command", hint: READ },
  { text: "[FILE_OP:action=read:path=c3JjL2EudHM=", code: "unterminated_command", hint: "[FILE_OP:action=read:path=c3JjL2EudHM=]" },
  { text: '[FILE_OP:action=read:path="src/a.ts', code: "unterminated_quoted", hint: READ },
  { text: '[FILE_OP:action=read:path="src/a.ts"\nthen I run the tests.', code: "invalid_quoted", hint: READ },
  { text: '[FILE_OP:action=read:path="src/a.ts"\n[EXEC:action=run:command="ls"]\n', code: "invalid_quoted", hint: READ },
];

describe("hints for a comma in place of a colon, or a closing bracket left out", () => {
  it.each(SLIPS)("$text: the hint is the command meant, and nothing runs", ({ text, code, hint }) => {
    const result = parse(text);
    expect(result.commands).toEqual([]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ code, hint });
    expect(parse(hint)).toMatchObject({ errors: [], mentions: [] });
    expect(parse(hint).commands).toHaveLength(1);
  });

  it("says a comma stands where the colon belongs", () => {
    expect(parse(SLIPS[1]!.text).errors[0]!.message).toContain("not spaces or commas");
  });

  it("keeps a comma before `]` or `:` an error, with no value changed", () => {
    for (const text of ['[FILE_OP:action=read:path="src/a.ts",]', '[FILE_OP:action=read:path="src/a.ts",:limit=5]']) {
      const result = parse(text);
      expect(result.commands).toEqual([]);
      expect(result.errors).toMatchObject([{ code: "unexpected_character" }]);
      expect(result.errors[0]!.message).toContain('found ","');
    }
  });

  it("says where the comma or semicolon stands, after which value", () => {
    expect(parse('[FILE_OP:action=read,path="src/a.ts"]').errors[0]).toMatchObject({
      span: { start: { column: 21 } },
      message: expect.stringContaining("after the value of action (at 1:21) the next parameter needs a `:`"),
    });
  });

  it("takes a `:` after a key, before a quoted value, for its `=`; the value stays data, and nothing runs", () => {
    const result = parse('[FILE_OP:action=write:path="a":content:"one\n[EXEC:action=run:command="rm x"]\n"]\n[FILE_OP:action=read:path="b"]');
    expect(result.commands.map((command) => command.span.start.line)).toEqual([4]);
    expect(result.errors).toMatchObject([{ code: "unexpected_character", span: { start: { line: 1, column: 39 } } }]);
    expect(result.errors[0]!.message).toContain("the key content is followed by `:` at 1:39, where its `=` belongs");
    expect(parse("[FILE_OP:action=read:path:limit=5]").errors[0]).toMatchObject({
      span: { start: { column: 26 } },
      message: expect.stringContaining("expected `=` or `<<` after the key path"),
    });
  });

  it("gives no hint when what follows a comma or semicolon is no next parameter", () => {
    for (const text of ["[FILE_OP:action=read; then more]", "[FILE_OP:action=read;]", "[FILE_OP:path=YQ==x]", '[FILE_OP:action=read path="a" then more]']) {
      const result = parse(text);
      expect(result.commands).toEqual([]);
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]!.hint).toBeUndefined();
    }
  });

  it("keeps a real stray quote a stray quote: its hint escapes it", () => {
    const result = parse('[FILE_OP:action=write:path="a.txt":content="say "hi" now"]');
    expect(result.errors[0]!.hint).toBe('[FILE_OP:action=write:path="a.txt":content="say \\"hi\\" now"]');
    expect(parse('[FILE_OP:action=read:path="src/a.ts", and more"]').errors[0]).toMatchObject({ code: "invalid_quoted" });
  });

  it("reports the same in one-character and random chunkings", () => {
    for (const { text } of SLIPS) expect(parseChunks([...text])).toEqual(parse(text));
    fc.assert(
      fc.property(fc.constantFrom(...SLIPS.map((slip) => slip.text)), fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((left, right) => left - right);
        const chunks = [0, ...points, text.length].slice(1).map((end, index, ends) => text.slice(index === 0 ? 0 : ends[index - 1], end));
        expect(parseChunks(chunks)).toEqual(parse(text));
      }),
      { numRuns: 300 },
    );
  });
});
