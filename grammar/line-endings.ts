/**
 * Lone carriage returns. CommonMark ends a line at `\n`, `\r\n` or a lone `\r`; the scanner
 * reads a lone `\r` as `\n` (one character for one, so every offset holds), and the text of the
 * commands and mentions it reports gets the `\r` back. Whether a `\r` that ends a chunk is lone
 * is known only with the next character, so it is held back until then.
 */
import { CARRIAGE_RETURN, LINE_FEED } from "./chars.js";
import { firstAtOrAfter } from "./sorted.js";

/** A carriage return not followed by a line feed. */
const LONE_RETURN = /\r(?!\n)/g;

export class LoneReturns {
  /** A `\r` ended the last chunk and was held back. */
  pending = false;
  /** Absolute offsets of the lone `\r` read as `\n` since the scanner last had nothing open. */
  private readonly offsets: number[] = [];

  /**
   * `chunk` as the scanner reads it, from absolute offset `base`: a held `\r` first, a trailing
   * `\r` held back (unless the text ends here: `final`), every lone `\r` written as `\n`.
   */
  read(chunk: string, base: number, final: boolean): string {
    let text = chunk;
    if (this.pending) {
      text = `\r${text}`;
      this.pending = false;
    }
    if (!final && text.charCodeAt(text.length - 1) === CARRIAGE_RETURN) {
      text = text.slice(0, -1);
      this.pending = true;
    }
    let lone = 0;
    for (let at = text.indexOf("\r"); at >= 0; at = text.indexOf("\r", at + 1)) {
      if (text.charCodeAt(at + 1) === LINE_FEED) continue;
      this.offsets.push(base + at);
      lone++;
    }
    return lone === 0 ? text : text.replace(LONE_RETURN, "\n");
  }

  /** `text`, read from absolute offset `start`, with its lone `\r` given back. */
  restore(text: string, start: number): string {
    const offsets = this.offsets;
    if (offsets.length === 0) return text;
    const end = start + text.length;
    let restored = "";
    let from = 0;
    for (let k = firstAtOrAfter(offsets, start); k < offsets.length && offsets[k]! < end; k++) {
      const at = offsets[k]! - start;
      if (text.charCodeAt(at) !== LINE_FEED) continue;
      restored += `${text.slice(from, at)}\r`;
      from = at + 1;
    }
    return from === 0 ? text : restored + text.slice(from);
  }

  /** Nothing read so far is open (captured or held): no text before now will be restored. */
  forget(): void {
    if (this.offsets.length !== 0) this.offsets.length = 0;
  }
}
