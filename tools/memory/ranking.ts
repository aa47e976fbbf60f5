/**
 * Ranking memories for a query: an inverted index over each entry's key, tags and value
 * tokens (the code-aware tokens of the index), scored by idf-weighted matches — a key match
 * counts most, then tags, then the value — with exact and partial key matches lifted.
 */
import { tokenize } from "../index/tokenize.js";

export interface RankableEntry {
  key: string;
  value: string;
  tags: string[];
}

interface EntryTerms {
  key: Set<string>;
  tags: Set<string>;
  value: Map<string, number>;
  valueLength: number;
}

const KEY_WEIGHT = 3;
const TAG_WEIGHT = 2;
const MAX_QUERY_TERMS = 32;

export class MemoryRanking {
  private readonly terms = new Map<string, EntryTerms>();
  private readonly postings = new Map<string, Set<string>>();

  get size(): number {
    return this.terms.size;
  }

  add(entry: RankableEntry): void {
    this.remove(entry.key);
    const value = new Map<string, number>();
    const valueTokens = tokenize(entry.value);
    for (const token of valueTokens) value.set(token, (value.get(token) ?? 0) + 1);
    const terms: EntryTerms = {
      key: new Set(tokenize(entry.key)),
      tags: new Set(entry.tags.flatMap((tag) => tokenize(tag))),
      value,
      valueLength: valueTokens.length,
    };
    this.terms.set(entry.key, terms);
    for (const term of new Set([...terms.key, ...terms.tags, ...value.keys()])) {
      let keys = this.postings.get(term);
      if (keys === undefined) this.postings.set(term, (keys = new Set()));
      keys.add(entry.key);
    }
  }

  remove(key: string): void {
    const terms = this.terms.get(key);
    if (terms === undefined) return;
    this.terms.delete(key);
    for (const term of new Set([...terms.key, ...terms.tags, ...terms.value.keys()])) {
      const keys = this.postings.get(term);
      keys?.delete(key);
      if (keys?.size === 0) this.postings.delete(term);
    }
  }

  /** Keys ranked for `query`, best first, with their scores (only keys that match at all). */
  rank(query: string): Array<{ key: string; score: number }> {
    const total = Math.max(1, this.terms.size);
    let queryTerms = [...new Set(tokenize(query))];
    const idf = (term: string) => Math.log(1 + total / ((this.postings.get(term)?.size ?? 0) + 0.5));
    if (queryTerms.length > MAX_QUERY_TERMS) queryTerms = queryTerms.sort((left, right) => idf(right) - idf(left)).slice(0, MAX_QUERY_TERMS);
    const scores = new Map<string, number>();
    for (const term of queryTerms) {
      const keys = this.postings.get(term);
      if (keys === undefined) continue;
      const weight = idf(term);
      for (const key of keys) {
        const terms = this.terms.get(key)!;
        const count = terms.value.get(term) ?? 0;
        const valueScore = count === 0 ? 0 : (count * 2.2) / (count + 1.2 * (0.25 + (0.75 * terms.valueLength) / 50));
        const score = weight * ((terms.key.has(term) ? KEY_WEIGHT : 0) + (terms.tags.has(term) ? TAG_WEIGHT : 0) + valueScore);
        scores.set(key, (scores.get(key) ?? 0) + score);
      }
    }
    const lowered = query.trim().toLowerCase();
    for (const key of this.terms.keys()) {
      const name = key.toLowerCase();
      if (name === lowered) scores.set(key, (scores.get(key) ?? 0) + 100);
      else if (lowered.length >= 3 && name.includes(lowered)) scores.set(key, (scores.get(key) ?? 0) + 5);
    }
    return [...scores].map(([key, score]) => ({ key, score })).sort((left, right) => right.score - left.score);
  }
}
