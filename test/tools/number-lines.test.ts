import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { numberLines } from "../../tools/files/text.js";

/** The plain spelling of a numbered read: each line's number right-aligned, a `│`, the line. */
function plainlyNumbered(lines: string[], firstLine: number, width = String(firstLine + lines.length - 1).length): string {
  return lines.map((line, index) => `${String(firstLine + index).padStart(width)}│${line}`).join("\n");
}

describe("numberLines", () => {
  it("numbers lines as the plain spelling does, with remembered gutters and past them", () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 30 }), fc.constantFrom(1, 2, 9, 99, 8180, 8191, 8192, 10_000, 123_456), (lines, firstLine) => {
        // Twice: the second call takes the gutters the first one made.
        expect(numberLines(lines, firstLine)).toBe(plainlyNumbered(lines, firstLine));
        expect(numberLines(lines, firstLine)).toBe(plainlyNumbered(lines, firstLine));
        expect(numberLines(lines, firstLine, 7)).toBe(plainlyNumbered(lines, firstLine, 7));
      }),
      { numRuns: 300 },
    );
  });

  it("gives the same gutter for a number whatever the width asked before", () => {
    expect(numberLines(["a"], 5, 3)).toBe("  5│a");
    expect(numberLines(["a"], 5, 1)).toBe("5│a");
    expect(numberLines(["a", "b"], 9)).toBe(" 9│a\n10│b");
    expect(numberLines([], 1)).toBe("");
  });
});
