/**
 * clio recognises a command twice: the streaming command machine finds where a command starts
 * and ends, then the Chevrotain lexer and parser (grammar/parser.ts) read that span into a
 * syntax tree. These laws prove the two accept the same language: over generated commands and
 * over near-misses (commands with a character deleted, inserted, replaced or cut off), the
 * machine takes a text as one whole command exactly when Chevrotain does, and when both take it
 * they agree on every key, form and value.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commandShapedArbitrary, nearMissArbitrary, printableCommandArbitrary } from "../../grammar/arbitraries.js";
import { parse, print } from "../../grammar/index.js";
import { compareRecognisers } from "../../src/fuzz/recognisers.js";

/** How many texts each verdict got, so a law that only ever saw one kind cannot pass unnoticed. */
type Tally = { whole: number; refused: number };

function agree(text: string, tally: Tally = { whole: 0, refused: 0 }): void {
  const agreement = compareRecognisers(text, { parse });
  // A repeated key is refused after both have read the command; it says nothing about the language.
  fc.pre(agreement.kind !== "duplicate");
  expect(agreement.kind === "disagree" ? { text, problem: agreement.problem, machine: agreement.machine, chevrotain: agreement.chevrotain } : { text }).toEqual({ text });
  if (agreement.kind === "agree") tally[agreement.whole ? "whole" : "refused"]++;
}

describe("the command machine and the Chevrotain grammar", () => {
  it("both take every printed command whole, and read it the same", () => {
    fc.assert(
      fc.property(printableCommandArbitrary(), (command) => {
        const agreement = compareRecognisers(print(command), { parse });
        expect(agreement.kind === "agree" && agreement.whole ? "whole" : agreement).toBe("whole");
      }),
      { numRuns: 300 },
    );
  });

  it("agree on near-misses: a command with characters deleted, inserted, replaced or cut off", () => {
    const tally = { whole: 0, refused: 0 };
    fc.assert(
      fc.property(nearMissArbitrary(), (text) => agree(text, tally)),
      { numRuns: Number(process.env.CLIO_RECOGNISER_RUNS ?? 1500) },
    );
    expect(tally.whole).toBeGreaterThan(100);
    expect(tally.refused).toBeGreaterThan(100);
  });

  it("agree on short command-shaped texts", () => {
    const tally = { whole: 0, refused: 0 };
    fc.assert(
      fc.property(commandShapedArbitrary(), (text) => agree(text, tally)),
      { numRuns: Number(process.env.CLIO_RECOGNISER_RUNS ?? 1500) },
    );
    expect(tally.whole).toBeGreaterThan(50);
    expect(tally.refused).toBeGreaterThan(100);
  });

  it("agree on hand-picked near-misses", () => {
    const cases = [
      "[A:k=1]",
      "[A:k=1",
      "[A:k=]",
      "[A:=1]",
      "[A k=1]",
      "[A:k=1:]",
      "[A:k=1::j=2]",
      '[A:k="x]',
      '[A:k="x\\"]',
      '[A:k="x"y]',
      "[A:k=a b]",
      "[A:k=a  b]",
      "[A:k=a\nb]",
      "[A:k<<EOF\nbody\nEOF\n]",
      "[A:k<<EOF\nbody\nEOF]",
      "[A:k<<EOF\nbody\n EOF\n]",
      "[A:k<<EOF body\nEOF\n]",
      "[A:k<<\nbody\n\n]",
      "[A:k=1 ]",
      "[A:k=1\n]",
      "[A: k=1]",
      "[A:k =1]",
      "[A:k= 1]",
      "[1A:k=1]",
      "[A:-k=1]",
      "[A:k=é]",
      "[A:k=1]]",
    ];
    for (const text of cases) {
      const agreement = compareRecognisers(text, { parse });
      expect({ text, kind: agreement.kind }).toEqual({ text, kind: "agree" });
    }
  });
});
