/**
 * The block index of a segment's dictionaries: each block's first term, offset and checksum,
 * which a reader keeps in memory to find the one block a term can be in. Read at every open, so
 * stored as bytes rather than JSON (segment.ts names where it lies).
 */
import { SegmentDamage } from "./segment-bytes.js";

/** A dictionary as a reader holds it: its blocks' first terms, offsets and checksums, where the blocks end, and where its postings start. */
export interface DictionaryFooter {
  firsts: string[];
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
    const count = dictionary.firsts.length;
    const text = Buffer.from(dictionary.firsts.join(""), "utf8");
    const numbers = Buffer.alloc(8 + 12 * count);
    numbers.writeUInt32LE(count, 0);
    numbers.writeUInt32LE(text.length, 4);
    for (let block = 0; block < count; block++) {
      numbers.writeUInt32LE(dictionary.offsets[block]!, 8 + 4 * block);
      numbers.writeUInt32LE(dictionary.sums[block]!, 8 + 4 * (count + block));
      numbers.writeUInt32LE(dictionary.firsts[block]!.length, 8 + 4 * (2 * count + block));
    }
    return [numbers, text];
  });
  return Buffer.concat(parts);
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
    const firsts: string[] = new Array(count);
    let position = 0;
    for (let block = 0; block < count; block++) {
      firsts[block] = text.slice(position, position + lengths[block]!);
      position += lengths[block]!;
    }
    if (position !== text.length || (count > 0 && offsets[0] !== start)) throw new SegmentDamage("its block index does not match its dictionary");
    at = textAt + textLength;
    return { firsts, offsets, sums, end, postings };
  });
}
