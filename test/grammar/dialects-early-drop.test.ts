/**
 * In a long chunk the recognizer drops the words after a `[` before reading them when the
 * near-miss reader is sure to drop them: no registered name begins with their first two
 * characters (`[docs]`), or they are this language's own start (`[FILE_OP:action…`). The law:
 * it finds exactly what it finds reading one character at a time, where every `[` word is read.
 * Read a character at a time through `quiet`, the same words are dropped after their first one
 * or two letters (`NearNameReader.namesNothing`), with the same law.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DialectRecognizer } from "../../grammar/dialects/recognizer.js";
import { CallVocabulary } from "../../grammar/index.js";
import { dialectFindings, SMALL_VOCABULARY } from "./support.js";

/** A one-letter protocol (`[X_run …`, `[x.run`) and a one-letter tool name beside the usual ones. */
const ONE_LETTER = new CallVocabulary({
  protocols: [
    { name: "X", actions: { run: { parameters: { command: "text" } } } },
    { name: "FILE_OP", actions: { read: { parameters: { path: "text" } } } },
  ],
  aliases: { q: { protocol: "X", action: "run" }, read_file: { protocol: "FILE_OP", action: "read" } },
});

const PIECES = [
  "[docs]",
  "[do it]",
  "[FILE_OP:action=read:path=a]",
  "[FILE_OP:",
  "[FILE_OP: {",
  '[FILE_OP:{"action": "read", "path": "a"}]',
  '[file_op action=read path="a"]',
  "[Fi",
  "[fI",
  "[FILE OP action=read path=a]",
  "[ FILE_OP action=read]",
  "[read_file path=a]",
  "[READ_FILE path=a]",
  "[re]",
  "[X_run command=ls]",
  "[x.run command=ls]",
  "[X command=ls]",
  "[q command=ls]",
  "[qq command=ls]",
  "[Q:command=ls]",
  "［FILE_OP：action=read］",
  "［docs］",
  "[EXEC:action=run:command=ls]",
  "[exec run]",
  "[foo(x=1), ",
  '[do(x="]"), read_file(path="a")]',
  'read_file(path="a")]',
  "[do(",
  "[_x(",
  "[dox",
  "(",
  ")",
  ",",
  "<",
  " ",
  ":",
  "\n",
  "x",
  "]",
  "{",
];

describe("words after `[` dropped before they are read", () => {
  for (const [name, vocabulary] of [
    ["the usual names", SMALL_VOCABULARY],
    ["a one-letter protocol and tool name", ONE_LETTER],
  ] as const) {
    it(`finds what reading every word finds, with ${name}`, () => {
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }), (pieces) => {
          // Padded past the small-chunk length, so the whole text takes the long-chunk path.
          const text = `${pieces.join("")}\n${" ".repeat(20)}`;
          expect(dialectFindings(vocabulary, text, true)).toBe(dialectFindings(vocabulary, text, false));
        }),
        { numRuns: 500 },
      );
    });
  }

  for (const [name, vocabulary] of [
    ["the usual names", SMALL_VOCABULARY],
    ["a one-letter protocol and tool name", ONE_LETTER],
  ] as const) {
    it(`drops them after their first one or two letters when read a character at a time, in any mix with short chunks, with ${name}`, () => {
      fc.assert(
        fc.property(
          fc.array(fc.constantFrom(...PIECES, "[  ", "[   d"), { maxLength: 30 }),
          fc.array(fc.constantFrom(1, 1, 1, 2, 3), { minLength: 1, maxLength: 8 }),
          (pieces, sizes) => {
            const text = `${pieces.join("")}\n`;
            const recognizer = new DialectRecognizer(vocabulary);
            for (let at = 0, turn = 0; at < text.length; turn++) {
              const chunk = text.slice(at, at + sizes[turn % sizes.length]!);
              // One character goes to `quiet` first, as the call scanner sends it; the rest is read by `feed`.
              if (chunk.length > 1 || !recognizer.quiet(chunk)) recognizer.feed(chunk);
              at += chunk.length;
            }
            recognizer.finish();
            expect(JSON.stringify(recognizer.found)).toBe(dialectFindings(vocabulary, text, false));
          },
        ),
        { numRuns: 500 },
      );
    });
  }

  it("still reads the near-misses it must", () => {
    for (const text of ['[file_op action=read path="a"]\n', "[X_run command=ls]\n", "[q command=ls]\n", '[FILE_OP:{"action": "read", "path": "a"}]\n']) {
      const recognizer = new DialectRecognizer(ONE_LETTER);
      recognizer.feed(text.padEnd(40, " "));
      recognizer.finish();
      expect(recognizer.found.length, text).toBe(1);
    }
  });
});
