/**
 * The term of each identifier part a counter has met, found by the part's bytes: an open-addressing
 * table over the lower-cased bytes (kept in one pool), each entry holding the term id of the
 * part's stem, or -1 for a stopword. Only a part's first sight makes a string.
 */
import { grown, rehashed, roomFor } from "./int-tables.js";
import type { TermDictionary } from "./store.js";
import { isStopword, stem } from "./tokenize.js";

export class IdentifierParts {
  /** slot → entry + 1 (0 is empty), and the part's hash beside it. */
  private table = new Int32Array(1 << 14);
  private count = 0;
  /** Entry → its lower-cased bytes: `bytes[starts[entry] .. starts[entry + 1])`. */
  private bytes = Buffer.alloc(1 << 16);
  private starts = new Int32Array(1 << 13);
  private terms = new Int32Array(1 << 13);

  /** The term id of the stem of the part source[start, end) (ASCII letters and digits), or -1 when the part is a stopword. */
  termOf(source: Uint8Array, start: number, end: number, dictionary: TermDictionary): number {
    let hash = 0x811c9dc5 | 0;
    for (let position = start; position < end; position++) hash = Math.imul(hash ^ lowerCase(source[position]!), 16777619);
    const table = this.table;
    const mask = (table.length >> 1) - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = table[2 * slot]!;
      if (entry === 0) return this.add(source, start, end, hash, slot, dictionary);
      if (table[2 * slot + 1] !== hash) continue;
      const known = this.starts[entry - 1]!;
      if (this.starts[entry]! - known !== length) continue;
      let same = true;
      for (let offset = 0; offset < length; offset++) {
        if (this.bytes[known + offset] !== lowerCase(source[start + offset]!)) {
          same = false;
          break;
        }
      }
      if (same) return this.terms[entry - 1]!;
    }
  }

  private add(source: Uint8Array, start: number, end: number, hash: number, slot: number, dictionary: TermDictionary): number {
    const entry = this.count++;
    if (entry + 2 > this.starts.length) {
      this.starts = grown(this.starts, entry + 2);
      this.terms = grown(this.terms, entry + 2);
    }
    const first = this.starts[entry]!;
    const last = first + (end - start);
    this.bytes = roomFor(this.bytes, last);
    for (let offset = 0; offset < end - start; offset++) this.bytes[first + offset] = lowerCase(source[start + offset]!);
    this.starts[entry + 1] = last;
    const part = this.bytes.toString("latin1", first, last);
    this.terms[entry] = isStopword(part) ? -1 : dictionary.intern(stem(part));
    this.table[2 * slot] = entry + 1;
    this.table[2 * slot + 1] = hash;
    if (this.count * 4 > this.table.length) this.table = rehashed(this.table);
    return this.terms[entry]!;
  }
}

function lowerCase(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}
