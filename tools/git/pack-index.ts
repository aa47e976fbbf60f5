/**
 * A pack index (`objects/pack/pack-*.idx`, version 1 or 2) read with positioned reads: the
 * fan-out table once, then the names and offsets of one first-byte bucket at a time, kept in a
 * bounded cache. A large pack's index is never read whole, and a damaged one is refused with a
 * clear error before any offset from it is trusted.
 */
import { ToolError } from "../errors.js";

/** The synchronous file calls the pack reader makes (node:fs by default; tests count them). */
export interface PackFileSystem {
  openSync(file: string, flags: "r"): number;
  closeSync(fd: number): void;
  fstatSync(fd: number): { size: number };
  readSync(fd: number, buffer: Buffer, offset: number, length: number, position: number): number;
}

const VERSION_2_MAGIC = 0xff744f63;
const FANOUT_BYTES = 256 * 4;
const NAME_BYTES = 20;
/** How many bytes of bucket data one index keeps (names and offsets; the least recently used go first). */
const KEPT_BUCKET_BYTES = 8 * 1024 * 1024;

interface Bucket {
  names: Buffer;
  /** v2: 4-byte offsets; v1: undefined (the offsets sit before each name, in `names`' stride). */
  offsets?: Buffer;
  stride: number;
  nameAt: number;
}

/** Reads exactly `length` bytes at `position`, or throws when the file is shorter. */
export function readExactly(fs: PackFileSystem, fd: number, position: number, length: number, describe: () => ToolError): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const read = fs.readSync(fd, buffer, done, length - done, position + done);
    if (read === 0) throw describe();
    done += read;
  }
  return buffer;
}

export class PackIndex {
  private readonly fanout: Uint32Array;
  private readonly buckets = new Map<number, Bucket>();
  private keptBytes = 0;
  /** The number of objects in the pack. */
  readonly count: number;
  /** The pack's checksum as the index records it (the pack's last 20 bytes must equal it). */
  readonly packChecksum: Buffer;

  private constructor(
    private readonly fs: PackFileSystem,
    private readonly fd: number,
    readonly file: string,
    private readonly version: 1 | 2,
    size: number,
  ) {
    const tableAt = version === 2 ? 8 : 0;
    const table = readExactly(fs, fd, tableAt, FANOUT_BYTES, () => this.corrupt("it ends inside its fan-out table"));
    this.fanout = new Uint32Array(256);
    for (let byte = 0; byte < 256; byte++) {
      this.fanout[byte] = table.readUInt32BE(byte * 4);
      if (byte > 0 && this.fanout[byte]! < this.fanout[byte - 1]!) throw this.corrupt("its fan-out table is not in order");
    }
    this.count = this.fanout[255]!;
    const smallest = version === 2 ? 8 + FANOUT_BYTES + this.count * (NAME_BYTES + 8) + 40 : FANOUT_BYTES + this.count * (NAME_BYTES + 4) + 40;
    const largest = version === 2 ? smallest + this.count * 8 : smallest;
    if (size < smallest || size > largest || (size - smallest) % 8 !== 0) {
      throw this.corrupt(`its size (${size} bytes) does not fit the ${this.count} objects its fan-out table counts`);
    }
    this.packChecksum = readExactly(fs, fd, size - 40, NAME_BYTES, () => this.corrupt("it is cut short"));
  }

  /** Opens and checks an index file; `corrupt_file` when it is not a pack index git could use. */
  static open(fs: PackFileSystem, file: string): PackIndex {
    const fd = fs.openSync(file, "r");
    try {
      const size = fs.fstatSync(fd).size;
      if (size < FANOUT_BYTES + 40) throw corruptIndex(file, `it is only ${size} bytes long`);
      const head = readExactly(fs, fd, 0, 8, () => corruptIndex(file, "it is cut short"));
      let version: 1 | 2 = 1;
      if (head.readUInt32BE(0) === VERSION_2_MAGIC) {
        if (head.readUInt32BE(4) !== 2) throw corruptIndex(file, `its version ${head.readUInt32BE(4)} is not one git writes (2)`);
        version = 2;
      }
      return new PackIndex(fs, fd, file, version, size);
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }

  close(): void {
    this.fs.closeSync(this.fd);
  }

  /** The object's offset in the pack, or undefined when this pack does not hold it. */
  offsetOf(oid: Buffer): number | undefined {
    const first = oid[0]!;
    const bucket = this.bucket(first);
    let low = 0;
    let high = bucket.names.length / bucket.stride;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const at = middle * bucket.stride + bucket.nameAt;
      const order = bucket.names.compare(oid, 0, NAME_BYTES, at, at + NAME_BYTES);
      if (order === 0) return this.offsetAt(bucket, middle);
      if (order > 0) high = middle;
      else low = middle + 1;
    }
    return undefined;
  }

