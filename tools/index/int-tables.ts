/** The typed-array tables of the term counter: growing an array, and byte strings interned to ids in an open-addressing table. */

/** FNV-1a hash of source[start, end), as the byte tables key their entries. */
export function hashOfBytes(source: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5 | 0;
  for (let position = start; position < end; position++) hash = Math.imul(hash ^ source[position]!, 16777619);
  return hash;
}

/** A copy of `array` with room for at least `needed` numbers (at least twice its length). */
export function grown<Numbers extends Int32Array | Uint32Array | Uint8Array>(array: Numbers, needed: number): Numbers {
  const larger = new (array.constructor as new (length: number) => Numbers)(Math.max(needed, array.length * 2));
  larger.set(array);
  return larger;
}

/** The open-addressing table `old` (pairs of entry + 1, 0 when empty, and hash) at twice the size, each pair placed again by its hash with linear probing. */
function rehashed(old: Int32Array): Int32Array<ArrayBuffer> {
  const table = new Int32Array(old.length * 2);
  const mask = (table.length >> 1) - 1;
  for (let slot = 0; slot < old.length; slot += 2) {
    if (old[slot] === 0) continue;
    let target = old[slot + 1]! & mask;
    while (table[2 * target] !== 0) target = (target + 1) & mask;
    table[2 * target] = old[slot]!;
    table[2 * target + 1] = old[slot + 1]!;
  }
  return table;
}

/** `bytes` itself when it holds `needed` bytes, else a copy with room for them (at least twice its length). */
function roomFor(bytes: Buffer<ArrayBuffer>, needed: number): Buffer<ArrayBuffer> {
  if (needed <= bytes.length) return bytes;
  const larger = Buffer.alloc(Math.max(needed, 2 * bytes.length));
  larger.set(bytes);
  return larger;
}

/**
 * Byte strings interned to ids 0, 1, 2… by their bytes, without a string each: an open-addressing
 * table of (id + 1, hash) pairs over one pool of bytes. The caller hashes (so it can hash while it
 * scans) and keeps whatever it needs per id in arrays of its own.
 */
export class ByteInterner {
  private table: Int32Array;
  /** Id → its bytes: `bytes[starts[id] .. starts[id + 1])`. */
  bytes: Buffer<ArrayBuffer>;
  private starts: Int32Array;
  count = 0;
  /** Whether the last `idOf` interned its bytes for the first time. */
  added = false;

  constructor(slots: number, poolBytes: number, ids: number) {
    this.table = new Int32Array(2 * slots);
    this.bytes = Buffer.alloc(poolBytes);
    this.starts = new Int32Array(ids);
  }

  /** The id of source[start, end), whose FNV-1a hash is `hash`, interned at its first sight (`added` then says so). */
  idOf(source: Uint8Array, start: number, end: number, hash: number): number {
    const found = this.find(source, start, end, hash);
    if (found >= 0) {
      this.added = false;
      return found;
    }
    return this.add(source, start, end, hash, -1 - found);
  }

  /** The id of source[start, end) (FNV-1a hash `hash`) if it is interned, else -1 - the free slot where it would go. */
  find(source: Uint8Array, start: number, end: number, hash: number): number {
    const table = this.table;
    const mask = (table.length >> 1) - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = table[2 * slot]!;
      if (entry === 0) return -1 - slot;
      if (table[2 * slot + 1] !== hash) continue;
      const id = entry - 1;
      const known = this.starts[id]!;
      if (this.starts[id + 1]! - known !== length) continue;
      const pool = this.bytes;
      let same = true;
      for (let offset = 0; offset < length; offset++) {
        if (pool[known + offset] !== source[start + offset]) {
          same = false;
          break;
        }
      }
      if (same) return id;
    }
  }

  /** Forgets every entry, keeping the arrays (and the pages they have touched) for the entries to come. */
  clear(): void {
    this.table.fill(0);
    this.count = 0;
    this.added = false;
  }

  /** An empty table with this one's room (slots, pool bytes, ids), for a table that will fill about as far. */
  emptyCopy(): ByteInterner {
    return new ByteInterner(this.table.length >> 1, this.bytes.length, this.starts.length);
  }

  /** Where id's bytes start and end in `bytes`. */
  startOf(id: number): number {
    return this.starts[id]!;
  }
  endOf(id: number): number {
    return this.starts[id + 1]!;
  }

  private add(source: Uint8Array, start: number, end: number, hash: number, slot: number): number {
    const id = this.count++;
    if (id + 2 > this.starts.length) this.starts = grown(this.starts, id + 2);
    const first = this.starts[id]!;
    const last = first + (end - start);
    const bytes = (this.bytes = roomFor(this.bytes, last));
    // A loop, not set(subarray): the source is often a Buffer, whose subarray costs an object and a constructor call, and the bytes are few.
    for (let offset = 0; offset < end - start; offset++) bytes[first + offset] = source[start + offset]!;
    this.starts[id + 1] = last;
    this.table[2 * slot] = id + 1;
    this.table[2 * slot + 1] = hash;
    if (this.count * 4 > this.table.length) this.table = rehashed(this.table);
    this.added = true;
    return id;
  }
}
