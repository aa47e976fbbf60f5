/**
 * Bracketed paste: the terminal wraps pasted text in ESC[200~ … ESC[201~. This stream sits
 * between the terminal and readline and turns a paste of several lines (or a long one) into one
 * short placeholder, `[Pasted text #1, 3 lines]`, so it arrives as one message however many
 * lines it has and readline never redraws a megabyte; `expand` puts the text back.
 */
import { Transform, type TransformCallback } from "node:stream";

const START = "\x1b[200~";
const END = "\x1b[201~";
/** Pastes up to this long, on one line, are typed in as they are. */
const INLINE_LIMIT = 200;
const PLACEHOLDER = /\[Pasted text #(\d+), [^\]]*\]/g;

export class PasteCollector extends Transform {
  private pasting = false;
  private carry = "";
  private buffer = "";
  private readonly pastes: string[] = [];

  /** Turns placeholders in a submitted line back into the pasted text. */
  expand(line: string): string {
    return line.replace(PLACEHOLDER, (placeholder, number: string) => this.pastes[Number(number) - 1] ?? placeholder);
  }

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback): void {
    let text = this.carry + chunk.toString();
    this.carry = "";
    let out = "";
    while (text) {
      const marker = this.pasting ? END : START;
      const at = text.indexOf(marker);
      if (at === -1) {
        // A marker may be split across chunks: its possible beginning waits for the next one.
        const held = heldPrefix(text, marker);
        const body = text.slice(0, text.length - held);
        this.carry = text.slice(text.length - held);
        if (this.pasting) this.buffer += body;
        else out += body;
        break;
      }
      if (this.pasting) {
        this.buffer += text.slice(0, at);
        out += this.finishPaste();
      } else out += text.slice(0, at);
      this.pasting = !this.pasting;
      text = text.slice(at + marker.length);
    }
    if (out) this.push(out);
    done();
  }

  private finishPaste(): string {
    const pasted = this.buffer.replace(/\r\n?/g, "\n");
    this.buffer = "";
    if (!pasted.includes("\n") && pasted.length <= INLINE_LIMIT) return pasted;
    this.pastes.push(pasted);
    const lines = pasted.replace(/\n$/, "").split("\n").length;
    const size = lines > 1 ? `${lines} lines` : `${pasted.length.toLocaleString("en-US")} characters`;
    return `[Pasted text #${this.pastes.length}, ${size}]`;
  }
}

function heldPrefix(text: string, marker: string): number {
  for (let length = Math.min(marker.length - 1, text.length); length > 0; length--) {
    if (text.endsWith(marker.slice(0, length))) return length;
  }
  return 0;
}

/** Asks the terminal to bracket pastes (on), or stop (off). */
export const BRACKETED_PASTE = { on: "\x1b[?2004h", off: "\x1b[?2004l" };
