/**
 * The in-memory inverted index over chunks: for each term id, the chunk ids that hold it and
 * their weighted counts, document frequencies, chunk lengths, and BM25 scoring into a reused
 * score array. A bulk load (or a first build) stages files (counting their terms as they come)
 * and lays the postings out once in flat typed arrays (offsets per term); files added later go to small per-term lists beside them. Removing a file
 * marks its chunks dead; everything is laid out again once dead entries outnumber live ones.
 */
import type { IndexedFile, StoredChunk } from "./store.js";

const K1 = 1.2;
const B = 0.75;

export interface ChunkRef {
  path: string;
  /** Position of the chunk in its file's `chunks`. */
  index: number;
  chunk: StoredChunk;
  /** Its file's chunk records, which hold the chunk's terms and counts. */
  numbers: Uint32Array;
}

/** What postings need of a file. */
type PostedFile = Pick<IndexedFile, "path" | "chunks" | "numbers">;

function grow<Array extends Int32Array | Float32Array | Uint8Array>(array: Array, needed: number, make: (size: number) => Array): Array {
  if (needed <= array.length) return array;
  const larger = make(Math.max(needed, array.length * 2, 16));
  larger.set(array);
  return larger;
}

export class Postings {
  private refs: ChunkRef[] = [];
  private alive = new Uint8Array(0);
  private lengths = new Float32Array(0);
  private byFile = new Map<string, number[]>();
  /**
   * The bulk layout: term t's postings are entries[2 * offsets[t] .. 2 * offsets[t + 1]), chunk id
   * and count interleaved (one cache line holds both).
   */
  private base: { offsets: Int32Array; entries: Int32Array } = { offsets: new Int32Array(1), entries: new Int32Array(0) };
  /** Postings added after the bulk layout: per term id, chunk id and count interleaved. */
  private lists: Array<number[] | undefined> = [];
  private frequency = new Int32Array(0);
  private live = 0;
  private dead = 0;
  private totalLength = 0;
  private spare: { values: Float64Array; masks: Uint32Array } | undefined;
  /** Files staged for a bulk layout, the id of each one's first chunk, and their postings per term id. */
  private staging: { files: PostedFile[]; firstIds: number[]; counts: Int32Array } | undefined;

  get chunkCount(): number {
    return this.live;
  }

  ref(id: number): ChunkRef {
    return this.refs[id]!;
  }

  /** Chunk ids of a file, in file order. */
  idsOf(path: string): readonly number[] {
    return this.byFile.get(path) ?? [];
  }

  /** Live chunk ids that hold the term `termId`. */
  chunksWith(termId: number): number[] {
    const found: number[] = [];
    const { offsets, entries } = this.base;
    if (termId + 1 < offsets.length) {
      for (let position = 2 * offsets[termId]!; position < 2 * offsets[termId + 1]!; position += 2) if (this.alive[entries[position]!]) found.push(entries[position]!);
    }
    const list = this.lists[termId];
    if (list !== undefined) for (let position = 0; position < list.length; position += 2) if (this.alive[list[position]!]) found.push(list[position]!);
    return found;
  }

  /**
   * Adds many files at once: into an empty index, laid out in one pass (a load or first build).
   * `termCount` is above every term id the files hold (the dictionary's size).
   */
  addAll(files: PostedFile[], termCount: number): void {
    for (const file of files) this.stage(file);
    this.finishStaging(termCount);
  }

  /**
   * Adds a file whose postings wait for `finishStaging`, to be laid out in one pass with the
   * others staged since the index was empty (its terms are counted now, so the layout needs one
   * pass less); into an index that is not empty, it is added at once.
   */
  stage(file: PostedFile): void {
    if (this.staging === undefined && this.refs.length > 0) {
      this.add(file);
      return;
    }
    const staging = (this.staging ??= { files: [], firstIds: [], counts: new Int32Array(1024) });
    staging.firstIds.push(this.register(file));
    staging.files.push(file);
    let counts = staging.counts;
    const numbers = file.numbers;
    for (const { termsAt, distinct } of file.chunks) {
      for (let position = termsAt; position < termsAt + distinct; position++) {
        const term = numbers[position]!;
        if (term >= counts.length) counts = staging.counts = grow(counts, term + 1, (size) => new Int32Array(size));
        counts[term]!++;
      }
    }
  }

