/**
 * Values kept by key within a bound in bytes, the least recently used dropped first: the one
 * shape of the process-wide caches of the tools (blobs read from git, lines shown from files).
 */
export class BoundedCache<Key, Value> {
  /** Most recently used last. */
  private readonly entries = new Map<Key, { value: Value; cost: number }>();
  private bytes = 0;

  /**
   * `limit`: bytes kept in all; `largest`: a value costing more is not kept (one would push out
   * many small ones).
   */
  constructor(
    private readonly limit: number,
    private readonly largest = limit,
  ) {}

  /** The value kept for `key`, leaving its place in the order as it is. */
  peek(key: Key): Value | undefined {
    return this.entries.get(key)?.value;
  }

  /** The value kept for `key`, now the most recently used. */
  get(key: Key): Value | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` for `key` as the most recently used, at `cost` bytes, replacing what was kept. */
  set(key: Key, value: Value, cost: number): void {
    const before = this.entries.get(key);
    if (before !== undefined) {
      this.entries.delete(key);
      this.bytes -= before.cost;
    }
    if (cost > this.largest) return;
    this.entries.set(key, { value, cost });
    this.bytes += cost;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.limit) break;
      this.entries.delete(oldest);
      this.bytes -= entry.cost;
    }
  }
}
