/**
 * A command of this language whose action is written without its `action=` (`[FILE_OP:read]`,
 * `[FILE_OP:read:path="a.ts"]`) is no command start (§1), but plainly a call naming a registered
 * protocol (§4a): it never runs, and is an error whose hint is the command. The same in any chunking.
 */
import { describe, expect, it } from "vitest";
import type { ParseResult } from "../../grammar/ast.js";
import { parse, print } from "../../grammar/index.js";
import { errorsOf, expectChunkingLaw, expectEveryChunking, SMALL_VOCABULARY } from "./support.js";

const READ = '[FILE_OP:action=read:path="src/a.ts"]';
const NOTHING: ParseResult = { commands: [], mentions: [], errors: [] };

describe("an action written without `action=` after `[NAME:`", () => {
  it("is an error whose hint is the command, the other parameters as written; it does not run", () => {
    expect(errorsOf('[FILE_OP:read:path="src/a.ts"]')).toEqual([[READ, 1, 1]]);
    expect(errorsOf("[EXEC:run]")).toEqual([["[EXEC:action=run]", 1, 1]]);
    expect(errorsOf('Now [file_op:Read:path="src/a.ts":limit=20] to see it.')).toEqual([['[FILE_OP:action=read:path="src/a.ts":limit=20]', 1, 5]]);
    expect(parse("[EXEC:run]", SMALL_VOCABULARY).errors[0]!.message).toContain('without "action="');
  });

  it("with blanks around its word, or never closed, is the same error", () => {
    expect(errorsOf('[FILE_OP: read : path="src/a.ts"]')).toEqual([[READ, 1, 1]]);
    expect(errorsOf("[EXEC: run ]")).toEqual([["[EXEC:action=run]", 1, 1]]);
    expect(errorsOf('[FILE_OP:read:path="src/a.ts"\n\nMore.')).toEqual([[READ, 1, 1]]);
  });

  it("in inline code is a mention whose hint is the command", () => {
    const result = expectEveryChunking('Write `[FILE_OP:read:path="src/a.ts"]` next.');
    expect(result.errors).toEqual([]);
    expect(result.mentions.map((mention) => [mention.context, mention.hint])).toEqual([["inline-code", READ]]);
  });

  it("stays text when the word is no action of that protocol, more words follow it, or the name is no protocol", () => {
    for (const prose of [
      "[NOTE: read this]",
      "[EXEC: the run is clean]",
      "[EXEC: run it]",
      "[FILE_OP:later]",
      "[x:y]",
      "[docs](http://x)",
      "[FILE_OP:\nread]",
      "[read_file:read]",
    ]) {
      expect(expectEveryChunking(prose), prose).toEqual(NOTHING);
    }
  });

  it("leaves commands as they were: `[NAME:action=…]` runs, `[NAME:{…}]` is read as before", () => {
    expect(expectEveryChunking(`${READ} [FILE_OP:read]`).commands.map((command) => print(command))).toEqual([READ]);
    expect(expectEveryChunking('[FILE_OP: {"action": "read", "path": "src/a.ts"}]').commands.map((command) => print(command))).toEqual([READ]);
  });
});

const PIECES = ["[FILE_OP:read", "[EXEC:", "run", " ", ":", "]", 'path="src/a.ts"', "[FILE_OP:action=read]", "\n", "\n\n", "`", "prose ", "{", "read_file(", "[", "x"];

describe("laws", () => {
  it("any chunking of actions written without `action=`, commands and prose gives the one-shot result", () => {
    expectChunkingLaw(PIECES, 24);
  });
});
