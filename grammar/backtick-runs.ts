/** Where a backtick run closes: CommonMark's rule for code spans, over a held stretch of text. */
import { BACKTICK } from "./chars.js";
import { firstAtOrAfter } from "./sorted.js";

/** The backtick runs of a held stretch, to find where a run opened there closes (CommonMark's rule). */
export class BacktickRuns {
  /** Per run length, the absolute offsets of the runs of exactly that length, in order. */
  private readonly byLength = new Map<number, number[]>();

  constructor(held: string, base: number) {
    for (let i = held.indexOf("`"); i >= 0; i = held.indexOf("`", i)) {
      let j = i;
      while (j < held.length && held.charCodeAt(j) === BACKTICK) j++;
      let starts = this.byLength.get(j - i);
      if (starts === undefined) this.byLength.set(j - i, (starts = []));
      starts.push(base + i);
      i = j;
    }
  }

  /** The offset of the first run of exactly `length` backticks after `start`, or -1. */
  closerOf(start: number, length: number): number {
    const starts = this.byLength.get(length);
    if (starts === undefined) return -1;
    const low = firstAtOrAfter(starts, start + 1);
    return low < starts.length ? starts[low]! : -1;
  }
}
