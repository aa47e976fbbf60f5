/**
 * Ranking memories for a query: an inverted index from each term of an entry's key, tags and
 * value (the code-aware tokens of the code index) to the entries holding it, with each entry's
 * part of the score worked out when the entry is added — a key match counts most, then tags,
 * then the value (BM25-shaped) — so a query only multiplies by idf and adds up. Exact and
 * partial key matches are lifted.
 */
import { tokenize } from "../index/tokenize.js";

export interface RankableEntry {
  key: string;
  value: string;
  tags: string[];
  updatedAt: string;
}

interface Slot {
  key: string;
  lowerKey: string;
  /** A re-read re-tokenizes only entries whose version changed. */
  version: string;
  terms: string[];
}

const KEY_WEIGHT = 3;
const TAG_WEIGHT = 2;
const MAX_QUERY_TERMS = 32;
const EXACT_KEY_BONUS = 100;
const PARTIAL_KEY_BONUS = 5;

function versionOf(entry: RankableEntry): string {
  return `${entry.updatedAt}|${entry.value.length}|${entry.tags.join(",")}`;
}

export class MemoryRanking {
  private readonly slotOf = new Map<string, number>();
  private readonly slots: Array<Slot | undefined> = [];
  private readonly free: number[] = [];
  /** term → slot → the entry's part of the score for that term (before idf). */
  private readonly postings = new Map<string, Map<number, number>>();

  get size(): number {
    return this.slotOf.size;
  }

  /** Brings the ranking in line with `entries`: adds new and changed entries, drops missing ones. */
  sync(entries: Record<string, RankableEntry>): void {
    for (const key of [...this.slotOf.keys()]) if (entries[key] === undefined) this.remove(key);
    for (const entry of Object.values(entries)) {
      const slot = this.slotOf.get(entry.key);
      if (slot === undefined || this.slots[slot]!.version !== versionOf(entry)) this.add(entry);
    }
  }

  add(entry: RankableEntry): void {
    this.remove(entry.key);
    const keyTerms = new Set(tokenize(entry.key));
    const tagTerms = new Set(entry.tags.flatMap((tag) => tokenize(tag)));
    const valueTokens = tokenize(entry.value);
    const valueCounts = new Map<string, number>();
    for (const token of valueTokens) valueCounts.set(token, (valueCounts.get(token) ?? 0) + 1);
    const slot = this.free.pop() ?? this.slots.length;
    const terms = [...new Set([...keyTerms, ...tagTerms, ...valueCounts.keys()])];
    this.slots[slot] = { key: entry.key, lowerKey: entry.key.toLowerCase(), version: versionOf(entry), terms };
    this.slotOf.set(entry.key, slot);
    for (const term of terms) {
      const count = valueCounts.get(term) ?? 0;
      const valueScore = count === 0 ? 0 : (count * 2.2) / (count + 1.2 * (0.25 + (0.75 * valueTokens.length) / 50));
      const part = (keyTerms.has(term) ? KEY_WEIGHT : 0) + (tagTerms.has(term) ? TAG_WEIGHT : 0) + valueScore;
      let holders = this.postings.get(term);
      if (holders === undefined) this.postings.set(term, (holders = new Map()));
      holders.set(slot, part);
    }
  }

  remove(key: string): void {
    const slot = this.slotOf.get(key);
    if (slot === undefined) return;
    this.slotOf.delete(key);
    for (const term of this.slots[slot]!.terms) {
      const holders = this.postings.get(term);
      holders?.delete(slot);
      if (holders?.size === 0) this.postings.delete(term);
    }
    this.slots[slot] = undefined;
    this.free.push(slot);
  }

  /** Keys ranked for `query`, best first, with their scores (only keys that match at all). */
  rank(query: string): Array<{ key: string; score: number }> {
    const total = Math.max(1, this.slotOf.size);
    const idf = (term: string) => Math.log(1 + total / ((this.postings.get(term)?.size ?? 0) + 0.5));
    let queryTerms = [...new Set(tokenize(query))];
    if (queryTerms.length > MAX_QUERY_TERMS) queryTerms = queryTerms.sort((left, right) => idf(right) - idf(left)).slice(0, MAX_QUERY_TERMS);
    const scores = new Float64Array(this.slots.length);
    const touched: number[] = [];
    const add = (slot: number, value: number) => {
      if (scores[slot] === 0) touched.push(slot);
      scores[slot] = (scores[slot] ?? 0) + value;
    };
    for (const term of queryTerms) {
      const holders = this.postings.get(term);
      if (holders === undefined) continue;
      const weight = idf(term);
      for (const [slot, part] of holders) add(slot, weight * part);
    }
    const lowered = query.trim().toLowerCase();
    if (lowered.length >= 3 && lowered.length <= 200) {
      this.slots.forEach((slot, index) => {
        if (slot === undefined) return;
        if (slot.lowerKey === lowered) add(index, EXACT_KEY_BONUS);
        else if (slot.lowerKey.includes(lowered)) add(index, PARTIAL_KEY_BONUS);
      });
    }
    return touched.sort((left, right) => scores[right]! - scores[left]!).map((slot) => ({ key: this.slots[slot]!.key, score: scores[slot]! }));
  }
}
