import { Lexer } from "chevrotain";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { brokenCommandArbitrary, printableCommandArbitrary } from "../../grammar/arbitraries.js";
import { print } from "../../grammar/index.js";
import { commandLexer, commandModes, Key } from "../../grammar/lexer.js";
import { ModeLexer } from "../../grammar/mode-lexer.js";
import { piecesTextArbitrary } from "./support.js";

// The reference: Chevrotain's own Lexer on the same modes, as the grammar built it before.
const chevrotainLexer = new Lexer(commandModes, { positionTracking: "onlyOffset", ensureOptimizations: false, skipValidations: true });

/** What both lexers give, with each token's type named. */
function lexedBy(tokenize: (text: string) => ReturnType<ModeLexer["tokenize"]>, text: string) {
  const { tokens, errors } = tokenize(text);
  return { tokens: tokens.map(({ tokenType, ...token }) => ({ ...token, type: tokenType.name })), errors };
}

function expectSameAsChevrotain(text: string): void {
  expect(lexedBy((input) => commandLexer().tokenize(input), text)).toEqual(lexedBy((input) => chevrotainLexer.tokenize(input), text));
}

const PIECES = [
  "[A:",
  "[Ab_1:",
  "k=1",
  "k =",
  "= ",
  "]",
  "]]",
  '"x]"',
  '"a\\"b"',
  '"\\u00e9"',
  '"bad\\x"',
  "<<EOF\n",
  "<<EOF  \r\n",
  "\nEOF\n",
  "EOF",
  "EOF \n",
  "<<",
  "<",
  ":",
  "=",
  "==",
  "\\",
  "\n",
  "\r\n",
  "\r",
  " ",
  "\t",
  "!",
  "é",
  "😀",
  "a/b+c",
  "-x",
  "~",
];
const commandLikeText = fc.oneof(
  fc.string({ unit: fc.constantFrom("[", "]", ":", "=", "<", "A", "k", "1", " ", "\n", "\r", "\t", '"', "\\", "E", "O", "F", "+", "é"), maxLength: 80 }),
  piecesTextArbitrary(PIECES, 30),
  fc.string({ unit: "binary", maxLength: 40 }),
);

describe("the command lexer tokenizes as Chevrotain's Lexer does", () => {
  it("on printed commands of every form", () => {
    fc.assert(
      fc.property(printableCommandArbitrary(), (command) => expectSameAsChevrotain(print(command))),
      { numRuns: 400 },
    );
  });

  it("on broken commands and text around commands", () => {
    fc.assert(
      fc.property(brokenCommandArbitrary(), fc.string({ maxLength: 8 }), (command, around) => expectSameAsChevrotain(`${around}${command}${around}`)),
      { numRuns: 400 },
    );
  });

  it("on text made of the grammar's characters, errors and their recovery included", () => {
    fc.assert(
      fc.property(commandLikeText, (text) => expectSameAsChevrotain(text)),
      { numRuns: 1500 },
    );
  });

  it("on the cases that reach its error paths", () => {
    for (const text of ["[A:k=!]", "[A:k=1 ! 2]", "[A:k<<EOF\nbody\n]", '[A:k="\u0001"]', "[A:é=1]", "", "[", "]", "[A:k=1]x]", "[A:k<<EOF\nb\nEOF]"]) {
      expectSameAsChevrotain(text);
    }
    expect(commandLexer().tokenize("[A:k=!]").errors).toEqual([
      { offset: 5, line: undefined, column: undefined, length: 2, message: "unexpected character: ->!<- at offset: 5, skipped 2 characters." },
    ]);
  });

  it("reports a pop with an empty mode stack as Chevrotain does", () => {
    const popping = new ModeLexer({ defaultMode: "only", modes: { only: [Key, { ...Key, name: "Pop", PATTERN: /;/, POP_MODE: true }] } });
    const reference = new Lexer(
      { defaultMode: "only", modes: { only: [Key, { ...Key, name: "Pop", PATTERN: /;/, POP_MODE: true }] } },
      { positionTracking: "onlyOffset", skipValidations: true },
    );
    expect(lexedBy((text) => popping.tokenize(text), "a;b")).toEqual(lexedBy((text) => reference.tokenize(text), "a;b"));
  });

  it("refuses a pattern kind it does not handle when it is built", () => {
    expect(() => new ModeLexer({ defaultMode: "only", modes: { only: [{ ...Key, PATTERN: /k/i }] } })).toThrow(/flags it does not support/);
    expect(() => new ModeLexer({ defaultMode: "only", modes: { only: [{ ...Key, PATTERN: "k" }] } })).toThrow(/not supported/);
  });
});
