import { describe, expect, it } from "vitest";
import { formatCount, plural } from "../../tools/format.js";

describe("formatCount", () => {
  it("writes counts as toLocaleString('en-US') does, with or without its shortcut for positive whole numbers", () => {
    const large = Array.from({ length: 2000 }, (_, index) => Math.floor(Number.MAX_SAFE_INTEGER / 1.37 ** index));
    const counts = [
      ...Array.from({ length: 2100 }, (_, index) => index),
      ...large,
      -0,
      -1,
      -999,
      -12_345,
      0.5,
      999.5,
      1234.5,
      12_345,
      1_000_000,
      Number.MAX_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER + 2,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      1e21,
    ];
    for (const count of counts) expect(formatCount(count)).toBe(count.toLocaleString("en-US"));
    expect(plural(1234, "line")).toBe("1,234 lines");
    expect(plural(1, "line")).toBe("1 line");
    expect(plural(0, "file")).toBe("0 files");
    expect(formatCount(-0)).toBe("-0");
  });
});
