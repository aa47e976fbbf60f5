/**
 * Cutting a streamed reply at its first stop string, the way servers do: the stop string and
 * everything after it are dropped. Text that might be the start of a stop string is held back
 * until the next chunk shows whether it is, so any chunking gives the same result.
 */
export class StopSequenceCutter {
  private readonly stops: readonly string[];
  private pending = "";
  private stoppedAt = false;

  constructor(stops: readonly string[] = []) {
    this.stops = stops.filter((stop) => stop.length > 0);
  }

  /** True once a stop string was found; later text is ignored. */
  get stopped(): boolean {
    return this.stoppedAt;
  }

  /** Feeds a chunk; returns the text that is now certainly part of the reply. */
  push(text: string): string {
    if (this.stoppedAt) return "";
    const combined = this.pending + text;
    let cut = -1;
    for (const stop of this.stops) {
      const index = combined.indexOf(stop);
      if (index >= 0 && (cut < 0 || index < cut)) cut = index;
    }
    if (cut >= 0) {
      this.stoppedAt = true;
      this.pending = "";
      return combined.slice(0, cut);
    }
    const held = this.longestStopPrefixAtEnd(combined);
    this.pending = combined.slice(combined.length - held);
    return combined.slice(0, combined.length - held);
  }

  /** Ends the reply; returns the held-back text, which turned out not to be a stop string. */
  flush(): string {
    const rest = this.stoppedAt ? "" : this.pending;
    this.pending = "";
    return rest;
  }

  private longestStopPrefixAtEnd(text: string): number {
    let longest = 0;
    for (const stop of this.stops) {
      for (let length = Math.min(stop.length - 1, text.length); length > longest; length--) {
        if (text.endsWith(stop.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }
}

/** Cuts a whole text at its first stop string. */
export function cutAtStop(text: string, stops: readonly string[] = []): { text: string; stopped: boolean } {
  const cutter = new StopSequenceCutter(stops);
  const kept = cutter.push(text) + cutter.flush();
  return { text: kept, stopped: cutter.stopped };
}
