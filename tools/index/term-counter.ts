/**
 * Counts a chunk's terms without building strings on the hot path: identifiers are scanned by
 * character code, hashed, and found in an open-addressing table of identifiers seen before
 * (compared character by character); each identifier's term ids (its tokens, see tokenize.ts)
 * are worked out once and kept in one flat array. Counting then runs over typed arrays indexed
 * by id.
 */
import type { TermDictionary } from "./store.js";
import { identifierTokens } from "./tokenize.js";

const MAX_IDENTIFIER = 64;

/** Character classes of ASCII: 1 starts or continues an identifier, 2 is a digit, 0 neither. */
const CHARACTER_CLASS = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  const character = String.fromCharCode(code);
  CHARACTER_CLASS[code] = /[A-Za-z_$]/.test(character) ? 1 : /[0-9]/.test(character) ? 2 : 0;
}

export class TermCounter {
  /** Open addressing: slot → identifier id + 1 (0 is empty), and the identifier's hash beside it. */
  private table = new Int32Array(1 << 17);
  private readonly identifiers: string[] = [];
  /** Identifier id → its term ids: `termPool[termStart[id] .. termStart[id + 1])`. */
  private termStart = new Int32Array(1 << 15);
  private termPool = new Int32Array(1 << 16);
  private termPoolLength = 0;
  private identifierCounts = new Int32Array(1 << 15);
  private touchedIdentifiers = new Int32Array(1024);
  private touchedIdentifierCount = 0;
  private termCounts = new Int32Array(1 << 16);
  private touchedTerms = new Int32Array(1024);
  private scratch = new Uint32Array(1 << 16);
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
      if (this.identifierCounts[id] === 0) {
        if (this.touchedIdentifierCount === this.touchedIdentifiers.length) this.touchedIdentifiers = grown(this.touchedIdentifiers, this.touchedIdentifierCount + 1);
        this.touchedIdentifiers[this.touchedIdentifierCount++] = id;
      }
      this.identifierCounts[id]! += weight;
    }
  }

  /**
   * Ends the chunk: its distinct term ids and counts are appended to the file's scratch space,
   * and its place there returned; `takeFile` hands over the whole file's numbers at once.
   */
  finishChunk(): { offset: number; distinct: number; length: number } {
    if (this.termCounts.length < this.dictionary.size) this.termCounts = grown(this.termCounts, this.dictionary.size);
    const termCounts = this.termCounts;
    const identifierCounts = this.identifierCounts;
    const termStart = this.termStart;
    const termPool = this.termPool;
    let touchedTerms = this.touchedTerms;
    let distinct = 0;
    for (let index = 0; index < this.touchedIdentifierCount; index++) {
      const id = this.touchedIdentifiers[index]!;
      const count = identifierCounts[id]!;
      identifierCounts[id] = 0;
      const last = termStart[id + 1]!;
      for (let position = termStart[id]!; position < last; position++) {
        const term = termPool[position]!;
        if (termCounts[term] === 0) {
          if (distinct === touchedTerms.length) touchedTerms = this.touchedTerms = grown(touchedTerms, distinct + 1);
          touchedTerms[distinct++] = term;
        }
        termCounts[term]! += count;
      }
    }
    this.touchedIdentifierCount = 0;
    const offset = this.scratchLength;
    if (offset + 2 * distinct > this.scratch.length) this.scratch = grown(this.scratch, offset + 2 * distinct);
    const scratch = this.scratch;
    let length = 0;
    for (let index = 0; index < distinct; index++) {
      const term = touchedTerms[index]!;
      const count = termCounts[term]!;
      scratch[offset + index] = term;
      scratch[offset + distinct + index] = count;
      length += count;
      termCounts[term] = 0;
    }
    this.scratchLength += 2 * distinct;
    return { offset, distinct, length };
  }

  /** The file's chunk numbers (one buffer for all its chunks); resets the scratch space. */
  takeFile(): Uint32Array {
    const numbers = this.scratch.slice(0, this.scratchLength);
    this.scratchLength = 0;
    return numbers;
  }

  private identifierId(text: string, start: number, end: number, hash: number): number {
    const table = this.table;
    const mask = (table.length >> 1) - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = table[2 * slot]!;
      if (entry === 0) return this.addIdentifier(text.slice(start, end), hash, slot);
      if (table[2 * slot + 1] !== hash) continue;
      const id = entry - 1;
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
    if (id + 2 > this.termStart.length) {
      this.termStart = grown(this.termStart, id + 2);
      this.identifierCounts = grown(this.identifierCounts, id + 2);
    }
    // The scan above finds exactly the identifiers tokenize() would, so each is one token source.
    const tokens = identifierTokens(identifier);
    if (this.termPoolLength + tokens.length > this.termPool.length) this.termPool = grown(this.termPool, this.termPoolLength + tokens.length);
    for (const token of tokens) this.termPool[this.termPoolLength++] = this.dictionary.intern(token);
    this.termStart[id + 1] = this.termPoolLength;
    this.table[2 * slot] = id + 1;
    this.table[2 * slot + 1] = hash;
    if (this.identifiers.length * 4 > this.table.length) this.rehash();
    return id;
  }

  private rehash(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2);
    const mask = (this.table.length >> 1) - 1;
    for (let slot = 0; slot < old.length; slot += 2) {
      const entry = old[slot]!;
      if (entry === 0) continue;
      let target = old[slot + 1]! & mask;
      while (this.table[2 * target] !== 0) target = (target + 1) & mask;
      this.table[2 * target] = entry;
      this.table[2 * target + 1] = old[slot + 1]!;
    }
  }
}

function grown<Numbers extends Int32Array | Uint32Array>(array: Numbers, needed: number): Numbers {
  const larger = new (array.constructor as new (length: number) => Numbers)(Math.max(needed, array.length * 2));
  larger.set(array);
  return larger;
}
