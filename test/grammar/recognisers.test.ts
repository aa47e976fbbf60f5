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
import { printableCommandArbitrary } from "../../grammar/arbitraries.js";
import type { Command } from "../../grammar/ast.js";
import { parse, print } from "../../grammar/index.js";
import { parseCommandText } from "../../grammar/parser.js";

const origin = { offset: 0, line: 1, column: 1 };

type Verdict = { whole: false } | { whole: true; command: Command };

/** The streaming machine's verdict: did it find one command spanning the whole text? */
function machineVerdict(text: string): Verdict {
  const result = parse(text);
  const first = result.commands[0];
  const wholeError = result.errors.some((error) => error.span.start.offset === 0 && error.message.startsWith("internal"));
  if (wholeError) throw new Error(`the machine took ${JSON.stringify(text)} as a command that Chevrotain could not read`);
  return first !== undefined && first.span.start.offset === 0 && first.span.end.offset === text.length ? { whole: true, command: first } : { whole: false };
}

/** Chevrotain's verdict on the same text, read as one command from its first character. */
function chevrotainVerdict(text: string): Verdict | "duplicate" {
  const result = parseCommandText(text, origin);
  if (!result.ok) return result.error.code === "duplicate_key" ? "duplicate" : { whole: false };
  return { whole: true, command: result.command };
}

/** How many texts each verdict got, so a law that only ever saw one kind cannot pass unnoticed. */
type Tally = { whole: number; refused: number };

function agree(text: string, tally: Tally = { whole: 0, refused: 0 }): void {
  const chevrotain = chevrotainVerdict(text);
  // A repeated key is refused after both have read the command; it says nothing about the language.
  fc.pre(chevrotain !== "duplicate");
  const machine = machineVerdict(text);
  expect({ text, whole: machine.whole }).toEqual({ text, whole: chevrotain.whole });
  if (machine.whole && chevrotain.whole) expect(machine.command).toEqual(chevrotain.command);
  tally[machine.whole ? "whole" : "refused"]++;
}

/** Characters that change how a command reads: delimiters, quotes, escapes, line breaks, tags. */
const SHARP = ["[", "]", ":", "=", "<", "<<", '"', "\\", "\n", "\r", " ", "\t", "'", "`", "E", "O", "F", "-", "_", "+", "/", "a", "0", "é", "😀", "\u0000"];

type Edit = { kind: "delete" | "insert" | "replace"; at: number; piece: string } | { kind: "cut"; at: number };

const editArbitrary: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constantFrom("delete" as const, "insert" as const, "replace" as const), at: fc.nat(), piece: fc.constantFrom(...SHARP) }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
);

function applyEdit(text: string, edit: Edit): string {
  const at = text.length === 0 ? 0 : edit.at % text.length;
  if (edit.kind === "cut") return text.slice(0, at);
  if (edit.kind === "delete") return text.slice(0, at) + text.slice(at + 1);
  if (edit.kind === "insert") return text.slice(0, at) + edit.piece + text.slice(at);
  return text.slice(0, at) + edit.piece + text.slice(at + 1);
}

/** A printed command with one to three edits; the `[` at the start stays, so both read from there. */
const nearMissArbitrary = fc.tuple(printableCommandArbitrary(), fc.array(editArbitrary, { minLength: 1, maxLength: 3 })).map(([command, edits]) => {
  const printed = print(command);
  const edited = edits.reduce((text, edit) => `[${applyEdit(text.slice(1), edit)}`, printed);
  return edited;
});

/** Commands built from right and (less often) slightly wrong parts: names, keys, assignments, values, ends. */
const parameterShaped = fc
  .tuple(
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom("k", "k-1", "_x", "K9") }, fc.constantFrom("1k", "", " k", "k k")),
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom("=", "<<EOF\n") }, fc.constantFrom(" =", "= ", "==", "<<EOF \n", "<<EOF", "<<\n", "")),
    fc.constantFrom("x", "Zm9v", "Zm9v==", "a b", "a\nb", '"x"', '"x]"', '"x\\"', '"x', 'x"', "body\nEOF\n", "body\nEOF", "\nEOF\n", "x]", "é", ""),
  )
  .map((parts) => parts.join(""));

const commandShapedArbitrary = fc
  .tuple(
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom("A", "FILE_OP", "a1") }, fc.constantFrom("_A", "1A", " A", "A-B", "")),
    fc.oneof({ weight: 4, arbitrary: fc.constant(":") }, fc.constantFrom(" :", ": ", "")),
    fc.array(parameterShaped, { minLength: 1, maxLength: 3 }),
    fc.oneof({ weight: 4, arbitrary: fc.constant(":") }, fc.constantFrom("::", ": ", "\n:")),
    fc.oneof({ weight: 4, arbitrary: fc.constant("]") }, fc.constantFrom(" ]", "\n]", "", "]]", "] x")),
  )
  .map(([name, open, parameters, separator, close]) => `[${name}${open}${parameters.join(separator)}${close}`);

describe("the command machine and the Chevrotain grammar", () => {
  it("both take every printed command whole, and read it the same", () => {
    fc.assert(
      fc.property(printableCommandArbitrary(), (command) => {
        const text = print(command);
        const machine = machineVerdict(text);
        const chevrotain = chevrotainVerdict(text);
        expect(machine.whole).toBe(true);
        expect(chevrotain).toEqual(machine);
      }),
      { numRuns: 300 },
    );
  });

  it("agree on near-misses: a command with characters deleted, inserted, replaced or cut off", () => {
    const tally = { whole: 0, refused: 0 };
    fc.assert(
      fc.property(nearMissArbitrary, (text) => agree(text, tally)),
      { numRuns: Number(process.env.CLIO_RECOGNISER_RUNS ?? 1500) },
    );
    expect(tally.whole).toBeGreaterThan(100);
    expect(tally.refused).toBeGreaterThan(100);
  });

  it("agree on short command-shaped texts", () => {
    const tally = { whole: 0, refused: 0 };
    fc.assert(
      fc.property(commandShapedArbitrary, (text) => agree(text, tally)),
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
      const chevrotain = chevrotainVerdict(text);
      expect(chevrotain).not.toBe("duplicate");
      if (chevrotain === "duplicate") continue;
      const machine = machineVerdict(text);
      expect({ text, whole: machine.whole }).toEqual({ text, whole: chevrotain.whole });
      if (machine.whole && chevrotain.whole) expect(machine.command).toEqual(chevrotain.command);
    }
  });
});
