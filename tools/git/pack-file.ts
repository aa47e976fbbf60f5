/**
 * One pack (`objects/pack/pack-*.pack` and its `.idx`), read entry by entry with positioned
 * reads and node's zlib: a whole pack is never read into memory, only each entry's own bytes.
 * Deltas are returned as they are; object-reader.ts resolves their chains.
 */
import { ToolError } from "../errors.js";
import { inflateToSize } from "./inflater.js";
import { PackIndex, readExactly, type PackFileSystem } from "./pack-index.js";

export type ObjectType = "commit" | "tree" | "blob" | "tag";

const TYPES: Record<number, ObjectType> = { 1: "commit", 2: "tree", 3: "blob", 4: "tag" };
const OFS_DELTA = 6;
const REF_DELTA = 7;
/** An entry's header: type and size (at most 10 bytes for 64-bit sizes), then a base offset or oid. */
const HEADER_READ = 32;
/** The pack is read in windows of this size, as git maps it; an entry that does not fit in one is read on its own. */
const WINDOW_BYTES = 64 * 1024;
/** How many bytes of windows one pack keeps (the least recently used go first). */
const KEPT_WINDOW_BYTES = 16 * 1024 * 1024;
let packSerial = 0;

/** A whole object, or a delta with where its base is. */
export type PackEntry =
  | { kind: "object"; type: ObjectType; content: Buffer }
  | { kind: "delta"; delta: Buffer; baseOffset: number }
  | { kind: "delta"; delta: Buffer; baseOid: string };

export class PackFile {
  /** A number unique among the packs this process opened (object-reader.ts keys its caches with it). */
  readonly serial = ++packSerial;
  private readonly windows = new Map<number, Buffer>();
  /** The window read last: already the most recently used, so reading it again moves nothing. */
  private lastWindow: Buffer | undefined;

  private constructor(
    private readonly fs: PackFileSystem,
    private readonly fd: number,
    readonly file: string,
    readonly index: PackIndex,
    /** Where the entries end (the 20-byte checksum follows). */
    private readonly end: number,
  ) {}

  /** Opens a pack and its index, checking that they belong together. */
  static open(fs: PackFileSystem, packFile: string): PackFile {
    const index = PackIndex.open(fs, packFile.replace(/\.pack$/, ".idx"));
    let fd: number | undefined;
    try {
      fd = fs.openSync(packFile, "r");
      const size = fs.fstatSync(fd).size;
      const corrupt = (reason: string) => corruptPack(packFile, reason);
      if (size < 32) throw corrupt(`it is only ${size} bytes long`);
      const head = readExactly(fs, fd, 0, 12, () => corrupt("it is cut short"));
      if (head.toString("latin1", 0, 4) !== "PACK" || ![2, 3].includes(head.readUInt32BE(4))) throw corrupt("it does not start with a pack header");
      if (head.readUInt32BE(8) !== index.count) throw corrupt(`it holds ${head.readUInt32BE(8)} objects but its index lists ${index.count}`);
      const checksum = readExactly(fs, fd, size - 20, 20, () => corrupt("it is cut short"));
      if (!checksum.equals(index.packChecksum)) throw corrupt("its checksum is not the one its index records (the .idx belongs to another pack)");
      return new PackFile(fs, fd, packFile, index, size - 20);
    } catch (error) {
      if (fd !== undefined) fs.closeSync(fd);
      index.close();
      throw error;
    }
  }

  close(): void {
    this.fs.closeSync(this.fd);
    this.index.close();
  }

