/**
 * Cuts a model's reply the moment it starts writing a result envelope itself: results come
 * only from the interpreter. Text is passed on as it streams, holding back only a tail that
 * could still become the start of an envelope.
 */
import { RESULT_MARKERS } from "../manager/result.js";

const MARKERS = [RESULT_MARKERS.opening, RESULT_MARKERS.closing];
const HOLD = Math.max(...MARKERS.map((marker) => marker.length)) - 1;

/** Stop sequences to ask the server for, where its API allows them. */
export const RESULT_STOP_SEQUENCES = [RESULT_MARKERS.opening];

export class FabricationGuard {
  private pending = "";
  private cutAt: number | undefined;
  private passed = 0;

  /** True once the reply tried to write a result envelope. */
  get cut(): boolean {
    return this.cutAt !== undefined;
  }

  /** Offset in the whole reply where the fabricated text began. */
  get cutOffset(): number | undefined {
    return this.cutAt;
  }

  /** Takes a chunk; returns the text that is safe to pass on now. */
  push(chunk: string): string {
    if (this.cut) return "";
    this.pending += chunk;
    const found = firstMarker(this.pending);
    if (found !== -1) {
      this.cutAt = this.passed + found;
      const safe = this.pending.slice(0, found);
      this.pending = "";
      this.passed += safe.length;
      return safe;
    }
    const keep = longestMarkerPrefixSuffix(this.pending);
    const safe = this.pending.slice(0, this.pending.length - keep);
    this.pending = this.pending.slice(this.pending.length - keep);
    this.passed += safe.length;
    return safe;
  }

  /** The held-back tail, at the end of the reply. */
  flush(): string {
    const rest = this.cut ? "" : this.pending;
    this.pending = "";
    this.passed += rest.length;
    return rest;
  }
}

function firstMarker(text: string): number {
  let first = -1;
  for (const marker of MARKERS) {
    const index = text.indexOf(marker);
    if (index !== -1 && (first === -1 || index < first)) first = index;
  }
  return first;
}

/** How many characters at the end of `text` could begin a marker. */
function longestMarkerPrefixSuffix(text: string): number {
  for (let length = Math.min(HOLD, text.length); length > 0; length--) {
    const tail = text.slice(text.length - length);
    if (MARKERS.some((marker) => marker.startsWith(tail))) return length;
  }
  return 0;
}
