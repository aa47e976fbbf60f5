/**
 * Counts a chunk's terms without building strings on the hot path: identifiers are scanned by
 * character code, hashed, and found in an open-addressing table of identifiers seen before
 * (compared character by character); each identifier's term ids (its tokens, see tokenize.ts)
 * are worked out once. Counting then runs over typed arrays indexed by id.
 */
import type { TermDictionary } from "./store.js";
import { tokenize } from "./tokenize.js";

const MAX_IDENTIFIER = 64;

/** Character classes of ASCII: 1 starts or continues an identifier, 2 is a digit, 0 neither. */
const CHARACTER_CLASS = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  const character = String.fromCharCode(code);
  CHARACTER_CLASS[code] = /[A-Za-z_$]/.test(character) ? 1 : /[0-9]/.test(character) ? 2 : 0;
}

export class TermCounter {
  private table: Int32Array = new Int32Array(1 << 16);
  private hashes: Int32Array = new Int32Array(1 << 15);
  private readonly identifiers: string[] = [];
  private readonly identifierTerms: Uint32Array[] = [];
  private identifierCounts: Int32Array = new Int32Array(1 << 15);
  private touchedIdentifiers: number[] = [];
  private termCounts: Int32Array = new Int32Array(1 << 16);
  private touchedTerms: Int32Array = new Int32Array(1024);
  private scratch: Int32Array = new Int32Array(1 << 16);
  private scratchLength = 0;

  constructor(private readonly dictionary: TermDictionary) {}

  /** Adds the terms of text[start, end) to the current chunk, each occurrence counted `weight` times. */
  add(text: string, start = 0, end = text.length, weight = 1): void {
    let position = start;
    while (position < end) {
      const code = text.charCodeAt(position);
      const kind = code < 128 ? CHARACTER_CLASS[code]! : 0;
      if (kind === 0) {
        position++;
        continue;
      }
      const from = position;
      let hash = 0x811c9dc5 | 0;
      // A digit run is its own token; an identifier runs on through letters and digits.
      while (position < end) {
        const next = text.charCodeAt(position);
        const nextKind = next < 128 ? CHARACTER_CLASS[next]! : 0;
        if (nextKind === 0 || (kind === 2 && nextKind !== 2)) break;
        hash = Math.imul(hash ^ next, 16777619);
        position++;
      }
      if (position - from > MAX_IDENTIFIER) continue;
      const id = this.identifierId(text, from, position, hash);
      if (this.identifierCounts[id] === 0) this.touchedIdentifiers.push(id);
      this.identifierCounts[id]! += weight;
    }
  }

  /**
   * Ends the chunk: its distinct term ids and counts are appended to the file's scratch space,
   * and its place there returned; `takeFile` hands over the whole file's numbers at once.
   */
  finishChunk(): { offset: number; distinct: number; length: number } {
    if (this.termCounts.length < this.dictionary.size) this.termCounts = grown(this.termCounts, this.dictionary.size);
    let distinct = 0;
    const touched = this.touchedIdentifiers;
    for (let index = 0; index < touched.length; index++) {
      const id = touched[index]!;
      const count = this.identifierCounts[id]!;
      this.identifierCounts[id] = 0;
      const terms = this.identifierTerms[id]!;
      for (let position = 0; position < terms.length; position++) {
        const term = terms[position]!;
        if (this.termCounts[term] === 0) {
          if (distinct === this.touchedTerms.length) this.touchedTerms = grown(this.touchedTerms, distinct + 1);
          this.touchedTerms[distinct++] = term;
        }
        this.termCounts[term]! += count;
      }
    }
    touched.length = 0;
    const offset = this.scratchLength;
    if (offset + 2 * distinct > this.scratch.length) this.scratch = grown(this.scratch, offset + 2 * distinct);
    let length = 0;
    for (let index = 0; index < distinct; index++) {
      const term = this.touchedTerms[index]!;
      const count = this.termCounts[term]!;
      this.scratch[offset + index] = term;
      this.scratch[offset + distinct + index] = count;
      length += count;
      this.termCounts[term] = 0;
    }
    this.scratchLength += 2 * distinct;
    return { offset, distinct, length };
  }

  /** The file's chunk numbers (one buffer for all its chunks); resets the scratch space. */
  takeFile(): Uint32Array {
    const numbers = Uint32Array.from(this.scratch.subarray(0, this.scratchLength));
    this.scratchLength = 0;
    return numbers;
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
