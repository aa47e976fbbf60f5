/**
 * Byte-level pieces of the segment format: unsigned LEB128 varints, a growing byte buffer, a
 * sink that writes a segment in order (to a file through a buffer, or into memory), and a
 * source that reads ranges of a segment on demand (positioned reads of a file, or slices of
 * bytes held in memory).
 */
import { closeSync, fstatSync, openSync, readSync, writeSync } from "node:fs";
import zlib from "node:zlib";

/** A damaged segment: the caller drops the index and rebuilds it. */
export class SegmentDamage extends Error {
  constructor(why: string) {
    super(`a segment of the code index is damaged: ${why}`);
  }
}

/** CRC-32 table (IEEE polynomial, reflected), for Node versions without `zlib.crc32`. */
let crcTable: Int32Array | undefined;

/** CRC-32 of `bytes` as zlib computes it, in script: for Node before 20.15, which has no `zlib.crc32`. */
export function crc32InScript(bytes: Uint8Array): number {
  if (crcTable === undefined) {
    crcTable = new Int32Array(256);
    for (let byte = 0; byte < 256; byte++) {
      let value = byte;
      for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
      crcTable[byte] = value;
    }
  }
  let crc = -1;
  for (let index = 0; index < bytes.length; index++) crc = crcTable[(crc ^ bytes[index]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/**
 * CRC-32 over bytes: a segment's sections are checked with it. zlib's, where Node has it, runs
 * at memory speed; a checksum computed in script cost 10–20 ms a megabyte in a fresh process,
 * where opening an index checks about 3 MB.
 */
export const checksumOf: (bytes: Uint8Array) => number = typeof zlib.crc32 === "function" ? (bytes) => zlib.crc32(bytes) : crc32InScript;

/** Writes `value` (a whole number ≥ 0) as a varint at bytes[at..] (room for 10 bytes); returns where it ends. */
function writeVarint(bytes: Uint8Array, at: number, value: number): number {
  let rest = value;
  let end = at;
  if (rest < 2 ** 32) {
    // Below 2^32 the bit operators see the whole value (`>>>` reads it as unsigned).
    while (rest >= 0x80) {
      bytes[end++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
  } else {
    while (rest >= 0x80) {
      bytes[end++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
  }
  bytes[end++] = rest;
  return end;
}

/** A growing run of bytes with varint and string writers. */
export class ByteBuffer {
  bytes = new Uint8Array(256);
  length = 0;
  /** `bytes` as a Buffer, to write strings in place (kept a Uint8Array: a Buffer's `slice` would not copy). */
  private writable = Buffer.from(this.bytes.buffer);

  private reserve(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    const larger = new Uint8Array(Math.max(this.length + extra, 2 * this.bytes.length));
    larger.set(this.bytes.subarray(0, this.length));
    this.bytes = larger;
    this.writable = Buffer.from(larger.buffer);
  }

  varint(value: number): void {
    this.reserve(10);
    this.length = writeVarint(this.bytes, this.length, value);
  }

  /** A posting list: the varint of each of ids[from, to) as its difference from the id before (the first from 0), each followed by its count's varint. */
  deltaPairs(ids: ArrayLike<number>, counts: ArrayLike<number>, from: number, to: number): void {
    this.reserve(20 * (to - from));
    const bytes = this.bytes;
    let at = this.length;
    let previous = 0;
    for (let index = from; index < to; index++) {
      at = writeVarint(bytes, at, ids[index]! - previous);
      at = writeVarint(bytes, at, counts[index]!);
      previous = ids[index]!;
    }
    this.length = at;
  }

  /** source[start, end), copied byte by byte (no view object for a few bytes). */
  bytesOf(source: Uint8Array, start: number, end: number): void {
    this.reserve(end - start);
    const bytes = this.bytes;
    for (let index = start; index < end; index++) bytes[this.length++] = source[index]!;
  }

  raw(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** A length-prefixed UTF-8 string. */
  text(value: string): void {
    // Written in place: no Buffer per string.
    const length = Buffer.byteLength(value, "utf8");
    this.varint(length);
    this.reserve(length);
    this.length += this.writable.write(value, this.length, length, "utf8");
  }

  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  clear(): void {
    this.length = 0;
  }
}

/** Reads varints and strings from bytes, checking every read stays inside them. */
export class ByteReader {
  position = 0;
  /** The same bytes as a Buffer, made once: a string is decoded from it without a Buffer object per string. */
  private readonly buffer: Buffer;

  constructor(private readonly bytes: Uint8Array) {
    this.buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  }

  get done(): boolean {
    return this.position >= this.bytes.length;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (let shift = 0; shift < 8; shift++) {
      const byte = this.bytes[this.position++];
      if (byte === undefined) throw new SegmentDamage("a number runs past its section");
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
    throw new SegmentDamage("a number is too long");
  }

  text(): string {
    const length = this.varint();
    if (this.position + length > this.bytes.length) throw new SegmentDamage("a word runs past its section");
    const value = this.buffer.toString("utf8", this.position, this.position + length);
    this.position += length;
    return value;
  }
}

/** Where a segment's bytes go, in order: `append` returns the offset it wrote at. */
export interface SegmentSink {
  append(bytes: Uint8Array): number;
  /** Writes what is buffered; returns the bytes when the sink keeps them in memory. */
  finish(): Uint8Array | undefined;
  readonly written: number;
}

/** Collects a segment in memory (an index kept in memory only, and tests). */
export class MemorySink implements SegmentSink {
  private readonly parts: Uint8Array[] = [];
  written = 0;

  append(bytes: Uint8Array): number {
    const at = this.written;
    this.parts.push(bytes.slice());
    this.written += bytes.length;
    return at;
  }

  finish(): Uint8Array {
    return Buffer.concat(this.parts);
  }
}

/** Writes a segment to an open file through a 1 MiB buffer. */
export class FileSink implements SegmentSink {
  private readonly buffer = Buffer.allocUnsafe(1 << 20);
  private buffered = 0;
  written = 0;

  constructor(private readonly descriptor: number) {}

  append(bytes: Uint8Array): number {
    const at = this.written;
    if (this.buffered + bytes.length > this.buffer.length) this.flush();
    if (bytes.length >= this.buffer.length) writeSync(this.descriptor, bytes);
    else {
      this.buffer.set(bytes, this.buffered);
      this.buffered += bytes.length;
    }
    this.written += bytes.length;
    return at;
  }

  private flush(): void {
    let done = 0;
    while (done < this.buffered) done += writeSync(this.descriptor, this.buffer, done, this.buffered - done);
    this.buffered = 0;
  }

  finish(): undefined {
    this.flush();
    return undefined;
  }
}

/** Ranges of a segment, read on demand. */
export interface SegmentSource {
  readonly size: number;
  read(offset: number, length: number): Uint8Array;
  close(): void;
}

export class MemorySource implements SegmentSource {
  constructor(private readonly bytes: Uint8Array) {}

  get size(): number {
    return this.bytes.length;
  }

  read(offset: number, length: number): Uint8Array {
    if (offset < 0 || offset + length > this.bytes.length) throw new SegmentDamage("a range lies outside the segment");
    return this.bytes.subarray(offset, offset + length);
  }

  close(): void {}
}

/** Positioned reads of a segment file kept open (it is never rewritten, only replaced by a new name). */
export class FileSource implements SegmentSource {
  readonly size: number;
  private descriptor: number | undefined;

  constructor(file: string) {
    this.descriptor = openSync(file, "r");
    this.size = fstatSync(this.descriptor).size;
  }

  read(offset: number, length: number): Uint8Array {
    if (this.descriptor === undefined) throw new SegmentDamage("it was closed");
    if (offset < 0 || offset + length > this.size) throw new SegmentDamage("a range lies outside the segment");
    const bytes = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const read = readSync(this.descriptor, bytes, done, length - done, offset + done);
      if (read === 0) throw new SegmentDamage("the file is shorter than it was");
      done += read;
    }
    return bytes;
  }

  close(): void {
    if (this.descriptor !== undefined) closeSync(this.descriptor);
    this.descriptor = undefined;
  }
}