  /** Lays out the staged postings; `termCount` is above every term id staged. */
  finishStaging(termCount: number): void {
    const staging = this.staging;
    if (staging === undefined) return;
    this.staging = undefined;
    if (staging.counts.length > termCount && staging.counts.subarray(termCount).some((count) => count > 0)) {
      throw new RangeError(`a staged term id is outside the dictionary (${termCount} terms)`);
    }
    const offsets = new Int32Array(termCount + 1);
    const frequency = new Int32Array(termCount);
    frequency.set(staging.counts.subarray(0, Math.min(termCount, staging.counts.length)));
    for (let term = 0; term < termCount; term++) offsets[term + 1] = offsets[term]! + frequency[term]!;
    const cursor = offsets.slice(0, termCount);
    const entries = new Int32Array(2 * offsets[termCount]!);
    staging.files.forEach((file, fileIndex) => {
      const first = staging.firstIds[fileIndex]!;
      const numbers = file.numbers;
      for (let index = 0; index < file.chunks.length; index++) {
        const { termsAt, distinct } = file.chunks[index]!;
        for (let position = termsAt; position < termsAt + distinct; position++) {
          const slot = 2 * cursor[numbers[position]!]!++;
          entries[slot] = first + index;
          entries[slot + 1] = numbers[position + distinct]!;
        }
      }
    });
    this.base = { offsets, entries };
    this.frequency = frequency;
  }

  /** Lays out what is staged before a single file is added or removed (the staged counts bound the term ids). */
  private settleStaging(): void {
    if (this.staging !== undefined) this.finishStaging(this.staging.counts.length);
  }

  /** Gives a file's chunks ids (without posting their terms); returns the first id. */
  private register(file: PostedFile): number {
    const first = this.refs.length;
    const needed = first + file.chunks.length;
    this.alive = grow(this.alive, needed, (size) => new Uint8Array(size));
    this.lengths = grow(this.lengths, needed, (size) => new Float32Array(size));
    const ids: number[] = [];
    file.chunks.forEach((chunk, index) => {
      const id = this.refs.length;
      this.refs.push({ path: file.path, index, chunk, numbers: file.numbers });
      this.alive[id] = 1;
      this.lengths[id] = chunk.length;
      ids.push(id);
      this.live++;
      this.totalLength += chunk.length;
    });
    this.byFile.set(file.path, ids);
    return first;
  }

  add(file: PostedFile): void {
    this.settleStaging();
    this.remove(file.path);
    const first = this.register(file);
    file.chunks.forEach((chunk, index) => this.post(first + index, chunk, file.numbers));
  }

  remove(path: string): void {
    this.settleStaging();
    const ids = this.byFile.get(path);
    if (ids === undefined) return;
    this.byFile.delete(path);
    for (const id of ids) {
      const { chunk, numbers } = this.refs[id]!;
      this.alive[id] = 0;
      this.live--;
      this.dead++;
      this.totalLength -= chunk.length;
      for (let position = chunk.termsAt; position < chunk.termsAt + chunk.distinct; position++) this.frequency[numbers[position]!]!--;
    }
    if (this.dead > 10_000 && this.dead > this.live) this.compact();
  }

  /** Inverse document frequency (BM25's, never negative). */
  idf(termId: number | undefined): number {
    const frequency = termId === undefined || termId >= this.frequency.length ? 0 : this.frequency[termId]!;
    return Math.log(1 + (this.live - frequency + 0.5) / (frequency + 0.5));
  }

