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

/** The kinds a change point may hold, by their code in the log (0: live). */
const KINDS: readonly (InertRegionKind | undefined)[] = [undefined, "fence", "indented-code", "inline-code", "html", "quote", "reasoning", "command", "framing"];

function codeOf(kind: InertRegionKind | undefined): number {
  return KINDS.indexOf(kind);
}

export class RegionRecorder implements InertRegionLog {
  // Typed arrays with a count: the scanner marks hundreds of thousands of change points in a
  // long reply, and a plain array's pop-then-push at the same place cost about 200 ns a mark.
  // They start at 64 bytes, the most the engine keeps inside the object: a short reply's log
  // then costs no separate buffer (about 0.7 µs a parser).
  private offsets = new Float64Array(8);
  private kinds = new Uint8Array(8);
  private count = 0;
  /** Index of the change point that holds the last offset asked (those before it are dropped). */
  private cursor = 0;
  private lastAsked = -1;
  private settled = 0;

  /** `startOffset`: where recording began; earlier offsets read as live. */
  constructor(
    private readonly source: SettledSource,
    startOffset: number,
  ) {
    this.offsets[0] = startOffset;
    this.count = 1;
  }

  get settledUntil(): number {
    this.settled = Math.max(this.settled, this.source.settledOffset());
    return this.settled;
  }

  /** From `offset` on (until the next mark), the text has `kind` (`undefined`: live). Offsets never decrease. */
  mark(offset: number, kind: InertRegionKind | undefined): void {
    const code = kind === undefined ? 0 : codeOf(kind);
    let last = this.count - 1;
    if (offset <= this.offsets[last]!) {
      // A later decision at the same place: it replaces the earlier one, unless a reader already saw it.
      if (last === this.cursor) {
        this.kinds[last] = code;
        return;
      }
      this.count--;
      last--;
      offset = Math.max(offset, this.offsets[last]!);
    }
    if (this.kinds[last] === code) return;
    if (this.count === this.offsets.length) this.grow();
    this.offsets[this.count] = offset;
    this.kinds[this.count] = code;
    this.count++;
  }

  private grow(): void {
    const offsets = new Float64Array(this.offsets.length * 2);
    offsets.set(this.offsets);
    this.offsets = offsets;
    const kinds = new Uint8Array(this.kinds.length * 2);
    kinds.set(this.kinds);
    this.kinds = kinds;
  }

  kindAt(offset: number): InertRegionKind | undefined {
    const offsets = this.offsets;
    if (offset < offsets[0]!) return undefined;
    if (offset < this.lastAsked) this.cursor = 0;
    this.lastAsked = offset;
    let cursor = this.cursor;
    while (cursor + 1 < this.count && offsets[cursor + 1]! <= offset) cursor++;
    // Dropped once they are most of the list, so each change point is copied at most once on average.
    if (cursor >= COMPACT_AT && cursor * 2 > this.count) {
      offsets.copyWithin(0, cursor, this.count);
      this.kinds.copyWithin(0, cursor, this.count);
      this.count -= cursor;
      cursor = 0;
    }
    this.cursor = cursor;
    return KINDS[this.kinds[cursor]!];
  }
}
