/** Helpers for the typed-array tables of the term counter: growing an array, and rehashing an open-addressing table of (entry + 1, hash) pairs. */

/** A copy of `array` with room for at least `needed` numbers (at least twice its length). */
export function grown<Numbers extends Int32Array | Uint32Array>(array: Numbers, needed: number): Numbers {
  const larger = new (array.constructor as new (length: number) => Numbers)(Math.max(needed, array.length * 2));
  larger.set(array);
  return larger;
}

/** The open-addressing table `old` (pairs of entry + 1, 0 when empty, and hash) at twice the size, each pair placed again by its hash with linear probing. */
export function rehashed(old: Int32Array): Int32Array<ArrayBuffer> {
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
export function roomFor(bytes: Buffer<ArrayBuffer>, needed: number): Buffer<ArrayBuffer> {
  if (needed <= bytes.length) return bytes;
  const larger = Buffer.alloc(Math.max(needed, 2 * bytes.length));
  larger.set(bytes);
  return larger;
}
