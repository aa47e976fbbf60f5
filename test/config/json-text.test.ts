import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findJsonErrorOffset, parseJsonText } from "../../src/config/json-text.js";

describe("parseJsonText", () => {
  it("returns the value of valid JSON", () => {
    expect(parseJsonText('{"a": [1, 2.5e3, true, null, "x\\u00e9"]}')).toEqual({ ok: true, value: { a: [1, 2500, true, null, "xé"] } });
  });

  it.each([
    ['{\n  "a": 1,\n}', 3, 1, 'unexpected "}"'],
    ['{\n  "a": tru\n}', 2, 11, 'unexpected "\\n"'],
    ['{"a": 1', 1, 8, "the JSON ends too early (truncated?)"],
    ["   ", 1, 4, "the file is empty"],
    ['{"a": "b\nc"}', 1, 9, 'unexpected "\\n"'],
    ['{"a": 01}', 1, 8, 'unexpected "1"'],
    ["[1] [2]", 1, 5, 'unexpected "["'],
  ])("locates the error in %j at line %i, column %i", (text, line, column, message) => {
    expect(parseJsonText(text)).toMatchObject({ ok: false, line, column, message });
  });

  it("agrees with JSON.parse on what is valid", () => {
    const jsonish = fc.oneof(
      fc.json(),
      fc.json().map((text) => text.slice(0, Math.floor(text.length / 2))),
      fc.tuple(fc.json(), fc.string({ maxLength: 3 }), fc.nat()).map(([text, noise, at]) => {
        const index = at % (text.length + 1);
        return text.slice(0, index) + noise + text.slice(index);
      }),
    );
    fc.assert(
      fc.property(jsonish, (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(findJsonErrorOffset(text) === undefined).toBe(valid);
      }),
      { numRuns: 500, seed: 42 },
    );
  });
});
