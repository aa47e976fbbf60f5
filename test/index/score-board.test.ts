import { describe, expect, it } from "vitest";
import { ScoreBoard } from "../../tools/index/score-board.js";

/** Every score and bit of a board of `size` ids. */
const contents = (board: ScoreBoard, size: number) => Array.from({ length: size }, (_, id) => [board.get(id), board.mask(id)]);

describe("a query's score board", () => {
  it("starts empty when it takes over a released board's buffers, whether that board scored a few ids or most of them", () => {
    for (const scored of [3, 900]) {
      const first = ScoreBoard.sized(1000);
      for (let id = 0; id < scored; id++) first.add((id * 7) % 1000, id + 1, 1 << (id % 31));
      expect(first.size).toBe(scored);
      first.release();
      const second = ScoreBoard.sized(1000);
      expect(second.size).toBe(0);
      expect(second.max()).toBe(0);
      expect(contents(second, 1000).every(([score, mask]) => score === 0 && mask === 0)).toBe(true);
      second.add(5, 2, 4);
      expect(second.atLeastBest(10)).toEqual([5]);
      second.release();
    }
  });

  it("makes new buffers for a query over more ids than the released ones hold", () => {
    // Larger than the first test's boards: the first one here cannot reuse theirs either.
    const small = ScoreBoard.sized(2000);
    small.add(1999, 1);
    small.release();
    const large = ScoreBoard.sized(4000);
    expect(large.get(1999)).toBe(0);
    large.add(3999, 3);
    expect(large.atLeastBest(1)).toEqual([3999]);
    large.release();
  });
});
