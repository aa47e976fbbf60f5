/**
 * A memory file's bytes, always exactly the UTF-8 of `JSON.stringify(data)`, kept from one
 * write to the next together with where each entry sits. A change that names the keys it set
 * or deleted re-encodes only those entries and splices them into the kept bytes; anything else
 * is encoded whole (reusing the bytes of entries whose objects did not change).
 *
 * JSON.stringify lists keys in the object's own order: array-index keys ("0", "17", up to
 * 4294967294) first, ascending by value, then every other key in insertion order. An update
 * keeps a key's place, a new key goes to the end (or among the index keys by value), a delete
 * closes the gap.
 */

/** What a memory file holds, as far as its bytes are concerned. */
export interface EncodableFile {
  version: number;
  entries: Record<string, object>;
}

const COMMA = 0x2c;
const CLOSE = "}}";
const LARGEST_ARRAY_INDEX = 4_294_967_294;

/** True for the keys an object orders first and by value: canonical integers 0 … 2^32 − 2. */
export function isArrayIndex(key: string): boolean {
  if (key.length === 0 || key.length > 10) return false;
  if (key === "0") return true;
  const first = key.charCodeAt(0);
  if (first < 0x31 || first > 0x39) return false;
  for (let index = 1; index < key.length; index++) {
    const code = key.charCodeAt(index);
    if (code < 0x30 || code > 0x39) return false;
  }
  return Number(key) <= LARGEST_ARRAY_INDEX;
}

function entryText(key: string, entry: object): string {
  return `${JSON.stringify(key)}:${JSON.stringify(entry)}`;
}

function headerText(version: number): string {
  return `{"version":${JSON.stringify(version)},"entries":{`;
}

export class MemoryFileBytes {
  /** Keys in file order, the object each was encoded from, and the byte length of its `"key":{…}`. */
  private keys: string[] = [];
  private entries: object[] = [];
  private sizes: number[] = [];
  private positions = new Map<string, number>();
  /** How many keys at the front are array indexes. */
  private indexKeys = 0;
  private buffer = Buffer.alloc(0);
  private length = 0;
  private headerLength = 0;
  /** The entries object and version the bytes were encoded from; a splice needs the same ones. */
  private source: Record<string, object> | undefined;
  private version = Number.NaN;

  /**
   * The file for `data`. With `changedKeys` (every key the change since the last call set or
   * deleted, each touched once: a key deleted and set again moves to the end, which a splice
   * cannot see), only those entries are encoded and spliced in; without them, or when the kept
   * bytes are of other data, all are.
   * The result is a view of a buffer the next call reuses: write it before calling again.
   */
  encode(data: EncodableFile, changedKeys?: readonly string[]): Buffer {
    if (changedKeys === undefined || data.entries !== this.source || data.version !== this.version) return this.encodeWhole(data);
    for (const key of changedKeys) this.spliceKey(key, data.entries[key]);
    return this.buffer.subarray(0, this.length);
  }

  /** Forgets the kept bytes (a write failed, or the file was read afresh): the next encode is whole. */
  reset(): void {
    this.source = undefined;
  }

  private encodeWhole(data: EncodableFile): Buffer {
    const reusable = this.source === undefined ? undefined : this.entryStarts();
    const header = headerText(data.version);
    const keys: string[] = [];
    const entries: object[] = [];
    const sizes: number[] = [];
    const texts: Array<string | undefined> = [];
    let length = Buffer.byteLength(header) + CLOSE.length;
    for (const key in data.entries) {
      const entry = data.entries[key]!;
      const previous = reusable === undefined ? undefined : this.positions.get(key);
      let size: number;
      if (previous !== undefined && this.entries[previous] === entry) {
        size = this.sizes[previous]!;
        texts.push(undefined);
      } else {
        const text = entryText(key, entry);
        size = Buffer.byteLength(text);
        texts.push(text);
      }
      keys.push(key);
      entries.push(entry);
      sizes.push(size);
      length += size;
    }
    length += Math.max(0, keys.length - 1);
    const buffer = Buffer.allocUnsafeSlow(roomFor(length));
    let offset = buffer.write(header, 0, "latin1");
    for (let index = 0; index < keys.length; index++) {
      if (index > 0) buffer[offset++] = COMMA;
      const text = texts[index];
      if (text === undefined) {
        const previous = this.positions.get(keys[index]!)!;
        offset += this.buffer.copy(buffer, offset, reusable![previous]!, reusable![previous]! + sizes[index]!);
      } else {
        offset += buffer.write(text, offset, "utf8");
      }
    }
    offset += buffer.write(CLOSE, offset, "latin1");
    this.buffer = buffer;
    this.length = offset;
    this.headerLength = Buffer.byteLength(header);
    this.keys = keys;
    this.entries = entries;
    this.sizes = sizes;
    this.positions = new Map(keys.map((key, index) => [key, index]));
    this.indexKeys = countLeading(keys, isArrayIndex);
    this.source = data.entries;
    this.version = data.version;
    return buffer.subarray(0, offset);
  }

