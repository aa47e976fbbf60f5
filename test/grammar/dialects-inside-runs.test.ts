/**
 * Inside a candidate (a near-miss's body, a function call's arguments, a JSON object) the
 * recognizer passes a run of characters that change nothing in one loop: inside a string, all
 * but a backslash, the quote and a line feed; outside, after a character that is not a blank,
 * all but quotes, brackets, braces, parentheses and line feeds. The law: reading a text in one
 * chunk finds exactly what reading it one character at a time finds, where every character is
 * its own step.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DialectRecognizer } from "../../grammar/dialects/recognizer.js";
import { dialectFindings, piecesTextArbitrary, SMALL_VOCABULARY } from "./support.js";

/** Openers of each kind of candidate, and pieces of their insides. */
const PIECES = [
  "[FILE_OP action=read ",
  "[FILE_OP:{",
  "［FILE_OP：action=read：",
  "FILE_OP.read(",
  "read_file(",
  '{"name": "read_file", "arguments": {',
  'path="a b"',
  'path="a\\"b]"',
  "path='x)'",
  'path="(x]"',
  '"path": "a\\\\"',
  '"limit": 4',
  "limit=4",
  "content=abc",
  " ",
  "\t",
  "\r",
  "\u3000",
  "\n",
  "\n\n",
  "]",
  "］",
  ")",
  "}",
  "}}",
  "(",
  "[",
  "{",
  '"',
  "'",
  "\\",
  ",",
  ":",
  "x",
  "é",
];

describe("runs inside a candidate passed in one loop", () => {
  it("find what reading every character as its own step finds", () => {
    fc.assert(
      fc.property(piecesTextArbitrary(PIECES, 30), (pieces) => {
        // Padded past the small-chunk length, so the whole text takes the long-chunk path.
        const text = `${pieces}\n${" ".repeat(20)}`;
        expect(dialectFindings(SMALL_VOCABULARY, text, true)).toBe(dialectFindings(SMALL_VOCABULARY, text, false));
      }),
      { numRuns: 1500 },
    );
  });

  it("still end a candidate at its closer, and not at one inside a string", () => {
    const calls = ['[FILE_OP action=read path="a]b"]', 'FILE_OP.read(path="a)b")', "FILE_OP.read(path='a)b')", '{"name": "read_file", "arguments": {"path": "a}\\"b"}}'];
    for (const call of calls) {
      const recognizer = new DialectRecognizer(SMALL_VOCABULARY);
      recognizer.feed(`${call}\n${" ".repeat(20)}`);
      recognizer.finish();
      expect(
        recognizer.found.map((finding) => finding.end.offset),
        call,
      ).toEqual([call.length]);
    }
  });
});
