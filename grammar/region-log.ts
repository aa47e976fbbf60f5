/**
 * The scanner's record of inert regions (regions.ts): a list of change points, each an offset
 * from which on the text has one kind (an inert region's, or live). The scanner marks them in
 * increasing offsets as it decides; readers walk forward and what lies behind them is dropped.
 */
import type { InertRegionKind, InertRegionLog } from "./regions.js";

/** Change points kept before a reader's position lets the front of the list be dropped. */
const COMPACT_AT = 1024;

/** Where the scanner stands: every offset below `settledOffset()` is decided. */
export interface SettledSource {
  settledOffset(): number;
}

export class RegionRecorder implements InertRegionLog {
  private offsets: number[] = [];
  private kinds: (InertRegionKind | undefined)[] = [];
  /** Index of the change point that holds the last offset asked (those before it are dropped). */
  private cursor = 0;
  private lastAsked = -1;
  private settled = 0;

  /** `startOffset`: where recording began; earlier offsets read as live. */
  constructor(
    private readonly source: SettledSource,
    startOffset: number,
  ) {
    this.offsets.push(startOffset);
    this.kinds.push(undefined);
  }

  get settledUntil(): number {
    this.settled = Math.max(this.settled, this.source.settledOffset());
    return this.settled;
  }

  /** From `offset` on (until the next mark), the text has `kind` (`undefined`: live). Offsets never decrease. */
  mark(offset: number, kind: InertRegionKind | undefined): void {
    const offsets = this.offsets;
    const kinds = this.kinds;
    let last = offsets.length - 1;
    if (offset <= offsets[last]!) {
      // A later decision at the same place: it replaces the earlier one, unless a reader already saw it.
      if (last === this.cursor) {
        kinds[last] = kind;
        return;
      }
      offsets.pop();
      kinds.pop();
      last--;
      offset = Math.max(offset, offsets[last]!);
    }
    if (kinds[last] === kind) return;
    offsets.push(offset);
    kinds.push(kind);
  }

  kindAt(offset: number): InertRegionKind | undefined {
    if (offset < this.offsets[0]!) return undefined;
    if (offset < this.lastAsked) this.cursor = 0;
    this.lastAsked = offset;
    const offsets = this.offsets;
    let cursor = this.cursor;
    while (cursor + 1 < offsets.length && offsets[cursor + 1]! <= offset) cursor++;
    // Dropped once they are most of the list, so each change point is copied at most once on average.
    if (cursor >= COMPACT_AT && cursor * 2 > offsets.length) {
      this.offsets = offsets.slice(cursor);
      this.kinds = this.kinds.slice(cursor);
      cursor = 0;
    }
    this.cursor = cursor;
    return this.kinds[cursor];
  }
}
