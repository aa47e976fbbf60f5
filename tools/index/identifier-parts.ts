/**
 * The term of each identifier part a counter has met, found by the part's lower-cased bytes
 * (interned: `ByteInterner`), each id holding the term id of the part's stem, or -1 for a
 * stopword. A part's first sight is stemmed on its bytes too: no string is made unless its stem
 * is a term the dictionary has not met.
 */
import { ByteInterner, grown, hashOfBytes } from "./int-tables.js";
import type { TermDictionary } from "./store.js";
import { isStopwordBytes, stemCut } from "./tokenize.js";

export class IdentifierParts {
  private readonly parts = new ByteInterner(1 << 11, 1 << 14, 1 << 11);
  /** Part id → the term id of its stem (-1: a stopword). */
  private terms = new Int32Array(1 << 11);
  /** The part being looked up, lower-cased. */
  private lowered = new Uint8Array(64);
  private readonly loweredAt = (position: number) => this.lowered[position]!;

  /** Forgets every part (their stems' term ids name a dictionary no longer in use), keeping the tables. */
  clear(): void {
    this.parts.clear();
  }

  /** The term id of the stem of the part source[start, end) (ASCII letters and digits), or -1 when the part is a stopword. */
  termOf(source: Uint8Array, start: number, end: number, dictionary: TermDictionary): number {
    const length = end - start;
    if (length + 1 > this.lowered.length) this.lowered = new Uint8Array(Math.max(length + 1, 2 * this.lowered.length));
    const lowered = this.lowered;
    const hash = lowerCasedInto(lowered, source, start, end);
    const parts = this.parts;
    const id = parts.idOf(lowered, 0, length, hash);
    if (parts.added) {
      if (id + 1 > this.terms.length) this.terms = grown(this.terms, id + 1);
      this.terms[id] = isStopwordBytes(lowered, 0, length, hash) ? -1 : stemTermOf(lowered, length, hash, this.loweredAt, dictionary);
    }
    return this.terms[id]!;
  }
}

/**
 * The term id of the stem of the lower-cased word bytes[0, length) (FNV-1a hash `hash`; `codeAt`
 * reads `bytes`): stemmed in place, so `bytes` needs room for one byte more (the `y` of `ies`).
 */
export function stemTermOf(bytes: Uint8Array, length: number, hash: number, codeAt: (position: number) => number, dictionary: TermDictionary): number {
  const cut = stemCut(length, codeAt);
  if (cut === 2 * length) return dictionary.internBytes(bytes, 0, length, hash);
  const end = cut >> 1;
  if (cut % 2 === 1) bytes[end] = Y;
  const stemLength = end + (cut % 2);
  return dictionary.internBytes(bytes, 0, stemLength, hashOfBytes(bytes, 0, stemLength));
}

const Y = 121;

/** Writes source[start, end) lower-cased (ASCII) to target[0..]; returns the FNV-1a hash of what it wrote. */
export function lowerCasedInto(target: Uint8Array, source: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5 | 0;
  for (let offset = 0; offset < end - start; offset++) {
    const code = source[start + offset]!;
    const lower = code >= 65 && code <= 90 ? code + 32 : code;
    target[offset] = lower;
    hash = Math.imul(hash ^ lower, 16777619);
  }
  return hash;
}
