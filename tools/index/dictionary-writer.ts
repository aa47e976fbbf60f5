/**
 * Writes one of a segment's sorted dictionaries (segment.ts): blocks of `BLOCK_TERMS` entries of
 * term, document frequency, postings offset and length, each block checksummed, with each
 * block's first term and offset kept for the block index.
 */
import { type DictionaryFooter, firstTermsOf } from "./block-index.js";
import { ByteBuffer, checksumOf, type SegmentSink } from "./segment-bytes.js";

/** Entries in a dictionary block. */
const BLOCK_TERMS = 32;

/** Writes a sorted dictionary: entries of term, document frequency, postings offset and length. */
export class DictionaryWriter {
  private readonly blocks = new ByteBuffer();
  private readonly footer: { firsts: string[]; offsets: number[]; sums: number[] } = { firsts: [], offsets: [], sums: [] };
  private inBlock = 0;
  private blockStart = 0;
  private last: string | undefined;
  /** The last term added as bytes (a copy: the caller's bytes may change), to check the order of the next. */
  private lastBytes = new Uint8Array(64);
  private lastLength = -1;

  add(term: string, frequency: number, offset: number, length: number): void {
    if (this.last !== undefined && !(this.last < term)) throw new Error(`terms out of order: ${this.last} then ${term}`);
    this.last = term;
    if (this.opensBlock()) this.footer.firsts.push(term);
    this.blocks.text(term);
    this.entryNumbers(frequency, offset, length);
  }

  /** Adds a term given as source[start, end) (ASCII, so its bytes order it as code units do); only a block's first term becomes a string. */
  addBytes(source: Uint8Array, start: number, end: number, frequency: number, offset: number, length: number): void {
    if (this.lastLength >= 0 && !this.follows(source, start, end)) {
      const text = (bytes: Uint8Array, from: number, to: number) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8", from, to);
      throw new Error(`terms out of order: ${text(this.lastBytes, 0, this.lastLength)} then ${text(source, start, end)}`);
    }
    if (end - start > this.lastBytes.length) this.lastBytes = new Uint8Array(2 * (end - start));
    const last = this.lastBytes;
    for (let index = start; index < end; index++) last[index - start] = source[index]!;
    this.lastLength = end - start;
    if (this.opensBlock()) this.footer.firsts.push(Buffer.from(source.buffer, source.byteOffset, source.length).toString("utf8", start, end));
    this.blocks.varint(end - start);
    this.blocks.bytesOf(source, start, end);
    this.entryNumbers(frequency, offset, length);
  }

  /** Whether source[start, end) orders after the last term added as bytes. */
  private follows(source: Uint8Array, start: number, end: number): boolean {
    const last = this.lastBytes;
    const shared = Math.min(this.lastLength, end - start);
    for (let index = 0; index < shared; index++) {
      if (last[index] !== source[start + index]) return last[index]! < source[start + index]!;
    }
    return this.lastLength < end - start;
  }

  /** Counts an entry in, closing a full block first; true when the entry opens a block (whose first term the caller names). */
  private opensBlock(): boolean {
    if (this.inBlock === BLOCK_TERMS) this.closeBlock();
    this.inBlock++;
    if (this.inBlock > 1) return false;
    this.footer.offsets.push(this.blocks.length);
    this.blockStart = this.blocks.length;
    return true;
  }

  private entryNumbers(frequency: number, offset: number, length: number): void {
    this.blocks.varint(frequency);
    this.blocks.varint(offset);
    this.blocks.varint(length);
  }

  private closeBlock(): void {
    this.footer.sums.push(checksumOf(this.blocks.bytes.subarray(this.blockStart, this.blocks.length)));
    this.inBlock = 0;
  }

  /** Writes the blocks; offsets in the footer are relative to where they start. */
  finish(sink: SegmentSink, postings: number): DictionaryFooter {
    if (this.inBlock > 0) this.closeBlock();
    const at = sink.append(this.blocks.view());
    return { firsts: firstTermsOf(this.footer.firsts), sums: this.footer.sums, offsets: this.footer.offsets.map((offset) => offset + at), end: at + this.blocks.length, postings };
  }
}
