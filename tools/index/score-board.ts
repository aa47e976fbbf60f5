/**
 * The scores of one query, dense by chunk id, with the chunks that have one and the OR of the
 * bits of the terms each holds; the buffers are reused from query to query.
 */

/** Buffers handed back by a released board, for the next query, with the ids it scored (cleared when they are taken again). */
let spare: Released | undefined;

interface Released {
  values: Float64Array;
  masks: Uint32Array;
  touched: number[];
}

/** Scores of one query, dense by chunk id, with the list of chunks that have one and the bits of the terms each holds. */
export class ScoreBoard {
  /** A board for chunk ids below `size`, on reused buffers when they are large enough. */
  static sized(size: number): ScoreBoard {
    const reused = spare !== undefined && spare.values.length >= size ? spare : undefined;
    spare = undefined;
    if (reused === undefined) return new ScoreBoard(new Float64Array(size), new Uint32Array(size), [], (released) => (spare = released));
    cleared(reused);
    return new ScoreBoard(reused.values, reused.masks, reused.touched, (released) => (spare = released));
  }

  constructor(
    private readonly values: Float64Array,
    private readonly masks: Uint32Array,
    private readonly touched: number[],
    private readonly onRelease: (released: Released) => void,
  ) {}

  /**
   * Hands the buffers back for the next query; the board is unusable after. They are cleared
   * when the next query takes them: a fresh process's one search never pays for that.
   */
  release(): void {
    this.onRelease({ values: this.values, masks: this.masks, touched: this.touched });
  }

  get size(): number {
    return this.touched.length;
  }

  add(id: number, value: number, mask = 0): void {
    if (this.values[id] === 0) this.touched.push(id);
    this.values[id] = this.values[id]! + value;
    this.masks[id] = (this.masks[id] ?? 0) | mask;
  }

  /** The OR of the bits of the terms chunk `id` holds. */
  mask(id: number): number {
    return this.masks[id]!;
  }

  get(id: number): number {
    return this.values[id]!;
  }

  max(): number {
    const { touched, values } = this;
    let top = 0;
    for (let at = 0; at < touched.length; at++) if (values[touched[at]!]! > top) top = values[touched[at]!]!;
    return top;
  }

  /**
   * The ids of at least the `count` best, in the order they were first scored (all when fewer
   * are scored): the `count`-th best score is read from a sorted copy of the scores (the typed
   * array's own sort), then every score at or above it is kept.
   */
  atLeastBest(count: number): number[] {
    const { touched, values } = this;
    let threshold = Number.NEGATIVE_INFINITY;
    if (touched.length > count) {
      if (selectionScratch.length < touched.length) selectionScratch = new Float64Array(Math.max(touched.length, 2 * selectionScratch.length));
      const scratch = selectionScratch.subarray(0, touched.length);
      for (let at = 0; at < touched.length; at++) scratch[at] = values[touched[at]!]!;
      threshold = scratch.sort()[touched.length - count]!;
    }
    const found: number[] = [];
    for (let at = 0; at < touched.length; at++) if (values[touched[at]!]! >= threshold) found.push(touched[at]!);
    return found;
  }
}

/** Zeroes the scores and bits a released board set, and empties its list of them. */
function cleared({ values, masks, touched }: Released): void {
  if (touched.length > values.length / 16) {
    values.fill(0);
    masks.fill(0);
  } else {
    // Indexed loops here and below: a process's first searches run this code cold, where `for…of` costs several times more.
    for (let at = 0; at < touched.length; at++) {
      values[touched[at]!] = 0;
      masks[touched[at]!] = 0;
    }
  }
  touched.length = 0;
}

/** Reused by `atLeastBest` across queries (one search runs at a time in a thread). */
let selectionScratch = new Float64Array(0);
