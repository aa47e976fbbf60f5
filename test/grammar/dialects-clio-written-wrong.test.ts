/**
 * A command of this language written wrong so that it is no command start (§1), but plainly a call
 * naming a registered protocol (§4a): its action written without its `action=` (`[FILE_OP:read]`,
 * `[FILE_OP:read:path="a.ts"]`), or the command written without its brackets on a line of its own
 * (`FILE_OP:action=read:path="a.ts"`). It never runs, and is an error whose hint is the command.
 * The same in any chunking.
 */
import { describe, expect, it } from "vitest";
import { parse, print } from "../../grammar/index.js";
import { errorsOf, expectChunkingLaw, expectEveryChunking, expectText, mentionsOf, SMALL_VOCABULARY } from "./support.js";

const READ = '[FILE_OP:action=read:path="src/a.ts"]';

describe("an action written without `action=` after `[NAME:`", () => {
  it("is an error whose hint is the command, the other parameters as written; it does not run", () => {
    expect(errorsOf('[FILE_OP:read:path="src/a.ts"]')).toEqual([[READ, 1, 1]]);
    expect(errorsOf("[EXEC:run]")).toEqual([["[EXEC:action=run]", 1, 1]]);
    expect(errorsOf('Now [file_op:Read:path="src/a.ts":limit=20] to see it.')).toEqual([['[FILE_OP:action=read:path="src/a.ts":limit=20]', 1, 5]]);
    expect(parse("[EXEC:run]", SMALL_VOCABULARY).errors[0]!.message).toContain('without "action="');
  });

  it("with blanks around its word, its next parameter after blanks or a comma, or never closed, is the same error", () => {
    expect(errorsOf('[FILE_OP:read path="src/a.ts"]')).toEqual([[READ, 1, 1]]);
    expect(errorsOf('[FILE_OP: read, path="src/a.ts"]')).toEqual([[READ, 1, 1]]);
    expect(errorsOf('[FILE_OP: read : path="src/a.ts"]')).toEqual([[READ, 1, 1]]);
    expect(errorsOf("[EXEC: run ]")).toEqual([["[EXEC:action=run]", 1, 1]]);
    expect(errorsOf('[FILE_OP:read:path="src/a.ts"\n\nMore.')).toEqual([[READ, 1, 1]]);
  });

  it("written `action:` instead of `action=`, or with its one value unnamed, is the same error; the hint names the first parameter", () => {
    expect(errorsOf('[FILE_OP:action:read:path="src/a.ts"]')).toEqual([[READ, 1, 1]]);
    expect(errorsOf('Next [FILE_OP: ACTION : read path="src/a.ts"]')).toEqual([[READ, 1, 6]]);
    expect(errorsOf("[EXEC:action:run]")).toEqual([["[EXEC:action=run]", 1, 1]]);
    expect(errorsOf('[FILE_OP:read:"src/a.ts"]')).toEqual([[READ, 1, 1]]);
    expect(errorsOf('[EXEC:run:"npm test"]')).toEqual([['[EXEC:action=run:command="npm test"]', 1, 1]]);
    expect(parse('[FILE_OP:read:"src/a.ts"]', SMALL_VOCABULARY).errors[0]!.message).toContain("first parameter, path");
  });

  it("never closed and read on over a long stretch, has no hint that repeats it: the message says how to write it", () => {
    const [error] = parse(`[FILE_OP:read:path="a" ${"x".repeat(20_000)}`, SMALL_VOCABULARY).errors;
    expect(error).toMatchObject({ code: "unmapped_call" });
    expect(error!.hint).toBeUndefined();
    expect(error!.message.length).toBeLessThan(300);
  });

  it("in inline code is a mention whose hint is the command", () => {
    expect(mentionsOf('Write `[FILE_OP:read:path="src/a.ts"]` next.')).toEqual([["inline-code", READ]]);
  });

  it("stays text when the word is no action of that protocol, more words follow it, or the name is no protocol", () => {
    expectText([
      "[NOTE: read this]",
      "[EXEC: the run is clean]",
      "[EXEC: run it]",
      "[EXEC: run it now]",
      "[EXEC:run, then]",
      "[FILE_OP:later]",
      "[x:y]",
      "[docs](http://x)",
      "[FILE_OP:\nread]",
      "[read_file:read]",
      "[NOTE:action:later]",
      "[EXEC:action:explode]",
      "[EXEC:action:run it]",
    ]);
  });

  it("leaves commands as they were: `[NAME:action=…]` runs, `[NAME:{…}]` is read as before", () => {
    expect(expectEveryChunking(`${READ} [FILE_OP:read]`).commands.map((command) => print(command))).toEqual([READ]);
    expect(expectEveryChunking('[FILE_OP: {"action": "read", "path": "src/a.ts"}]').commands.map((command) => print(command))).toEqual([READ]);
  });
});

describe("a command written without its brackets on a line of its own", () => {
  it("is an error whose hint is the command in brackets; it does not run", () => {
    expect(errorsOf('FILE_OP:action=read:path="src/a.ts"')).toEqual([[READ, 1, 1]]);
    expect(errorsOf('Let me read it.\n  FILE_OP: action = read : path="src/a.ts"\nDone.')).toEqual([[READ, 2, 3]]);
    expect(errorsOf("EXEC:action=run\n")).toEqual([["[EXEC:action=run]", 1, 1]]);
    expect(parse("EXEC:action=run", SMALL_VOCABULARY).errors[0]!.message).toContain("without its brackets");
  });

  it("with its action after a `.` (`FILE_OP.read:path=…`) is the same error", () => {
    expect(errorsOf('FILE_OP.read:path="src/a.ts"')).toEqual([[READ, 1, 1]]);
    expect(errorsOf("Checking.\n  EXEC.run: timeout=3\n")).toEqual([["[EXEC:action=run:timeout=3]", 2, 3]]);
  });

  it("in a fence is a mention whose hint is the command", () => {
    expect(mentionsOf('```\nFILE_OP:action=read:path="src/a.ts"\n```')).toEqual([["fence", READ]]);
  });

  it("stays text in the middle of a line, with no `KEY=` after the colon, in another case, or with a tag or bracket on its line", () => {
    expectText([
      "Use FILE_OP:action=read to read a file.",
      "FILE_OP: the file tool",
      "FILE_OP:read",
      "file_op:action=read",
      "Note: this is prose",
      'FILE_OP:action=read:path="a" <b>',
      "read_file:path=a",
      'FILE_OP.explode:path="a"',
      "FILE_OP.read: the file",
      'Then FILE_OP.read:path="a" in a sentence',
    ]);
    expect(expectEveryChunking('FILE_OP:action=read [FILE_OP:action=read:path="src/a.ts"]').commands.map((command) => print(command))).toEqual([READ]);
    expect(expectEveryChunking('Action: read_file\nAction Input: {"path": "src/a.ts"}').commands.map((command) => print(command))).toEqual([READ]);
  });
});

const PIECES = [
  "[FILE_OP:read",
  "[EXEC:",
  "run",
  " ",
  ":",
  "]",
  'path="src/a.ts"',
  "[FILE_OP:action=read]",
  "\n",
  "\n\n",
  "`",
  "prose ",
  "{",
  "read_file(",
  "[",
  "x",
  "FILE_OP:",
  "action=read",
  "=",
  "<b>",
  "```\n",
  ",",
  " path=",
  "action:",
  "FILE_OP.read:",
  '"src/a.ts"',
];

describe("laws", () => {
  it("any chunking of actions written without `action=`, commands without brackets, commands and prose gives the one-shot result", () => {
    expectChunkingLaw(PIECES, 24);
  });
});
