/**
 * The block index of a segment's dictionaries: each block's first term, offset and checksum,
 * which a reader keeps in memory to find the one block a term can be in. Read at every open, so
 * stored as bytes rather than JSON (segment.ts names where it lies).
 */
import { SegmentDamage } from "./segment-bytes.js";

/** The first term of each block of a dictionary, in block order. */
export interface FirstTerms {
  readonly count: number;
  at(block: number): string;
}

/** First terms the writer has as strings. */
export function firstTermsOf(terms: readonly string[]): FirstTerms {
  return { count: terms.length, at: (block) => terms[block]! };
}

/**
 * First terms read from a block index: one text and where each term starts in it. A lookup
 * compares a term with about log2(count) of them, so only those become strings (a segment of a
 * large tree has thousands of blocks, and a one-off search looks up a few words).
 */
class StoredFirstTerms implements FirstTerms {
  constructor(
    private readonly text: string,
    /** Where each term starts in `text`, and one past the last's end. */
    private readonly starts: Uint32Array,
  ) {}

  get count(): number {
    return this.starts.length - 1;
  }

  at(block: number): string {
    return this.text.slice(this.starts[block], this.starts[block + 1]);
  }
}

/** A dictionary as a reader holds it: its blocks' first terms, offsets and checksums, where the blocks end, and where its postings start. */
export interface DictionaryFooter {
  firsts: FirstTerms;
  offsets: ArrayLike<number>;
  sums: ArrayLike<number>;
  /** Where the blocks end. */
  end: number;
  postings: number;
}

/** A dictionary as the footer's JSON names it: where its blocks start and end; the blocks' first terms, offsets and checksums are in the block index. */
export type StoredDictionary = Pick<DictionaryFooter, "end" | "postings"> & { start: number };

/**
 * The block index of dictionaries, as bytes (read at every open, so not JSON): per dictionary,
 * its block count and first terms' UTF-8 length, then offsets, checksums and first terms'
 * lengths in UTF-16 units (u32 each, little-endian), then the first terms' text.
 */
export function blockIndexBytes(dictionaries: readonly DictionaryFooter[]): Uint8Array {
  const parts = dictionaries.flatMap((dictionary) => {
    const count = dictionary.firsts.count;
    const firsts = Array.from({ length: count }, (_, block) => dictionary.firsts.at(block));
    const text = Buffer.from(firsts.join(""), "utf8");
    const numbers = Buffer.alloc(8 + 12 * count);
    numbers.writeUInt32LE(count, 0);
    numbers.writeUInt32LE(text.length, 4);
    for (let block = 0; block < count; block++) {
      numbers.writeUInt32LE(dictionary.offsets[block]!, 8 + 4 * block);
      numbers.writeUInt32LE(dictionary.sums[block]!, 8 + 4 * (count + block));
      numbers.writeUInt32LE(firsts[block]!.length, 8 + 4 * (2 * count + block));
    }
    return [numbers, text];
  });
  return Buffer.concat(parts);
}

/**
 * Where each block's first term starts in the text of first terms (and where the last ends): the
 * lengths summed. A loop over every block of a segment, in a function of its own so that V8
 * optimises it alone rather than with the whole reader around it.
 */
function startsOf(lengths: Uint32Array): Uint32Array {
  const starts = new Uint32Array(lengths.length + 1);
  for (let block = 0; block < lengths.length; block++) starts[block + 1] = starts[block]! + lengths[block]!;
  return starts;
}

/** The dictionaries' block indexes from `bytes` (as `blockIndexBytes` wrote them), in order. */
export function readBlockIndex(bytes: Uint8Array, stored: readonly StoredDictionary[]): DictionaryFooter[] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let at = 0;
  return stored.map(({ start, end, postings }) => {
    if (at + 8 > buffer.length) throw new SegmentDamage("its block index is cut short");
    const count = buffer.readUInt32LE(at);
    const textLength = buffer.readUInt32LE(at + 4);
    const textAt = at + 8 + 12 * count;
    if (textAt + textLength > buffer.length) throw new SegmentDamage("its block index is cut short");
    const text = buffer.toString("utf8", textAt, textAt + textLength);
    // One copy of the numbers, at a multiple of 4, viewed as offsets, checksums and lengths.
    const numbers = new Uint32Array(Uint8Array.prototype.slice.call(buffer, at + 8, textAt).buffer);
    const offsets = numbers.subarray(0, count);
    const sums = numbers.subarray(count, 2 * count);
    const lengths = numbers.subarray(2 * count);
    const starts = startsOf(lengths);
    const position = starts[count]!;
    if (position !== text.length || (count > 0 && offsets[0] !== start)) throw new SegmentDamage("its block index does not match its dictionary");
    at = textAt + textLength;
    return { firsts: new StoredFirstTerms(text, starts), offsets, sums, end, postings };
  });
}
