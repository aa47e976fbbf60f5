/**
 * The in-memory inverted index over chunks: postings (chunk id, weighted count) per term,
 * document frequencies, and BM25 scoring. Removing a file marks its chunks dead; the postings
 * are rebuilt once dead entries outnumber live ones.
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

export class Postings {
  private refs: ChunkRef[] = [];
  private alive: boolean[] = [];
  private byFile = new Map<string, number[]>();
  private postings = new Map<string, number[]>();
  private frequency = new Map<string, number>();
  private live = 0;
  private dead = 0;
  private totalLength = 0;

  get chunkCount(): number {
    return this.live;
  }

  ref(id: number): ChunkRef {
    return this.refs[id]!;
  }

  isAlive(id: number): boolean {
    return this.alive[id] === true;
  }

  /** Chunk ids of a file, in file order. */
  idsOf(path: string): readonly number[] {
    return this.byFile.get(path) ?? [];
  }

  add(file: IndexedFile): void {
    this.remove(file.path);
    const ids: number[] = [];
    file.chunks.forEach((chunk, index) => {
      const id = this.refs.length;
      this.refs.push({ path: file.path, index, chunk });
      this.alive.push(true);
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
      this.alive[id] = false;
      this.live--;
      this.dead++;
      this.totalLength -= chunk.length;
      for (const term of chunk.terms) {
        const remaining = (this.frequency.get(term) ?? 1) - 1;
        if (remaining <= 0) this.frequency.delete(term);
        else this.frequency.set(term, remaining);
      }
    }
    if (this.dead > 10_000 && this.dead > this.live) this.compact();
  }

  /** Inverse document frequency (BM25's, never negative). */
  idf(term: string): number {
    const frequency = this.frequency.get(term) ?? 0;
    return Math.log(1 + (this.live - frequency + 0.5) / (frequency + 0.5));
  }

  /** BM25 scores of the chunks that hold any of `terms` (each with its query weight). */
  score(terms: ReadonlyMap<string, number>): Map<number, number> {
    const scores = new Map<number, number>();
    const averageLength = this.live === 0 ? 1 : this.totalLength / this.live;
    for (const [term, weight] of terms) {
      const list = this.postings.get(term);
      if (list === undefined) continue;
      const idf = this.idf(term) * weight;
      for (let position = 0; position < list.length; position += 2) {
        const id = list[position]!;
        if (!this.alive[id]) continue;
        const count = list[position + 1]!;
        const length = this.refs[id]!.chunk.length;
        const termScore = (idf * count * (K1 + 1)) / (count + K1 * (1 - B + (B * length) / averageLength));
        scores.set(id, (scores.get(id) ?? 0) + termScore);
      }
    }
    return scores;
  }

  private post(id: number, chunk: StoredChunk): void {
    for (let position = 0; position < chunk.terms.length; position++) {
      const term = chunk.terms[position]!;
      let list = this.postings.get(term);
      if (list === undefined) this.postings.set(term, (list = []));
      list.push(id, chunk.counts[position]!);
      this.frequency.set(term, (this.frequency.get(term) ?? 0) + 1);
    }
  }

  private compact(): void {
    const files = [...this.byFile.keys()].map((path) => ({ path, chunks: this.byFile.get(path)!.map((id) => this.refs[id]!.chunk) }));
    this.refs = [];
    this.alive = [];
    this.byFile = new Map();
    this.postings = new Map();
    this.frequency = new Map();
    this.live = this.dead = this.totalLength = 0;
    for (const file of files) this.add(file as IndexedFile);
  }
}
