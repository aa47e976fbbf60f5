/**
 * gpt-oss's harmony messages as reasoning (contract §4), when a server prints the model's
 * special tokens instead of parsing them: `<|channel|>analysis<|message|>…<|end|>` (often after
 * `<|start|>assistant`) is the model's reasoning, like a `<think>` block. The header, from
 * `<|start|>` or `<|channel|>` up to `<|message|>`, is read after the `<` by HarmonyHeaderReader
 * (fed by html.ts's TagRecognizer); the message's end is found by reasoning-close.ts. The framing
 * of a message to the user (its header, and its `<|return|>` or `<|end|>`) is read by the same
 * reader, and the scanner marks it in the region log for the chat to leave out.
 */
import { BACKTICK, GREATER_THAN, LESS_THAN, LINE_FEED, OPEN_BRACKET, PIPE } from "./chars.js";
import { HARMONY_MESSAGE_ENDS } from "./reasoning-close.js";
import { TagOutcome } from "./tag-outcome.js";

/** A harmony header longer than this (on one line) is none. */
const MAX_HEADER = 256;
/** A token's name longer than this is no harmony token. */
const MAX_TOKEN_NAME = 16;
/** Text in a header that sends the message to a tool (`to=functions.NAME`): a call, not reasoning. */
const RECIPIENT = /(?:^|\s)to=/;
/** The channel word of the reasoning channel, first in the channel's header. */
const ANALYSIS = /^\s*analysis(?:\s|$)/i;

const enum Part {
  /** A token's name, after `<|`. */
  Name,
  /** After the name's closing `|`: its `>`. */
  NameBar,
  /** Header text between tokens. */
  Text,
  /** After a `<` in the header: a token must follow. */
  Less,
}

/**
 * Reads a harmony header from just after its `<`, one character at a time: `|start|>ROLE
 * <|channel|>HEADER<|message|>` or `|channel|>HEADER<|message|>` (`<|constrain|>` may stand in
 * the header). It completes at `<|message|>`: `analysis` says whether the header names the
 * `analysis` channel and no recipient (`to=` in the role's or the channel's header makes it a tool
 * call, read by the dialect layer). Other tokens fail it, as do a line break, a backtick, a `[`
 * (the header holds no command) and more than 256 characters.
 */
export class HarmonyHeaderReader {
  private part = Part.Name;
  private name = "";
  private tokens = 0;
  private length = 0;
  private inChannel = false;
  private role = "";
  private channel = "";
  /** Once complete: whether the header opens the `analysis` channel with no recipient (reasoning). */
  analysis = false;
  /**
   * Once complete: whether it is the framing of a message to no recipient outside the `analysis`
   * channel (a final or commentary message's header), or a lone `<|return|>` or `<|end|>`.
   */
  framing = false;

  /** Starts reading after a `<` (the `|` that follows is the first character fed). */
  begin(): void {
    this.part = Part.Less;
    this.name = "";
    this.tokens = 0;
    this.length = 0;
    this.inChannel = false;
    this.role = "";
    this.channel = "";
    this.analysis = false;
    this.framing = false;
  }

  /** One character of the header. */
  step(code: number): TagOutcome {
    if (code === LINE_FEED || code === BACKTICK || code === OPEN_BRACKET || ++this.length > MAX_HEADER) return TagOutcome.Failed;
    switch (this.part) {
      case Part.Less:
        if (code !== PIPE) return TagOutcome.Failed;
        this.part = Part.Name;
        this.name = "";
        return TagOutcome.Running;
      case Part.Name:
        if (code === PIPE) {
          this.part = Part.NameBar;
          return TagOutcome.Running;
        }
        if (!isLetter(code) || this.name.length >= MAX_TOKEN_NAME) return TagOutcome.Failed;
        this.name += String.fromCharCode(code);
        return TagOutcome.Running;
      case Part.NameBar:
        return code === GREATER_THAN ? this.endToken() : TagOutcome.Failed;
      default:
        if (code === LESS_THAN) this.part = Part.Less;
        else if (this.inChannel) this.channel += String.fromCharCode(code);
        else this.role += String.fromCharCode(code);
        return TagOutcome.Running;
    }
  }

  /** A token `<|NAME|>` ended: the header goes on, completes or fails. */
  private endToken(): TagOutcome {
    const name = this.name.toLowerCase();
    const first = this.tokens++ === 0;
    this.part = Part.Text;
    if (name === "start" && first) return TagOutcome.Running;
    if (first && FRAMING_ENDS.includes(name)) {
      this.framing = true;
      return TagOutcome.Complete;
    }
    if (name === "channel" && !this.inChannel) {
      this.inChannel = true;
      return TagOutcome.Running;
    }
    if (name === "constrain" && this.inChannel) {
      this.channel += " ";
      return TagOutcome.Running;
    }
    if (name !== "message" || !this.inChannel) return TagOutcome.Failed;
    const toNobody = !RECIPIENT.test(this.role) && !RECIPIENT.test(this.channel);
    this.analysis = toNobody && ANALYSIS.test(this.channel);
    this.framing = toNobody && !this.analysis;
    return TagOutcome.Complete;
  }
}

function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** The tokens that end a message to no recipient (`<|call|>` ends a tool call's): framing when they stand alone in live text. */
const FRAMING_ENDS: readonly string[] = HARMONY_MESSAGE_ENDS.filter((name) => name !== "call");
