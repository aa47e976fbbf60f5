/**
 * A value in single or typographic quotes or backticks (`path='a.ts'`, `path=“a.ts”`,
 * `command=\`npm test\``, a fenced block), as models write a quoted value: never run, an error whose
 * hint has it in straight double quotes; read as data to its
 * closing quote, so command-shaped text inside it never runs, in any chunking.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";
import { parseChunks } from "./support.js";

const READ = '[FILE_OP:action=read:path="src/a.ts"]';

const SLIPS: Array<{ text: string; hint: string }> = [
  { text: "[FILE_OP:action=read:path='src/a.ts']", hint: READ },
  { text: "Reading it: [FILE_OP:action=read:path=“src/a.ts”] now.", hint: READ },
  { text: "[FILE_OP:action=read:path=”src/a.ts”]", hint: READ },
  { text: "[FILE_OP:action=read:path='src/a.ts':limit=5]", hint: '[FILE_OP:action=read:path="src/a.ts":limit=5]' },
  { text: "[FILE_OP:action=read : path = 'src/a.ts'\n : limit=5\n]", hint: '[FILE_OP:action=read : path = "src/a.ts"\n : limit=5\n]' },
  { text: "[FILE_OP:action=write:path='a.txt':content='it's [X:a='b'] \"fine\"']", hint: '[FILE_OP:action=write:path="a.txt":content="it\'s [X:a=\'b\'] \\"fine\\""]' },
  { text: "[FILE_OP:action=write:path='a.txt':content<<EOF\nx\nEOF\n]", hint: '[FILE_OP:action=write:path="a.txt":content<<EOF\nx\nEOF\n]' },
  { text: "[EXEC:action=run:command=`npm test`]", hint: '[EXEC:action=run:command="npm test"]' },
  {
    text: '[FILE_OP:action=write:path="a.sh":content=```sh\necho hi\n[EXEC:action=run:command="rm x"]\n```]',
    hint: '[FILE_OP:action=write:path="a.sh":content="echo hi\\n[EXEC:action=run:command=\\"rm x\\"]"]',
  },
];

describe("a value in single or typographic quotes", () => {
  it.each(SLIPS)("$text: nothing runs, and the hint is the command in double quotes", ({ text, hint }) => {
    const result = parse(text);
    expect(result.commands).toEqual([]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ code: "invalid_quoted", hint });
    expect(parse(hint)).toMatchObject({ errors: [], mentions: [] });
    expect(parse(hint).commands).toHaveLength(1);
  });

  it("says which value and which quotes", () => {
    expect(parse(SLIPS[0]!.text).errors[0]!.message).toContain("the value of path at 1:27 is in single quotes");
    expect(parse(SLIPS[1]!.text).errors[0]!.message).toContain("is in typographic quotes");
    expect(parse("[EXEC:action=run:command=`npm test`]").errors[0]!.message).toContain("is in backticks");
  });

  it("never runs command-shaped text inside the value, over lines too; commands after it run", () => {
    const text = '[FILE_OP:action=write:path="a":content=\'line1\n[EXEC:action=run:command="rm x"]\nline3\']\nafter [FILE_OP:action=read:path="b"]';
    const result = parse(text);
    expect(result.commands.map((command) => command.protocol)).toEqual(["FILE_OP"]);
    expect(result.commands[0]!.span.start.line).toBe(4);
    expect(result.errors[0]!.hint).toBe('[FILE_OP:action=write:path="a":content="line1\\n[EXEC:action=run:command=\\"rm x\\"]\\nline3"]');
    expect(parse("[EXEC:action=run:command='echo [FILE_OP:action=delete:path=\"src\"]']").commands).toEqual([]);
  });

  it("never closed, takes the rest as its value: nothing after it runs, and no hint guesses its end", () => {
    const result = parse('[FILE_OP:action=write:path="a":content=\'never closed\n[EXEC:action=run:command="rm x"]\n');
    expect(result.commands).toEqual([]);
    expect(result.errors).toMatchObject([{ code: "unterminated_quoted" }]);
    expect(result.errors[0]!.hint).toBeUndefined();
    const later = parse("[FILE_OP:action=write:path='a':content='never closed\n[EXEC:action=run:command=\"rm x\"]\n");
    expect(later.commands).toEqual([]);
    expect(later.errors[0]!.hint).toBeUndefined();
  });

  it("with text after its closing quote that is no `]` or next parameter, is the ordinary error, with no hint", () => {
    const result = parse("[FILE_OP:action=read:path='a' and more]");
    expect(result.commands).toEqual([]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.hint).toBeUndefined();
  });

  it("in a fence or inline code is a mention, as any command there", () => {
    expect(parse("```\n[FILE_OP:action=read:path='src/a.ts']\n```").mentions).toMatchObject([{ context: "fence" }]);
    expect(parse("Write `[FILE_OP:action=read:path='src/a.ts']` then.").mentions).toMatchObject([{ context: "inline-code" }]);
  });

  it("reports the same in one-character and random chunkings", () => {
    const texts = [...SLIPS.map((slip) => slip.text), '[FILE_OP:action=write:path="a":content=\'x\n[EXEC:action=run:command="rm"]\ny\']\n[FILE_OP:action=read:path="b"]'];
    for (const text of texts) expect(parseChunks([...text])).toEqual(parse(text));
    fc.assert(
      fc.property(fc.constantFrom(...texts), fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((left, right) => left - right);
        const chunks = [0, ...points, text.length].slice(1).map((end, index, ends) => text.slice(index === 0 ? 0 : ends[index - 1], end));
        expect(parseChunks(chunks)).toEqual(parse(text));
      }),
      { numRuns: 300 },
    );
  });
});
