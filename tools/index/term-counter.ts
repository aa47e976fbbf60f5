/**
 * Counts a chunk's terms without building strings on the hot path: identifiers are scanned by
 * character code, hashed, and found in an open-addressing table of identifiers seen before
 * (compared character by character); each identifier's term ids (its tokens, see tokenize.ts)
 * are worked out once. Counting then runs over typed arrays indexed by id.
 */
import type { StoredChunk, TermDictionary } from "./store.js";
import { tokenize } from "./tokenize.js";

const MAX_IDENTIFIER = 64;

function isIdentifierStart(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code === 36;
}

function isIdentifierPart(code: number): boolean {
  return isIdentifierStart(code) || (code >= 48 && code <= 57);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

export class TermCounter {
  private table: Int32Array = new Int32Array(1 << 16);
  private hashes: Int32Array = new Int32Array(1 << 15);
  private readonly identifiers: string[] = [];
  private readonly identifierTerms: Uint32Array[] = [];
  private identifierCounts: Int32Array = new Int32Array(1 << 15);
  private touchedIdentifiers: number[] = [];
  private termCounts: Int32Array = new Int32Array(1 << 16);

  constructor(private readonly dictionary: TermDictionary) {}

  /** Adds the terms of text[start, end) to the current chunk, each occurrence counted `weight` times. */
  add(text: string, start = 0, end = text.length, weight = 1): void {
    let position = start;
    while (position < end) {
      const code = text.charCodeAt(position);
      if (!isIdentifierStart(code) && !isDigit(code)) {
        position++;
        continue;
      }
      const from = position;
      let hash = 0x811c9dc5 | 0;
      const digits = isDigit(code);
      while (position < end) {
        const next = text.charCodeAt(position);
        if (digits ? !isDigit(next) : !isIdentifierPart(next)) break;
        hash = Math.imul(hash ^ next, 16777619);
        position++;
      }
      if (position - from > MAX_IDENTIFIER) continue;
      const id = this.identifierId(text, from, position, hash);
      if (this.identifierCounts[id] === 0) this.touchedIdentifiers.push(id);
      this.identifierCounts[id]! += weight;
    }
  }

  /** The chunk's distinct term ids and counts; resets for the next chunk. */
  finish(): Pick<StoredChunk, "terms" | "counts" | "length"> {
    if (this.termCounts.length < this.dictionary.size) this.termCounts = grown(this.termCounts, this.dictionary.size);
    const touchedTerms: number[] = [];
    for (const id of this.touchedIdentifiers) {
      const count = this.identifierCounts[id]!;
      this.identifierCounts[id] = 0;
      for (const term of this.identifierTerms[id]!) {
        if (this.termCounts[term] === 0) touchedTerms.push(term);
        this.termCounts[term]! += count;
      }
    }
    this.touchedIdentifiers = [];
    const terms = new Uint32Array(touchedTerms.length);
    const counts = new Uint32Array(touchedTerms.length);
    let length = 0;
    touchedTerms.forEach((term, index) => {
      terms[index] = term;
      counts[index] = this.termCounts[term]!;
      length += counts[index]!;
      this.termCounts[term] = 0;
    });
    return { terms, counts, length };
  }

  private identifierId(text: string, start: number, end: number, hash: number): number {
    const mask = this.table.length - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.table[slot]!;
      if (entry === 0) return this.addIdentifier(text.slice(start, end), hash, slot);
      const id = entry - 1;
      if (this.hashes[id] !== hash) continue;
      const known = this.identifiers[id]!;
      if (known.length !== length) continue;
      let same = true;
      for (let offset = 0; offset < length; offset++) {
        if (known.charCodeAt(offset) !== text.charCodeAt(start + offset)) {
          same = false;
          break;
        }
      }
      if (same) return id;
    }
  }

  private addIdentifier(slice: string, hash: number, slot: number): number {
    // A fresh copy, so the identifier does not keep the whole file's text alive.
    const identifier = Buffer.from(slice, "latin1").toString("latin1");
    const id = this.identifiers.length;
    this.identifiers.push(identifier);
    this.identifierTerms.push(Uint32Array.from(tokenize(identifier), (token) => this.dictionary.intern(token)));
    if (id >= this.hashes.length) {
      this.hashes = grown(this.hashes, id + 1);
      this.identifierCounts = grown(this.identifierCounts, id + 1);
    }
    this.hashes[id] = hash;
    this.table[slot] = id + 1;
    if (this.identifiers.length * 2 > this.table.length) this.rehash();
    return id;
  }

  private rehash(): void {
    this.table = new Int32Array(this.table.length * 2);
    const mask = this.table.length - 1;
    for (let id = 0; id < this.identifiers.length; id++) {
      let slot = this.hashes[id]! & mask;
      while (this.table[slot] !== 0) slot = (slot + 1) & mask;
      this.table[slot] = id + 1;
    }
  }
}

function grown(array: Int32Array, needed: number): Int32Array {
  const larger = new Int32Array(Math.max(needed, array.length * 2));
  larger.set(array);
  return larger;
}
