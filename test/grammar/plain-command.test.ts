import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { printableCommandArbitrary } from "../../grammar/arbitraries.js";
import type { Position } from "../../grammar/ast.js";
import { parseCommandText, parseCommandTextInFull } from "../../grammar/parser.js";
import { plainCommand } from "../../grammar/plain-command.js";
import { print } from "../../grammar/printer.js";

/** Where a command may start: anywhere in a script. */
const starts: fc.Arbitrary<Position> = fc.record({ offset: fc.nat(100_000), line: fc.integer({ min: 1, max: 5000 }), column: fc.integer({ min: 1, max: 200 }) });

/** The plain form's reading, when it gives one, is the lexer and parser's to the letter (key order included); otherwise they read the text. */
function expectSameReading(text: string, start: Position): void {
  const plain = plainCommand(text, start);
  const full = parseCommandTextInFull(text, start);
  if (plain !== undefined) {
    expect(full.ok).toBe(true);
    expect(plain).toStrictEqual(full.ok ? full.command : undefined);
    expect(JSON.stringify(plain)).toBe(JSON.stringify(full.ok ? full.command : undefined));
  }
  expect(parseCommandText(text, start)).toStrictEqual(full);
}

/** Text that is nearly a plain command: its pieces, in any order, between `[` and `]`. */
const PIECES = ["[", "]", ":", "=", "==", '"', "\\", " ", "\t", "\n", "\r", "<<", "EOF", "A", "a", "Z9", "_", "-", "+/", ".,@%~", "é", "\u0000", "k", "path", "FILE_OP"];
const nearPlain = fc.array(fc.constantFrom(...PIECES), { maxLength: 14 }).map((pieces) => `[${pieces.join("")}]`);
/** Text made of plain commands' own pieces: names, keys, `=` and bare or quoted values. */
const plainShaped = fc
  .tuple(
    fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,6}$/),
    fc.array(
      fc.tuple(
        fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,5}$/),
        fc.oneof(
          fc.stringMatching(/^[A-Za-z0-9+/_.,@%~-]{0,8}={0,3}$/),
          fc.string({ maxLength: 8 }).map((text) => `"${text}"`),
        ),
      ),
      {
        minLength: 0,
        maxLength: 4,
      },
    ),
  )
  .map(([name, parameters]) => `[${name}:${parameters.map(([key, value]) => `${key}=${value}`).join(":")}]`);

const start = { offset: 40, line: 3, column: 7 };

describe("plainCommand", () => {
  it("reads the common forms without the lexer, as the lexer and parser read them", () => {
    const plain = [
      "[FILE_OP:action=read:path=c3JjL2EudHM=]",
      '[FILE_OP:action=read:path="src/a.ts"]',
      '[file_op:action=read:path="日本/😀 a].ts":offset=3]',
      "[X:k=a==]",
      '[X:k=""]',
      "[X:_-=+/_.,@%~-]",
    ];
    for (const text of plain) expect(plainCommand(text, start), text).toBeDefined();
    for (const text of plain) expectSameReading(text, start);
  });

  it("leaves every other form to the lexer and parser: whitespace, escapes, heredocs, line breaks, a key twice, no parameter", () => {
    const others = ["[FILE_OP:action=read: path=eA==]", "[FILE_OP:action=read:path= eA==]", "[FILE_OP action=read]", '[X:k="a\\"b"]', '[X:k="a\tb"]'];
    others.push("[X:k<<EOF\nbody\nEOF\n]", "[X:k=a\nb]", "[X:k=a:k=b]", "[X:]", "[X:k=]", "[X:k=a=b]", "[X:k=é]", "[X:k=a]]");
    for (const text of others) expect(plainCommand(text, start), text).toBeUndefined();
    for (const text of others) expectSameReading(text, start);
  });

  it("reads printed commands as the lexer and parser do", () => {
    fc.assert(
      fc.property(printableCommandArbitrary(), starts, (command, start) => expectSameReading(print(command), start)),
      { numRuns: 3000 },
    );
  });

  it("never reads a near-miss otherwise than the lexer and parser", () => {
    fc.assert(
      fc.property(fc.oneof(nearPlain, plainShaped), starts, (text, start) => expectSameReading(text, start)),
      { numRuns: 20_000 },
    );
  });
});
