/**
 * The term of each identifier part a counter has met, found by the part's lower-cased bytes
 * (interned: `ByteInterner`), each id holding the term id of the part's stem, or -1 for a
 * stopword. Only a part's first sight makes a string.
 */
import { ByteInterner, grown } from "./int-tables.js";
import type { TermDictionary } from "./store.js";
import { isStopword, stem } from "./tokenize.js";

export class IdentifierParts {
  private readonly parts = new ByteInterner(1 << 13, 1 << 16, 1 << 13);
  /** Part id → the term id of its stem (-1: a stopword). */
  private terms = new Int32Array(1 << 13);
  /** The part being looked up, lower-cased. */
  private lowered = new Uint8Array(64);

  /** The term id of the stem of the part source[start, end) (ASCII letters and digits), or -1 when the part is a stopword. */
  termOf(source: Uint8Array, start: number, end: number, dictionary: TermDictionary): number {
    const length = end - start;
    if (length > this.lowered.length) this.lowered = new Uint8Array(Math.max(length, 2 * this.lowered.length));
    const lowered = this.lowered;
    let hash = 0x811c9dc5 | 0;
    for (let offset = 0; offset < length; offset++) {
      const code = lowerCase(source[start + offset]!);
      lowered[offset] = code;
      hash = Math.imul(hash ^ code, 16777619);
    }
    const parts = this.parts;
    const id = parts.idOf(lowered, 0, length, hash);
    if (parts.added) {
      if (id + 1 > this.terms.length) this.terms = grown(this.terms, id + 1);
      const part = parts.bytes.toString("latin1", parts.startOf(id), parts.endOf(id));
      this.terms[id] = isStopword(part) ? -1 : dictionary.intern(stem(part));
    }
    return this.terms[id]!;
  }
}

function lowerCase(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}
