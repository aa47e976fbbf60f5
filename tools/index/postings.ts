/**
 * The in-memory inverted index over chunks: for each term id, the chunk ids that hold it and
 * their weighted counts (typed arrays that grow by doubling), document frequencies, chunk
 * lengths, and BM25 scoring into a reused score array. Removing a file marks its chunks dead;
 * the postings are rebuilt once dead entries outnumber live ones.
 */
import type { IndexedFile, StoredChunk } from "./store.js";

const K1 = 1.2;
const B = 0.75;

export interface ChunkRef {
  path: string;
  /** Position of the chunk in its file's `chunks`. */
  index: number;
  chunk: StoredChunk;
}

interface TermList {
  ids: Int32Array;
  counts: Float32Array;
  length: number;
}

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
  private lists: Array<TermList | undefined> = [];
  private frequency = new Int32Array(0);
  private live = 0;
  private dead = 0;
  private totalLength = 0;
  private scores = new Float64Array(0);

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
    const list = this.lists[termId];
    const found: number[] = [];
    if (list === undefined) return found;
    for (let position = 0; position < list.length; position++) if (this.alive[list.ids[position]!]) found.push(list.ids[position]!);
    return found;
  }

  /** Adds many files at once: sizes every term's list exactly before filling it (a load). */
  addAll(files: Iterable<IndexedFile>): void {
    const all = [...files];
    let largest = -1;
    for (const file of all) for (const chunk of file.chunks) for (const term of chunk.terms) if (term > largest) largest = term;
    const needed = new Int32Array(largest + 1);
    for (const file of all) for (const chunk of file.chunks) for (const term of chunk.terms) needed[term]!++;
    needed.forEach((count, term) => {
      if (count === 0) return;
      const list = this.lists[term];
      if (list === undefined) this.lists[term] = { ids: new Int32Array(count), counts: new Float32Array(count), length: 0 };
      else {
        list.ids = grow(list.ids, list.length + count, (size) => new Int32Array(size));
        list.counts = grow(list.counts, list.length + count, (size) => new Float32Array(size));
      }
    });
    for (const file of all) this.add(file);
  }

  add(file: IndexedFile): void {
    this.remove(file.path);
    const ids: number[] = [];
    const needed = this.refs.length + file.chunks.length;
    this.alive = grow(this.alive, needed, (size) => new Uint8Array(size));
    this.lengths = grow(this.lengths, needed, (size) => new Float32Array(size));
    file.chunks.forEach((chunk, index) => {
      const id = this.refs.length;
      this.refs.push({ path: file.path, index, chunk });
      this.alive[id] = 1;
      this.lengths[id] = chunk.length;
      ids.push(id);
      this.live++;
      this.totalLength += chunk.length;
      this.post(id, chunk);
    });
    this.byFile.set(file.path, ids);
  }

  remove(path: string): void {
    const ids = this.byFile.get(path);
    if (ids === undefined) return;
    this.byFile.delete(path);
    for (const id of ids) {
      const { chunk } = this.refs[id]!;
      this.alive[id] = 0;
      this.live--;
      this.dead++;
      this.totalLength -= chunk.length;
      for (const term of chunk.terms) this.frequency[term]!--;
    }
    if (this.dead > 10_000 && this.dead > this.live) this.compact();
  }

  /** Inverse document frequency (BM25's, never negative). */
  idf(termId: number | undefined): number {
    const frequency = termId === undefined || termId >= this.frequency.length ? 0 : this.frequency[termId]!;
    return Math.log(1 + (this.live - frequency + 0.5) / (frequency + 0.5));
  }

  /** BM25 scores of the chunks that hold any of the terms (id → query weight). */
  score(terms: ReadonlyMap<number, number>): Map<number, number> {
    if (this.scores.length < this.refs.length) this.scores = new Float64Array(this.refs.length);
    const scores = this.scores;
    const touched: number[] = [];
    const averageLength = this.live === 0 ? 1 : this.totalLength / this.live;
    for (const [term, weight] of terms) {
      const list = this.lists[term];
      if (list === undefined) continue;
      const idf = this.idf(term) * weight;
      const { ids, counts, length } = list;
      for (let position = 0; position < length; position++) {
        const id = ids[position]!;
        if (this.alive[id] === 0) continue;
        const count = counts[position]!;
        const termScore = (idf * count * (K1 + 1)) / (count + K1 * (1 - B + (B * this.lengths[id]!) / averageLength));
        if (scores[id] === 0) touched.push(id);
        scores[id] += termScore;
      }
    }
    const result = new Map<number, number>();
    for (const id of touched) {
      result.set(id, scores[id]!);
      scores[id] = 0;
    }
    return result;
  }

  private post(id: number, chunk: StoredChunk): void {
    for (let position = 0; position < chunk.terms.length; position++) {
      const term = chunk.terms[position]!;
      if (term >= this.frequency.length) this.frequency = grow(this.frequency, term + 1, (size) => new Int32Array(size));
      let list = this.lists[term];
      if (list === undefined) this.lists[term] = list = { ids: new Int32Array(4), counts: new Float32Array(4), length: 0 };
      if (list.length === list.ids.length) {
        list.ids = grow(list.ids, list.length + 1, (size) => new Int32Array(size));
        list.counts = grow(list.counts, list.length + 1, (size) => new Float32Array(size));
      }
      list.ids[list.length] = id;
      list.counts[list.length++] = chunk.counts[position]!;
      this.frequency[term]!++;
    }
  }

  private compact(): void {
    const files = [...this.byFile.keys()].map((path) => ({ path, chunks: this.byFile.get(path)!.map((id) => this.refs[id]!.chunk) }));
    this.refs = [];
    this.alive = new Uint8Array(0);
    this.lengths = new Float32Array(0);
    this.byFile = new Map();
    this.lists = [];
    this.frequency = new Int32Array(0);
    this.live = this.dead = this.totalLength = 0;
    this.addAll(files as IndexedFile[]);
  }
}