  private offsetAt(bucket: Bucket, position: number): number {
    if (bucket.offsets === undefined) return bucket.names.readUInt32BE(position * bucket.stride);
    const offset = bucket.offsets.readUInt32BE(position * 4);
    if ((offset & 0x80000000) === 0) return offset;
    const large = offset & 0x7fffffff;
    const tableAt = 8 + FANOUT_BYTES + this.count * (NAME_BYTES + 8);
    const bytes = readExactly(this.fs, this.fd, tableAt + large * 8, 8, () => this.corrupt("a large offset points past its end"));
    const value = bytes.readBigUInt64BE(0);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw this.corrupt("an offset is larger than any file");
    return Number(value);
  }

  private bucket(first: number): Bucket {
    const known = this.buckets.get(first);
    if (known !== undefined) {
      this.buckets.delete(first);
      this.buckets.set(first, known);
      return known;
    }
    const start = first === 0 ? 0 : this.fanout[first - 1]!;
    const length = this.fanout[first]! - start;
    const short = () => this.corrupt("it is cut short");
    let bucket: Bucket;
    if (this.version === 2) {
      const names = readExactly(this.fs, this.fd, 8 + FANOUT_BYTES + start * NAME_BYTES, length * NAME_BYTES, short);
      const offsets = readExactly(this.fs, this.fd, 8 + FANOUT_BYTES + this.count * (NAME_BYTES + 4) + start * 4, length * 4, short);
      bucket = { names, offsets, stride: NAME_BYTES, nameAt: 0 };
    } else {
      bucket = { names: readExactly(this.fs, this.fd, FANOUT_BYTES + start * 24, length * 24, short), stride: 24, nameAt: 4 };
    }
    this.checkOrder(bucket, first);
    this.buckets.set(first, bucket);
    this.keptBytes += bucket.names.length + (bucket.offsets?.length ?? 0);
    for (const [oldest, kept] of this.buckets) {
      if (this.keptBytes <= KEPT_BUCKET_BYTES || oldest === first) break;
      this.buckets.delete(oldest);
      this.keptBytes -= kept.names.length + (kept.offsets?.length ?? 0);
    }
    return bucket;
  }

  /** Every name in a bucket starts with its byte and the names ascend: otherwise a search could miss. */
  private checkOrder(bucket: Bucket, first: number): void {
    const total = bucket.names.length / bucket.stride;
    for (let position = 0; position < total; position++) {
      const at = position * bucket.stride + bucket.nameAt;
      if (bucket.names[at] !== first) throw this.corrupt("an object name sits in the wrong fan-out bucket");
      if (position > 0 && bucket.names.compare(bucket.names, at - bucket.stride, at - bucket.stride + NAME_BYTES, at, at + NAME_BYTES) <= 0) {
        throw this.corrupt("its object names are not in order");
      }
    }
  }

  private corrupt(reason: string): ToolError {
    return corruptIndex(this.file, reason);
  }
}

/** The error for a damaged pack index: what is wrong, and git's way to rebuild it. */
export function corruptIndex(file: string, reason: string): ToolError {
  const pack = file.replace(/\.idx$/, ".pack");
  return new ToolError(
    "corrupt_file",
    `The pack index ${file} is damaged (${reason}), so the objects in its pack cannot be found; nothing was changed.`,
    `Rebuild it from its pack: move the .idx file away, then run \`git index-pack ${pack}\`; \`git fsck\` checks the repository afterwards.`,
  );
}
