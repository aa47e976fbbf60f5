import { describe, expect, it } from "vitest";
import { closestLines } from "../../tools/files/similar.js";

describe("closestLines", () => {
  it("finds the window most like the text, comparing up to 40 of its lines", () => {
    const text = ["alpha one", "beta two", "gamma three", "delta four"].join("\n");
    expect(closestLines(text, "beta twoo\ngamma three")).toMatchObject({ startLine: 2, lines: ["beta two", "gamma three"], comparedLines: 2 });
  });

  it("compares fewer lines of the text in a large file, so a failed replace never stalls clio for long", () => {
    const line = (seed: number) => `${seed}:${Array.from({ length: 400 }, (_, index) => String.fromCharCode(33 + ((seed * 31 + index * 7) % 90))).join("")}`;
    const text = Array.from({ length: 19_000 }, (_, index) => line(index)).join("\n");
    const needle = Array.from({ length: 40 }, (_, index) => line(index + 500)).join("\n");
    const closest = closestLines(text, needle)!;
    expect(closest.comparedLines).toBeLessThanOrEqual(2);
    expect(closest.startLine).toBe(501);
  });
});
