/**
 * Cuts a model's reply the moment it starts writing a result envelope itself: results come
 * only from the interpreter. An envelope is `[` then `RESULT` or `/RESULT` in any case, spaces
 * allowed around the slash, followed by a space or `]`: `[RESULT 7f3a …]`, `[result]`,
 * `[ /Result 7f3a]`. Text is passed on as it streams, holding back only a tail that could still
 * become the start of one.
 */
import { RESULT_ENVELOPE_NAME, RESULT_MARKERS } from "../manager/result.js";

const WORD = RESULT_ENVELOPE_NAME.toLowerCase();
const MARKER = new RegExp(`\\[[ \\t]*\\/?[ \\t]*${WORD}(?=[\\s\\]])`, "i");
/** A tail that may still grow into a marker: `[`, spaces, `/`, spaces, a prefix of the word (and the word itself, waiting for what follows). */
const MARKER_PREFIX = new RegExp(
  `\\[[ \\t]*\\/?[ \\t]*(?:${[...WORD]
    .map((_, index) => WORD.slice(0, index + 1))
    .reverse()
    .join("|")})?$`,
  "i",
);
/** Longest tail held back: a few spaces on either side of the slash are enough. */
const HOLD = 24;

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
    const found = this.pending.indexOf("[") < 0 ? null : MARKER.exec(this.pending);
    if (found) {
      this.cutAt = this.passed + found.index;
      const safe = this.pending.slice(0, found.index);
      this.pending = "";
      this.passed += safe.length;
      return safe;
    }
    const keep = heldTail(this.pending);
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

/** How many characters at the end of `text` could begin a marker. */
function heldTail(text: string): number {
  const bracket = text.lastIndexOf("[");
  if (bracket < 0 || text.length - bracket > HOLD) return 0;
  return MARKER_PREFIX.test(text.slice(bracket)) ? text.length - bracket : 0;
}
