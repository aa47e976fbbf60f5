/**
 * Bounded output capture. A process may print gigabytes (`yes`); only a head and a tail are
 * kept, the middle is counted and dropped, so memory stays bounded.
 */

/** Keeps the first and last bytes of a stream up to `limit` bytes in all. */
export class CappedOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  /** Every byte seen. */
  totalBytes = 0;

  constructor(limit: number) {
    this.headLimit = Math.floor(limit / 4);
    this.tailLimit = limit - this.headLimit;
  }

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    if (this.headBytes < this.headLimit) {
      const taken = chunk.subarray(0, this.headLimit - this.headBytes);
      this.head.push(Buffer.from(taken));
      this.headBytes += taken.length;
      chunk = chunk.subarray(taken.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(Buffer.from(chunk));
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tail[0]!.length >= this.tailLimit) this.tailBytes -= this.tail.shift()!.length;
    if (this.tailBytes > this.tailLimit) {
      const excess = this.tailBytes - this.tailLimit;
      this.tail[0] = this.tail[0]!.subarray(excess);
      this.tailBytes -= excess;
    }
  }

  /** Bytes seen but not kept. */
  get droppedBytes(): number {
    return this.totalBytes - this.headBytes - this.tailBytes;
  }

  /** The kept text; a marker stands where bytes were dropped. */
  text(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    const tail = Buffer.concat(this.tail).toString("utf8");
    return this.droppedBytes === 0 ? head + tail : `${head}\n… [${this.droppedBytes.toLocaleString("en-US")} bytes dropped] …\n${tail}`;
  }
}

/** Shortens text to about `limit` characters, keeping its start and end around a marker. */
export function trimMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const headLength = Math.floor(limit / 4);
  const tailLength = limit - headLength;
  const omitted = text.length - headLength - tailLength;
  return `${text.slice(0, headLength)}\n… [${omitted.toLocaleString("en-US")} characters omitted] …\n${text.slice(text.length - tailLength)}`;
}

/** Unread output of a background job: new bytes since the last read, oldest dropped beyond `limit`. */
export class UnreadOutput {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private dropped = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(Buffer.from(chunk));
    this.bytes += chunk.length;
    while (this.bytes > this.limit && this.chunks.length > 0) {
      const first = this.chunks[0]!;
      const excess = this.bytes - this.limit;
      if (first.length <= excess) {
        this.chunks.shift();
        this.bytes -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.bytes -= excess;
        this.dropped += excess;
      }
    }
  }

  get unreadBytes(): number {
    return this.bytes;
  }

  /** Takes everything unread, with how many older bytes were dropped since the last take. */
  take(): { text: string; droppedBytes: number } {
    const result = { text: Buffer.concat(this.chunks).toString("utf8"), droppedBytes: this.dropped };
    this.chunks = [];
    this.bytes = 0;
    this.dropped = 0;
    return result;
  }
}
