import { describe, expect, it } from "vitest";
import { mergeStart, type SegmentSize } from "../../tools/index/merge-policy.js";

const whole = (...chunks: number[]): SegmentSize[] => chunks.map((count) => ({ chunks: count, live: count }));

describe("which segments a merge rewrites", () => {
  it("keeps a first segment that outweighs all the newer ones, and merges those", () => {
    expect(mergeStart(whole(1000, 10, 10, 10, 10, 10, 10, 10, 10))).toBe(1);
  });

  it("merges only the newer small segments after a build's segments of like size", () => {
    expect(mergeStart(whole(2600, 2600, 2500, 2700, 2600, 10, 10, 10, 10))).toBe(5);
  });

  it("merges every segment when they are of like size", () => {
    expect(mergeStart(whole(100, 100, 90, 120, 100, 100, 100, 100, 100))).toBe(0);
  });

  it("takes an older segment only once the newer ones taken outweigh it, and merges at least the last three", () => {
    expect(mergeStart(whole(1000, 300, 100, 20, 20, 20, 20, 20, 20))).toBe(2);
    expect(mergeStart(whole(256, 128, 64, 32, 16, 8, 4, 2, 1))).toBe(6);
  });

  it("merges a segment with more than a quarter of its chunks dead, and all after it", () => {
    const sizes = whole(1000, 10, 10, 10, 10, 10, 10, 10, 10);
    sizes[0] = { chunks: 1000, live: 700 };
    expect(mergeStart(sizes)).toBe(0);
    sizes[0] = { chunks: 1000, live: 800 };
    expect(mergeStart(sizes)).toBe(1);
  });

  it("merges from a segment with no live chunk (one that only marks removals)", () => {
    expect(mergeStart([...whole(1000, 100), { chunks: 0, live: 0 }, ...whole(10, 10, 10, 10, 10, 10)])).toBe(2);
  });

  it("merges the segments there are when there are no more than three", () => {
    expect(mergeStart(whole(100, 5, 1))).toBe(0);
    expect(mergeStart(whole(5, 1))).toBe(0);
    expect(mergeStart(whole(1))).toBe(0);
  });
});
