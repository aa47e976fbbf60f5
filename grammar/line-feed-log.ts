/**
 * The line feeds the scanner passed while reading a chunk, for a layer that reads the same
 * chunk after it (dialects/recognizer.ts) and would otherwise search for each line feed again.
 *
 * Offsets are absolute and kept strictly increasing: text the scanner reads a second time (a
 * held stretch replayed as prose) records nothing twice. The scanner's line count is exact up to
 * the start of its current line; past it, line feeds it holds are not counted yet, and a line
 * feed counted in bulk may be missing. So a reader trusts the log only up to that line start,
 * and only when the count there agrees (`completeFor`).
 */
const INT32_LIMIT = 0x7fff_ffff;

export class LineFeedLog {
  private offsets = new Int32Array(64);
  private count = 0;
  private last = -1;

  /** A line feed at absolute `offset`; one at or before the last recorded is already in. */
  record(offset: number): void {
    if (offset <= this.last || offset > INT32_LIMIT) return;
    this.last = offset;
    if (this.count === this.offsets.length) {
      const grown = new Int32Array(this.count * 2);
      grown.set(this.offsets);
      this.offsets = grown;
    }
    this.offsets[this.count++] = offset;
  }

  /** Forgets the recorded offsets (the order guard stays: nothing before them is recorded again). */
  clear(): void {
    this.count = 0;
  }

  /**
   * The recorded line feeds when they are every line feed of the chunk at absolute `start`
   * before absolute `limit` (the scanner's line start), where the scanner counted `lineFeeds`
   * lines while reading the chunk; undefined otherwise. Offsets at or after `limit` may follow
   * (held lines classified already): the reader searches on from `limit` itself.
   */
  completeFor(chunk: string, start: number, limit: number, lineFeeds: number): Int32Array | undefined {
    const offsets = this.offsets;
    let count = this.count;
    while (count > 0 && offsets[count - 1]! >= limit) count--;
    // Offsets past 2^31 do not fit the log's 32-bit entries: such a chunk is searched as before.
    if (count !== lineFeeds || count === 0 || offsets[0]! < start || limit > start + chunk.length || start + chunk.length > INT32_LIMIT) return undefined;
    return offsets.subarray(0, count);
  }
}
