/**
 * Counts a chunk's terms straight from a file's bytes, without building strings on the hot path:
 * identifiers are scanned byte by byte, hashed, and found in an open-addressing table of
 * identifiers seen before (their bytes kept in one pool and compared byte by byte); each
 * identifier's term ids (its tokens, see tokenize.ts) are worked out once and kept in one flat
 * array. Counting then runs over typed arrays indexed by id.
 *
 * Only ASCII letters, digits, `_` and `$` make identifiers, so a byte of 0x80 or more (any part
 * of a UTF-8 sequence) separates them exactly as the character it encodes does in text.
 */
import { CHUNK_HEADER, type TermDictionary } from "./store.js";
import { IdentifierParts, lowerCasedInto, stemTermOf } from "./identifier-parts.js";
import { ByteInterner, grown } from "./int-tables.js";
import { forEachPart, isStopwordBytes } from "./tokenize.js";

const MAX_IDENTIFIER = 64;
/** Past this many terms or identifiers a counter is `crowded`: its owner starts a new one (with a new dictionary), bounding memory on any tree. */
const CROWDED = 200_000;

/** Byte classes: 1 starts or continues an identifier, 2 is a digit, 0 neither. */
const BYTE_CLASS = new Uint8Array(256);
for (let code = 0; code < 128; code++) {
  const character = String.fromCharCode(code);
  BYTE_CLASS[code] = /[A-Za-z_$]/.test(character) ? 1 : /[0-9]/.test(character) ? 2 : 0;
}

export class TermCounter {
  /** The identifiers met, by their bytes. */
  private readonly identifiers: ByteInterner;
  /**
   * Identifier id → its term ids: `termPool[termStart[id] .. termStart[id + 1])`. The tables start
   * small and grow (a re-index of a few files in a fresh process touches every page of a large
   * table it allocates: 4 KB pages at about 27 µs each on this VM); a build's counter keeps the
   * sizes it grew to when it starts afresh (`restart`).
   */
  private termStart = new Int32Array(1 << 11);
  private termPool = new Int32Array(1 << 12);
  private termPoolLength = 0;
  private identifierCounts = new Int32Array(1 << 11);
  private touchedIdentifiers = new Int32Array(1024);
  private touchedIdentifierCount = 0;
  private termCounts = new Int32Array(1 << 12);
  private touchedTerms = new Int32Array(1024);
  private scratch = new Uint32Array(1 << 12);
  private scratchLength = 0;
  /** The stem's term id of each identifier part met, by the part's bytes. */
  private readonly parts = new IdentifierParts();
  /** An identifier at its first sight, lower-cased (one byte more for a stem's `y`), and where its parts start and end. */
  private readonly lowered = new Uint8Array(MAX_IDENTIFIER + 1);
  private readonly loweredAt = (position: number) => this.lowered[position]!;
  private readonly partBounds = new Int32Array(2 * MAX_IDENTIFIER);
  // A Buffer like the files' bytes, so `add` sees one kind of array.
  private textBytes = Buffer.alloc(256);

  constructor(private dictionary: TermDictionary) {
    this.identifiers = new ByteInterner(1 << 12, 1 << 15, 1 << 11);
  }

  /**
   * Starts afresh over `dictionary` (an empty one) between files: forgets every identifier and
   * part, keeping the tables. Made anew, they were the largest allocations of an analysis thread
   * (about 20 MB at a reset), touched page by page again, and the old ones held until V8 collected
   * their owner.
   */
  restart(dictionary: TermDictionary): void {
    this.dictionary = dictionary;
    this.identifiers.clear();
    this.parts.clear();
    this.termPoolLength = 0;
  }

  /** True once the dictionary or the identifiers seen have grown past what one counter should keep. */
  get crowded(): boolean {
    return this.identifiers.count > CROWDED || this.dictionary.count > CROWDED;
  }

  /** Adds the terms of bytes[start, end) (UTF-8) to the current chunk, each occurrence counted `weight` times. */
  add(bytes: Uint8Array, start = 0, end = bytes.length, weight = 1): void {
    let position = start;
    while (position < end) {
      const kind = BYTE_CLASS[bytes[position]!]!;
      if (kind === 0) {
        position++;
        continue;
      }
      const from = position;
      let hash = 0x811c9dc5 | 0;
      // A digit run is its own token; an identifier runs on through letters and digits.
      const digitsOnly = kind === 2;
      while (position < end) {
        const code = bytes[position]!;
        const nextKind = BYTE_CLASS[code]!;
        if (nextKind === 0 || (digitsOnly && nextKind !== 2)) break;
        hash = Math.imul(hash ^ code, 16777619);
        position++;
      }
      if (position - from > MAX_IDENTIFIER) continue;
      const id = this.identifierId(bytes, from, position, hash);
      if (this.identifierCounts[id] === 0) {
        if (this.touchedIdentifierCount === this.touchedIdentifiers.length) this.touchedIdentifiers = grown(this.touchedIdentifiers, this.touchedIdentifierCount + 1);
        this.touchedIdentifiers[this.touchedIdentifierCount++] = id;
      }
      this.identifierCounts[id]! += weight;
    }
  }

