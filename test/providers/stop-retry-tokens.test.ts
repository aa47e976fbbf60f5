import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backoffDelay, defaultRetryPolicy, retryAfterDelay } from "../../src/providers/retry.js";
import { cutAtStop, StopSequenceCutter } from "../../src/providers/stop.js";
import { approximateTokens, estimateTokens } from "../../src/providers/tokens.js";

describe("StopSequenceCutter", () => {
  it("gives the same text for any chunking as for the whole text at once", () => {
    const alphabet = fc.constantFrom("a", "b", "\n", "U", ":");
    const text = fc.array(alphabet, { maxLength: 40 }).map((characters) => characters.join(""));
    const stops = fc.array(
      fc.array(alphabet, { minLength: 1, maxLength: 4 }).map((characters) => characters.join("")),
      { maxLength: 3 },
    );
    fc.assert(
      fc.property(text, stops, fc.array(fc.nat(6), { maxLength: 20 }), (whole, stopList, cuts) => {
        const cutter = new StopSequenceCutter(stopList);
        let kept = "";
        let start = 0;
        for (const size of cuts) {
          kept += cutter.push(whole.slice(start, start + size));
          start += size;
        }
        kept += cutter.push(whole.slice(start)) + cutter.flush();
        const expected = cutAtStop(whole, stopList);
        const earliest = Math.min(...stopList.map((stop) => whole.indexOf(stop)).filter((index) => index >= 0));
        expect(kept).toBe(expected.text);
        expect(expected.text).toBe(Number.isFinite(earliest) ? whole.slice(0, earliest) : whole);
      }),
    );
  });

  it("holds back a possible stop string until the next chunk decides", () => {
    const cutter = new StopSequenceCutter(["\nUser:"]);

    expect(cutter.push("Done.\nUs")).toBe("Done.");
    expect(cutter.push("ually fine")).toBe("\nUsually fine");
    expect(cutter.push("\nUser: hi")).toBe("");
    expect(cutter.stopped).toBe(true);
  });
});

describe("retry timing", () => {
  const headers = (values: Record<string, string>) => new Headers(values);

  it("doubles the backoff per attempt, with up to half taken off at random, up to the cap", () => {
    const policy = { ...defaultRetryPolicy, baseDelayMs: 1000, maxDelayMs: 5000 };

    expect([1, 2, 3, 4].map((attempt) => backoffDelay(attempt, policy, () => 1))).toEqual([1000, 2000, 4000, 5000]);
    expect(backoffDelay(2, policy, () => 0)).toBe(1000);
  });

  it("reads Retry-After in seconds, as an HTTP date, and retry-after-ms; capped", () => {
    const now = Date.parse("2026-03-01T12:00:00Z");
    const policy = { ...defaultRetryPolicy, maxRetryAfterMs: 10_000 };

    expect(retryAfterDelay(headers({ "retry-after": "2" }), policy, now)).toBe(2000);
    expect(retryAfterDelay(headers({ "retry-after": "Sun, 01 Mar 2026 12:00:07 GMT" }), policy, now)).toBe(7000);
    expect(retryAfterDelay(headers({ "retry-after-ms": "250", "retry-after": "9" }), policy, now)).toBe(250);
    expect(retryAfterDelay(headers({ "retry-after": "120" }), policy, now)).toBe(10_000);
    expect(retryAfterDelay(headers({ "retry-after": "soon" }), policy, now)).toBeUndefined();
    expect(retryAfterDelay(undefined, policy, now)).toBeUndefined();
  });
});

describe("token estimates", () => {
  it("counts with the tokenizer, special-token text included", async () => {
    expect(await estimateTokens("")).toBe(0);
    expect(await estimateTokens("hello world")).toBe(2);
    expect(await estimateTokens("a <|endoftext|> b")).toBeGreaterThan(3);
    expect(approximateTokens("hello world")).toBe(2);
  });
});
