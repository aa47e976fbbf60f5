/**
 * The scores of one query, dense by chunk id, with the chunks that have one and the OR of the
 * bits of the terms each holds; the buffers are reused from query to query.
 */

/** Buffers handed back by a released board, for the next query. */
let spare: { values: Float64Array; masks: Uint32Array } | undefined;

/** Scores of one query, dense by chunk id, with the list of chunks that have one and the bits of the terms each holds. */
export class ScoreBoard {
  /** A board for chunk ids below `size`, on reused buffers when they are large enough. */
  static sized(size: number): ScoreBoard {
    const buffers = spare !== undefined && spare.values.length >= size ? spare : { values: new Float64Array(size), masks: new Uint32Array(size) };
    spare = undefined;
    return new ScoreBoard(buffers.values, buffers.masks, [], (released) => (spare = released));
  }

  constructor(
    private readonly values: Float64Array,
    private readonly masks: Uint32Array,
    private readonly touched: number[],
    private readonly onRelease: (buffers: { values: Float64Array; masks: Uint32Array }) => void,
  ) {}

  /** Clears the scores and hands the buffers back for the next query; the board is unusable after. */
  release(): void {
    if (this.touched.length > this.values.length / 16) {
      this.values.fill(0);
      this.masks.fill(0);
    } else {
      for (const id of this.touched) {
        this.values[id] = 0;
        this.masks[id] = 0;
      }
    }
    this.touched.length = 0;
    this.onRelease({ values: this.values, masks: this.masks });
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
    let top = 0;
    for (const id of this.touched) if (this.values[id]! > top) top = this.values[id]!;
    return top;
  }

  /** Every scored chunk as [id, score], unordered. */
  entries(): Array<[number, number]> {
    return this.touched.map((id) => [id, this.values[id]!]);
  }

  /**
   * The ids of at least the `count` best, in the order they were first scored (all when fewer
   * are scored): the `count`-th best score is found by selection, then every score at or above
   * it is kept.
   */
  atLeastBest(count: number): number[] {
    const touched = this.touched;
    const values = this.values;
    let threshold = Number.NEGATIVE_INFINITY;
    if (touched.length > count) {
      if (selectionScratch.length < touched.length) selectionScratch = new Float64Array(Math.max(touched.length, 2 * selectionScratch.length));
      const scratch = selectionScratch.subarray(0, touched.length);
      for (let index = 0; index < touched.length; index++) scratch[index] = values[touched[index]!]!;
      threshold = selectDescending(scratch, count - 1);
    }
    const found: number[] = [];
    for (const id of touched) if (values[id]! >= threshold) found.push(id);
    return found;
  }

  /** The `count` best as [id, score], best first (a bounded min-heap, not a full sort). */
  best(count: number): Array<[number, number]> {
    const heap: number[] = [];
    const less = (left: number, right: number) => this.values[left]! < this.values[right]!;
    for (const id of this.touched) {
      if (heap.length < count) {
        heap.push(id);
        for (let child = heap.length - 1; child > 0; ) {
          const parent = (child - 1) >> 1;
          if (!less(heap[child]!, heap[parent]!)) break;
          [heap[child], heap[parent]] = [heap[parent]!, heap[child]!];
          child = parent;
        }
      } else if (this.values[id]! > this.values[heap[0]!]!) {
        heap[0] = id;
        for (let parent = 0; ; ) {
          const left = 2 * parent + 1;
          const right = left + 1;
          let smallest = parent;
          if (left < heap.length && less(heap[left]!, heap[smallest]!)) smallest = left;
          if (right < heap.length && less(heap[right]!, heap[smallest]!)) smallest = right;
          if (smallest === parent) break;
          [heap[smallest], heap[parent]] = [heap[parent]!, heap[smallest]!];
          parent = smallest;
        }
      }
    }
    return heap.map((id): [number, number] => [id, this.values[id]!]).sort((left, right) => right[1] - left[1]);
  }
}

/** Reused by `atLeastBest` across queries (one search runs at a time in a thread). */
let selectionScratch = new Float64Array(0);

/** The value that would stand at `rank` (0-based) if `values` were sorted from largest down; reorders `values`. */
function selectDescending(values: Float64Array, rank: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1]!;
    let left = low;
    let right = high;
    while (left <= right) {
      while (values[left]! > pivot) left++;
      while (values[right]! < pivot) right--;
      if (left <= right) {
        const swap = values[left]!;
        values[left] = values[right]!;
        values[right] = swap;
        left++;
        right--;
      }
    }
    if (rank <= right) high = right;
    else if (rank >= left) low = left;
    else return values[rank]!;
  }
  return values[rank]!;
}