  /**
   * BM25 scores of the chunks that hold any of the terms (id → query weight); with `masks`
   * (id → bits), each chunk also gets the OR of the bits of the terms it holds.
   */
  score(terms: ReadonlyMap<number, number>, masks?: ReadonlyMap<number, number>): ScoreBoard {
    // Reuse dense buffers (a board gives them back when released) instead of allocating per query.
    const spare =
      this.spare !== undefined && this.spare.values.length >= this.refs.length
        ? this.spare
        : { values: new Float64Array(this.refs.length), masks: new Uint32Array(this.refs.length) };
    this.spare = undefined;
    const { values, masks: bits } = spare;
    const touched: number[] = [];
    const averageLength = this.live === 0 ? 1 : this.totalLength / this.live;
    const { offsets, entries } = this.base;
    const { alive, lengths } = this;
    // The hot loop of every search: the board's arrays are written here directly.
    const post = (id: number, count: number, idf: number, mask: number) => {
      if (alive[id] === 0) return;
      if (values[id] === 0) touched.push(id);
      values[id]! += (idf * count * (K1 + 1)) / (count + K1 * (1 - B + (B * lengths[id]!) / averageLength));
      bits[id]! |= mask;
    };
    for (const [term, weight] of terms) {
      const idf = this.idf(term) * weight;
      const mask = masks?.get(term) ?? 0;
      if (term + 1 < offsets.length) {
        const end = 2 * offsets[term + 1]!;
        for (let position = 2 * offsets[term]!; position < end; position += 2) post(entries[position]!, entries[position + 1]!, idf, mask);
      }
      const list = this.lists[term];
      if (list === undefined) continue;
      for (let position = 0; position < list.length; position += 2) post(list[position]!, list[position + 1]!, idf, mask);
    }
    return new ScoreBoard(values, bits, touched, (released) => (this.spare = released));
  }

  private post(id: number, chunk: StoredChunk, numbers: Uint32Array): void {
    for (let position = chunk.termsAt; position < chunk.termsAt + chunk.distinct; position++) {
      const term = numbers[position]!;
      const count = numbers[position + chunk.distinct]!;
      if (term >= this.frequency.length) this.frequency = grow(this.frequency, term + 1, (size) => new Int32Array(size));
      const list = this.lists[term];
      if (list === undefined) this.lists[term] = [id, count];
      else list.push(id, count);
      this.frequency[term]!++;
    }
  }

  private compact(): void {
    const termCount = this.frequency.length;
    const files = [...this.byFile].map(([path, ids]) => ({
      path,
      numbers: ids.length === 0 ? new Uint32Array(0) : this.refs[ids[0]!]!.numbers,
      chunks: ids.map((id) => this.refs[id]!.chunk),
    }));
    this.refs = [];
    this.alive = new Uint8Array(0);
    this.lengths = new Float32Array(0);
    this.byFile = new Map();
    this.lists = [];
    this.base = { offsets: new Int32Array(1), entries: new Int32Array(0) };
    this.frequency = new Int32Array(0);
    this.live = this.dead = this.totalLength = 0;
    this.addAll(files, termCount);
  }
}

/** Scores of one query, dense by chunk id, with the list of chunks that have one and the bits of the terms each holds. */
export class ScoreBoard {
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
   * At least the `count` best as [id, score], in no order (all when fewer are scored): the
   * `count`-th best score is found by selection, then every score at or above it is kept.
   */
  atLeastBest(count: number): Array<[number, number]> {
    const touched = this.touched;
    const values = this.values;
    let threshold = Number.NEGATIVE_INFINITY;
    if (touched.length > count) {
      if (selectionScratch.length < touched.length) selectionScratch = new Float64Array(Math.max(touched.length, 2 * selectionScratch.length));
      const scratch = selectionScratch.subarray(0, touched.length);
      for (let index = 0; index < touched.length; index++) scratch[index] = values[touched[index]!]!;
      threshold = selectDescending(scratch, count - 1);
    }
    const found: Array<[number, number]> = [];
    for (const id of touched) if (values[id]! >= threshold) found.push([id, values[id]!]);
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