  /** The entry at `offset`: its header parsed, its data inflated. */
  entryAt(offset: number): PackEntry {
    if (offset < 12 || offset >= this.end) throw this.corrupt(offset, "an offset points outside the pack");
    const head = this.bytesAt(offset, Math.min(HEADER_READ, this.end - offset), offset);
    let cursor = 0;
    let byte = head[cursor++]!;
    const type = (byte >> 4) & 7;
    let size = byte & 15;
    let shift = 4;
    while (byte & 0x80) {
      if (cursor >= head.length || shift > 49) throw this.corrupt(offset, "an entry's size does not end");
      byte = head[cursor++]!;
      size += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    }
    let baseOffset = -1;
    let baseOid = "";
    if (type === OFS_DELTA) {
      byte = head[cursor++]!;
      let distance = byte & 0x7f;
      while (byte & 0x80) {
        if (cursor >= head.length) throw this.corrupt(offset, "a delta's base offset does not end");
        byte = head[cursor++]!;
        distance = (distance + 1) * 128 + (byte & 0x7f);
      }
      if (distance <= 0 || distance > offset) throw this.corrupt(offset, "a delta's base lies outside the pack");
      baseOffset = offset - distance;
    } else if (type === REF_DELTA) {
      if (cursor + 20 > head.length) throw this.corrupt(offset, "a delta's base name is cut short");
      baseOid = head.toString("hex", cursor, cursor + 20);
      cursor += 20;
    } else if (TYPES[type] === undefined) {
      throw this.corrupt(offset, `an entry has the unknown type ${type}`);
    }
    const data = this.inflate(offset + cursor, size, offset);
    if (type === OFS_DELTA) return { kind: "delta", delta: data, baseOffset };
    if (type === REF_DELTA) return { kind: "delta", delta: data, baseOid };
    return { kind: "object", type: TYPES[type]!, content: data };
  }

  /** The error for the entry at `offset`. (Errors are made by methods, not closures: entries are read thousands of times per command.) */
  private corrupt(offset: number, reason: string): ToolError {
    return corruptPack(this.file, `${reason} (the entry at byte ${offset})`);
  }

  /** Inflates the zlib stream at `start` (of the entry at `offset`), which must give exactly `size` bytes. */
  private inflate(start: number, size: number, offset: number): Buffer {
    // zlib's bound on how much a stream of `size` bytes can grow to, whatever the settings.
    if (start >= this.end) throw this.corrupt(offset, "an entry's data lies past the end of the pack");
    const bound = size + Math.ceil(size / 8) + Math.ceil(size / 64) + 64;
    const compressed = this.bytesAt(start, Math.min(bound, this.end - start), offset);
    let data: Buffer;
    try {
      data = inflateToSize(compressed, size);
    } catch (error) {
      throw this.corrupt(offset, `its data does not inflate: ${(error as Error).message}`);
    }
    if (data.length !== size) throw this.corrupt(offset, `its data inflates to ${data.length} bytes, not the ${size} its header says`);
    return data;
  }

  /** `length` bytes at `position` (read for the entry at `offset`): a view into a kept window when they fit in one, else read on their own. */
  private bytesAt(position: number, length: number, offset: number): Buffer {
    const windowStart = position - (position % WINDOW_BYTES);
    if (position + length > windowStart + WINDOW_BYTES) return readExactly(this.fs, this.fd, position, length, () => this.corrupt(offset, "it is cut short"));
    let window = this.windows.get(windowStart);
    if (window === undefined) {
      window = readExactly(this.fs, this.fd, windowStart, Math.min(WINDOW_BYTES, this.end - windowStart), () => this.corrupt(offset, "it is cut short"));
      this.windows.set(windowStart, window);
      if (this.windows.size * WINDOW_BYTES > KEPT_WINDOW_BYTES) this.windows.delete(this.windows.keys().next().value!);
    } else if (window !== this.lastWindow) {
      this.windows.delete(windowStart);
      this.windows.set(windowStart, window);
    }
    this.lastWindow = window;
    return window.subarray(position - windowStart, position - windowStart + length);
  }
}

/** The error for a damaged pack: what is wrong, and how to find out more. */
export function corruptPack(file: string, reason: string): ToolError {
  return new ToolError(
    "corrupt_file",
    `The pack ${file} is damaged: ${reason}; nothing was changed.`,
    "Run `git fsck` to see what is affected; fetching again from a remote that has the objects repairs it.",
  );
}