  /** Adds the terms of a short text (a path, a symbol name) to the current chunk. */
  addText(text: string, weight = 1): void {
    if (text.length > this.textBytes.length) this.textBytes = Buffer.alloc(Math.max(text.length, 2 * this.textBytes.length));
    const bytes = this.textBytes;
    // Any character outside ASCII separates identifiers, as any byte of 0x80 or more does.
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      bytes[index] = Math.min(code, 128);
    }
    this.add(bytes, 0, text.length, weight);
  }

  /**
   * Ends the chunk of lines startLine..endLine (bytes startByte..endByte): its record (see `CHUNK_HEADER` in store.ts) is
   * appended to the file's numbers, and where its terms start returned; `takeFile` hands over
   * the whole file's numbers at once.
   */
  finishChunk(startLine: number, endLine: number, startByte: number, endByte: number): { termsAt: number; distinct: number; length: number } {
    if (this.termCounts.length < this.dictionary.count) this.termCounts = grown(this.termCounts, this.dictionary.count);
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
    const offset = this.scratchLength + CHUNK_HEADER;
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
    const header = offset - CHUNK_HEADER;
    scratch[header] = startLine;
    scratch[header + 1] = endLine;
    scratch[header + 2] = length;
    scratch[header + 3] = startByte;
    scratch[header + 4] = endByte;
    scratch[header + 5] = distinct;
    this.scratchLength = offset + 2 * distinct;
    return { termsAt: offset, distinct, length };
  }

  /** The file's chunk records (one buffer for all its chunks); resets the scratch space. */
  takeFile(): Uint32Array {
    const numbers = this.scratch.slice(0, this.scratchLength);
    this.scratchLength = 0;
    return numbers;
  }

  private identifierId(bytes: Uint8Array, start: number, end: number, hash: number): number {
    const identifiers = this.identifiers;
    const id = identifiers.idOf(bytes, start, end, hash);
    if (!identifiers.added) return id;
    if (id + 2 > this.termStart.length) {
      this.termStart = grown(this.termStart, id + 2);
      this.identifierCounts = grown(this.identifierCounts, id + 2);
    }
    // The scan above finds exactly the identifiers tokenize() would, so each is one token source.
    this.addTermsOf(identifiers.startOf(id), identifiers.endOf(id));
    this.termStart[id + 1] = this.termPoolLength;
    return id;
  }

  /**
   * Appends to the term pool the term ids of the identifier at `identifiers.bytes[first, last)`, as
   * `identifierTokens` gives its tokens, working on its lower-cased bytes: a term the dictionary
   * has met costs no string. An identifier of several parts (camelCase, snake_case) finds each
   * part's stem through the part table, so a part met before is not stemmed again.
   */
  private addTermsOf(first: number, last: number): void {
    const pool = this.identifiers.bytes;
    const length = last - first;
    const lowered = this.lowered;
    const hash = lowerCasedInto(lowered, pool, first, last);
    const bounds = this.partBounds;
    let parts = 0;
    // A digit run is one part; so is an identifier of one word, which skips the split.
    if (BYTE_CLASS[pool[first]!] !== 2) {
      parts = forEachPart(length, this.identifierAt(first), (start, end) => {
        bounds[2 * parts] = start;
        bounds[2 * parts + 1] = end;
        parts++;
      });
    }
    if (parts <= 1) {
      // Its whole form, and its stem when that differs; nothing for a stopword or one character.
      if (length < 2 || isStopwordBytes(lowered, 0, length, hash)) return;
      this.pushTerm(this.dictionary.internBytes(lowered, 0, length, hash));
      const stemmed = stemTermOf(lowered, length, hash, this.loweredAt, this.dictionary);
      if (stemmed !== this.termPool[this.termPoolLength - 1]) this.pushTerm(stemmed);
      return;
    }
    this.pushTerm(this.dictionary.internBytes(lowered, 0, length, hash));
    for (let part = 0; part < parts; part++) {
      const start = bounds[2 * part]!;
      const end = bounds[2 * part + 1]!;
      if (end - start < 2) continue;
      const term = this.parts.termOf(pool, first + start, first + end, this.dictionary);
      if (term >= 0) this.pushTerm(term);
    }
  }

  /** A reader of the identifier pool's bytes from `first` on. */
  private identifierAt(first: number): (position: number) => number {
    const pool = this.identifiers.bytes;
    return (position) => pool[first + position]!;
  }

  private pushTerm(term: number): void {
    if (this.termPoolLength === this.termPool.length) this.termPool = grown(this.termPool, this.termPoolLength + 1);
    this.termPool[this.termPoolLength++] = term;
  }
}
