/**
 * Where reasoning ends (contract §4): a `<think>` block's closing tag, or a harmony analysis
 * message's end token (harmony.ts). Searched as the text streams, the line feed and the closer
 * in one pass, so a line holding many blocks is read once and a closer may fall across chunks.
 */

/** The closer that stands for a harmony message's end: no tag is spelt so. */
export const HARMONY_CLOSE = "<|end|>";
/** The names of the tokens that end a harmony message and belong to it (`<|end|>`, `<|return|>`, `<|call|>`). */
export const HARMONY_MESSAGE_ENDS = ["end", "return", "call"] as const;
/** What `ReasoningCloser.find` returns when the closer came first. */
export const CLOSED = -2;
/** Longer than any closer: the characters a chunk's end keeps for the next chunk to complete one. */
const TAIL = 15;

/**
 * The line feed, or the tokens that end a harmony message: its own end (`<|end|>`, `<|return|>`,
 * `<|call|>`, part of the message) or the next message's header (`<|start|>`, `<|channel|>`, when
 * the end is missing).
 */
const HARMONY_TOKENS = [...HARMONY_MESSAGE_ENDS, "start", "channel"];
const HARMONY_END = new RegExp(`\\n|<\\|(${HARMONY_TOKENS.join("|")})\\|>`, "gi");
const HARMONY_CLOSERS = HARMONY_TOKENS.map((name) => `<|${name}|>`);

/** Searches a reasoning block's lines for its closer, as they stream. */
export class ReasoningCloser {
  /** After `find` returned CLOSED: the closer's index in the input (negative when it began in an earlier chunk). */
  start = 0;
  /** After `find` returned CLOSED: the index where prose resumes (the next message's header is prose). */
  resume = 0;
  private pattern = HARMONY_END;
  /** The closers spelt out, lower case (every one begins with `<` and has no other). */
  private closers: readonly string[] = HARMONY_CLOSERS;
  /** The end of the line read so far, which may hold the beginning of the closer. */
  private tail = "";

  /**
   * Whether the text kept from earlier chunks may hold a closer's beginning. Every closer starts
   * with `<` and holds no other, so only what follows the last `<` kept can be one; while it is not
   * the beginning of a closer, a chunk without `<` or a line feed cannot end the block and need not
   * be read (the scanner's fast path passes it by).
   */
  get pending(): boolean {
    const last = this.tail.lastIndexOf("<");
    if (last < 0) return false;
    const begun = this.tail.slice(last).toLowerCase();
    return this.closers.some((closer) => closer.startsWith(begun));
  }

  /** A block begins whose closer is `close` (a closing tag, lower case, or HARMONY_CLOSE). */
  begin(close: string): void {
    this.pattern = close === HARMONY_CLOSE ? HARMONY_END : new RegExp(`\\n|${close.replace(/[^A-Za-z]/g, "\\$&")}`, "gi");
    this.closers = close === HARMONY_CLOSE ? HARMONY_CLOSERS : [close.toLowerCase()];
    this.tail = "";
  }

  /**
   * Reads `input` from `from` to the first line feed or closer: returns CLOSED (see `start` and
   * `resume`), the index of the line feed, or -1 when the rest of the input is all reasoning.
   */
  find(input: string, from: number): number {
    // A closer ends at a `>`: a piece without one, nor a line feed, only adds to the tail.
    if (input.length - from <= TAIL && input.indexOf(">", from) < 0 && input.indexOf("\n", from) < 0) {
      this.keep(input, from);
      return -1;
    }
    if (this.tail !== "" && this.straddles(input, from)) return CLOSED;
    const pattern = this.pattern;
    pattern.lastIndex = from;
    const found = pattern.exec(input);
    if (found === null) {
      this.keep(input, from);
      return -1;
    }
    this.tail = "";
    if (found[0] === "\n") return found.index;
    this.closeAt(found, found.index);
    return CLOSED;
  }

  /** Keeps the end of what was read, `input` from `from` after the tail, for a closer that falls across chunks. */
  private keep(input: string, from: number): void {
    const kept = input.length - from >= TAIL ? input.slice(input.length - TAIL) : this.tail + input.slice(from);
    this.tail = kept.length > TAIL ? kept.slice(kept.length - TAIL) : kept;
  }

  /** Whether a closer begins in the tail kept from the chunks before and ends in `input`. */
  private straddles(input: string, from: number): boolean {
    const pattern = this.pattern;
    const text = this.tail + input.slice(from, from + TAIL);
    pattern.lastIndex = 0;
    const found = pattern.exec(text);
    if (found === null || found[0] === "\n" || found.index >= this.tail.length) return false;
    this.closeAt(found, from + found.index - this.tail.length);
    this.tail = "";
    return true;
  }

  private closeAt(found: RegExpExecArray, start: number): void {
    const opensNext = found[1] !== undefined && /^(?:start|channel)$/i.test(found[1]);
    this.start = start;
    this.resume = opensNext ? start : start + found[0].length;
  }
}
