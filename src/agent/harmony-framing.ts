/**
 * gpt-oss's harmony framing taken out of what a reply says: when a server prints the model's
 * special tokens, a final (or commentary) message reads `<|start|>assistant<|channel|>final<|message|>Done.<|return|>`;
 * the chat shows, and the history sends back, `Done.`. Only framing in live text goes (grammar/harmony.ts,
 * HARMONY_FRAMING): in a fence, a code span or a quote it is code or quoted, and a tool call's header
 * (`to=functions.NAME`) stays, as any call in another dialect does.
 */
import { FRAMING_OPENINGS, HARMONY_FRAMING, isFraming, MAX_FRAMING } from "../../grammar/harmony.js";

/**
 * Fed the text of a reply in order, each piece with its absolute offset: passes it on without its
 * framing. Text from a `<|` that may still become framing waits (at most one header's length, on
 * one line), so any chunking gives the same text.
 */
export class HarmonyFramingFilter {
  private held = "";
  private heldAt = 0;

  /** `live(offset)`: whether the text at that offset is live (no inert region); asked for each `<|` only. */
  constructor(private readonly live: (offset: number) => boolean) {}

  /** The text `piece` at absolute offset `at` (right after the last piece): what may be passed on now. */
  push(piece: string, at: number): string {
    if (this.held === "" && piece.indexOf("<|") < 0 && !piece.endsWith("<")) return piece;
    const text = this.held + piece;
    const base = this.held === "" ? at : this.heldAt;
    this.held = "";
    let out = "";
    let from = 0;
    for (let token = text.indexOf("<|"); token >= 0; token = text.indexOf("<|", token + 1)) {
      HARMONY_FRAMING.lastIndex = token;
      const found = HARMONY_FRAMING.exec(text);
      if (found !== null) {
        if (isFraming(found[0]) && this.live(base + token)) {
          out += text.slice(from, token);
          from = token + found[0].length;
        }
        token += found[0].length - 1;
      } else if (mayBecomeFraming(text, token)) {
        this.held = text.slice(token);
        this.heldAt = base + token;
        return out + text.slice(from, token);
      }
    }
    // A last `<` may begin a token with the next piece.
    if (text.endsWith("<")) {
      this.held = "<";
      this.heldAt = base + text.length - 1;
      return out + text.slice(from, text.length - 1);
    }
    return out + text.slice(from);
  }

  /** The reply ended, or reasoning follows: what waits goes on as it is. */
  flush(): string {
    const held = this.held;
    this.held = "";
    return held;
  }
}

/**
 * Whether the text from `token` (a `<|`) to the end of `text` may still become framing as more
 * text comes: within one header's length, on one line, with no character a header cannot hold,
 * and every later `<` the beginning of a token. The answer depends on that text alone (not on
 * where pieces were cut), and once no, it stays no as text is added.
 */
function mayBecomeFraming(text: string, token: number): boolean {
  const rest = text.length - token;
  if (rest > MAX_FRAMING || NOT_IN_HEADER.test(text.slice(token))) return false;
  const head = text.slice(token, token + 11).toLowerCase();
  // A whole end token has matched by now: only a header's opening, or the beginning of a token, may grow into framing.
  return FRAMING_OPENINGS.some((opening) => opening.startsWith(head.slice(0, opening.length)));
}

/** What no header holds on its way to `<|message|>`: a line break, a backtick, `[`, or a `<` that does not begin a token. */
const NOT_IN_HEADER = /[\n\r`[]|<(?!\||$)/;