  /** Where each kept entry's bytes start. */
  private entryStarts(): number[] {
    const starts: number[] = [];
    let offset = this.headerLength;
    for (const size of this.sizes) {
      starts.push(offset);
      offset += size + 1;
    }
    return starts;
  }

  private spliceKey(key: string, entry: object | undefined): void {
    const position = this.positions.get(key);
    if (position === undefined) {
      if (entry !== undefined) this.insert(key, entry);
    } else if (entry === undefined) {
      this.remove(position);
    } else if (this.entries[position] !== entry) {
      const text = entryText(key, entry);
      const size = Buffer.byteLength(text);
      const start = this.startOf(position);
      this.replaceBytes(start, this.sizes[position]!, text, size, "");
      this.entries[position] = entry;
      this.sizes[position] = size;
    }
  }

  private insert(key: string, entry: object): void {
    const indexKey = isArrayIndex(key);
    const position = indexKey ? this.indexPositionFor(Number(key)) : this.keys.length;
    const text = entryText(key, entry);
    const size = Buffer.byteLength(text);
    const count = this.keys.length;
    if (count === 0) this.replaceBytes(this.headerLength, 0, text, size, "");
    else if (position < count) this.replaceBytes(this.startOf(position), 0, text, size, ",");
    else this.replaceBytes(this.length - CLOSE.length, 0, text, size, ",", true);
    this.keys.splice(position, 0, key);
    this.entries.splice(position, 0, entry);
    this.sizes.splice(position, 0, size);
    if (indexKey) this.indexKeys++;
    this.renumberFrom(position);
  }

  private remove(position: number): void {
    const start = this.startOf(position);
    const size = this.sizes[position]!;
    if (this.keys.length === 1) this.replaceBytes(start, size, "", 0, "");
    else if (position === 0) this.replaceBytes(start, size + 1, "", 0, "");
    else this.replaceBytes(start - 1, size + 1, "", 0, "");
    this.positions.delete(this.keys[position]!);
    if (position < this.indexKeys) this.indexKeys--;
    this.keys.splice(position, 1);
    this.entries.splice(position, 1);
    this.sizes.splice(position, 1);
    this.renumberFrom(position);
  }

  /** The position a new array-index key takes: after every smaller index key. */
  private indexPositionFor(value: number): number {
    let low = 0;
    let high = this.indexKeys;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (Number(this.keys[middle]) < value) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private renumberFrom(position: number): void {
    for (let index = position; index < this.keys.length; index++) this.positions.set(this.keys[index]!, index);
  }

  private startOf(position: number): number {
    let offset = this.headerLength;
    for (let index = 0; index < position; index++) offset += this.sizes[index]! + 1;
    return offset;
  }

  /**
   * Replaces `removed` bytes at `start` with `text` (`size` bytes in UTF-8) and a comma, which
   * goes after the text, or before it when `commaFirst` (an entry added at the end).
   */
  private replaceBytes(start: number, removed: number, text: string, size: number, comma: "" | ",", commaFirst = false): void {
    const added = size + comma.length;
    const length = this.length - removed + added;
    if (length > this.buffer.length) {
      const grown = Buffer.allocUnsafeSlow(roomFor(length));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.buffer.copyWithin(start + added, start + removed, this.length);
    let offset = start;
    if (comma !== "" && commaFirst) this.buffer[offset++] = COMMA;
    offset += this.buffer.write(text, offset, "utf8");
    if (comma !== "" && !commaFirst) this.buffer[offset] = COMMA;
    this.length = length;
  }
}

/** Room for the file to grow by a number of entries before the buffer is copied again. */
function roomFor(length: number): number {
  return length + Math.max(4096, length >>> 3);
}

function countLeading<Item>(items: readonly Item[], test: (item: Item) => boolean): number {
  let count = 0;
  while (count < items.length && test(items[count]!)) count++;
  return count;
}
