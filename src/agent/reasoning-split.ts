/**
 * Reasoning written into a reply's text (`<think>`, `<thinking>`, `<reasoning>` blocks, gpt-oss's
 * harmony analysis messages `<|channel|>analysis<|message|>…<|end|>`, an unclosed one to the end),
 * told apart from what the reply says. Which text is reasoning is the
 * scanner's decision (its region log, grammar/regions.ts), so a tag inside a fence or a code span
 * stays text, as it is code. The tags (a harmony message's header and its `<|end|>`), and the line
 * break that ends a closing tag's line, belong to neither side; so does the framing of a harmony
 * message to the user in live text (its header and its `<|return|>` or `<|end|>`, which the
 * scanner marks as `framing`).
 */
import { REASONING_NAMES } from "../../grammar/html.js";
import { HARMONY_MESSAGE_ENDS } from "../../grammar/reasoning-close.js";
import type { InertRegionKind, InertRegionLog } from "../../grammar/regions.js";
import { StreamingScanner } from "../../grammar/scanner.js";
import type { ChatMessage } from "../providers/types.js";

/** Where the split goes, as it is decided. */
export interface ReasoningSink {
  text(text: string): void;
  reasoning(text: string): void;
  /** The reasoning block being passed on ended (its closing tag, or the reply's end). */
  reasoningEnded(): void;
}

const OPENER_NAMES = [...REASONING_NAMES];
/** The end of a harmony message's header, which opens its body. */
const HARMONY_MESSAGE = "<|message|>";
/** The tokens that end a harmony message inside its region (the next message's header lies outside it). */
const HARMONY_CLOSINGS = HARMONY_MESSAGE_ENDS.map((name) => `<|${name}|>`);

/**
 * Index of the first `<` in `text` from `from` that may still open a reasoning block: its
 * letters name one of the tags, or are the beginning of a name when the text stops there; or a
 * `<|` that may begin a harmony header.
 */
function possibleOpener(text: string, from: number): number {
  for (let at = text.indexOf("<", from); at >= 0; at = text.indexOf("<", at + 1)) {
    if (text.charCodeAt(at + 1) === 0x7c) return at;
    let end = at + 1;
    while (end < text.length && /[A-Za-z]/.test(text[end]!)) end++;
    const name = text.slice(at + 1, end).toLowerCase();
    if (end === text.length ? OPENER_NAMES.some((opener) => opener.startsWith(name)) : OPENER_NAMES.includes(name)) return at;
  }
  return -1;
}

/**
 * The opening (a tag, or a harmony header up to its `<|message|>`) at the start of `text`: its
 * length and the closings that end its block, lower case. Undefined while it is incomplete.
 */
function openingOf(text: string): { length: number; closings: string[] } | undefined {
  if (text.startsWith("<|")) {
    const message = text.indexOf(HARMONY_MESSAGE);
    return message < 0 ? undefined : { length: message + HARMONY_MESSAGE.length, closings: HARMONY_CLOSINGS };
  }
  const close = openingTagEnd(text);
  if (close < 0) return undefined;
  return { length: close + 1, closings: [`</${(/^<([A-Za-z]+)/.exec(text)?.[1] ?? "").toLowerCase()}>`] };
}

/** The first of `closings` in `text` (lower case): where it starts and its length, or undefined. */
function firstClosing(text: string, closings: string[]): { at: number; length: number } | undefined {
  let first: { at: number; length: number } | undefined;
  for (const closing of closings) {
    const at = text.indexOf(closing);
    if (at >= 0 && (first === undefined || at < first.at)) first = { at, length: closing.length };
  }
  return first;
}

/** How many characters at the end of `text` may begin one of `closings`. */
function closingPrefix(text: string, closings: string[]): number {
  let longest = 0;
  for (const closing of closings) {
    let held = Math.min(closing.length - 1, text.length);
    while (held > longest && !closing.startsWith(text.slice(text.length - held).toLowerCase())) held--;
    longest = Math.max(longest, held);
  }
  return longest;
}

/** Index of the `>` that ends the opening tag at the start of `text` (quoted values skipped), or -1. */
function openingTagEnd(text: string): number {
  let quote = "";
  for (let index = 1; index < text.length; index++) {
    const character = text[index]!;
    if (quote) {
      if (character === quote) quote = "";
    } else if (character === '"' || character === "'") quote = character;
    else if (character === ">") return index;
  }
  return -1;
}

/** Which side of the split a region kind's text goes to: framing goes to neither. */
const enum Side {
  Text,
  Reasoning,
  Framing,
}

function sideOf(kind: InertRegionKind | undefined): Side {
  return kind === "reasoning" ? Side.Reasoning : kind === "framing" ? Side.Framing : Side.Text;
}

/**
 * Feed the reply with `push(chunk)` as it streams, then call `end()`. Text goes on at once up to
 * the first place that may still turn out to open a reasoning block; the rest follows as the
 * scanner settles it, so any chunking gives the same split.
 */
export class ReasoningSplitter {
  private readonly scanner = new StreamingScanner();
  private readonly log: InertRegionLog = this.scanner.regions;
  /** The text not passed on yet, from absolute offset `routed`. */
  private pending = "";
  private routed = 0;
  /** Inside a reasoning block: its opening tag is being skipped, then its body passed on. */
  private block: { opening: boolean; closings: string[]; held: string } | undefined;
  /** After a closing tag, blanks and one line break are dropped ("return": a `\r` was, a `\n` may follow). */
  private afterBlock: "no" | "blanks" | "return" = "no";

  constructor(private readonly sink: ReasoningSink) {}

  push(chunk: string): void {
    if (!chunk) return;
    this.scanner.push(chunk);
    this.pending += chunk;
    this.route(this.log.settledUntil);
  }

  /** The reply is complete: an unclosed block runs to its end. */
  end(): void {
    this.scanner.end();
    this.route(this.log.settledUntil);
    if (this.block) this.finishBlock();
  }

  /** Passes on the settled text below `settled`, then the unsettled text that cannot be reasoning. */
  private route(settled: number): void {
    const upTo = Math.min(settled, this.routed + this.pending.length);
    while (this.routed < upTo) {
      const side = sideOf(this.log.kindAt(this.routed));
      let end = this.routed + 1;
      while (end < upTo && sideOf(this.log.kindAt(end)) === side) end++;
      if (side !== Side.Reasoning && this.block) this.finishBlock();
      const piece = this.take(end);
      if (side === Side.Reasoning) this.reasoningPiece(piece);
      else if (side === Side.Text) this.textPiece(piece);
      // Framing is text that is not shown: the blanks after a closing tag end at it.
      else this.afterBlock = "no";
    }
    if (this.block || !this.pending) return;
    // Unsettled, but before any possible opener: this cannot become reasoning.
    const opener = possibleOpener(this.pending, 0);
    const safe = opener < 0 ? this.pending.length : opener;
    if (safe > 0) this.textPiece(this.take(this.routed + safe));
  }

  /** Removes the pending text up to absolute offset `end` and returns it. */
  private take(end: number): string {
    if (end - this.routed === this.pending.length) {
      const all = this.pending;
      this.pending = "";
      this.routed = end;
      return all;
    }
    const piece = this.pending.slice(0, end - this.routed);
    this.pending = this.pending.slice(end - this.routed);
    this.routed = end;
    return piece;
  }

  private textPiece(piece: string): void {
    let skip = 0;
    if (this.afterBlock === "return") {
      skip = piece.startsWith("\n") ? 1 : 0;
      this.afterBlock = "no";
    } else if (this.afterBlock === "blanks") {
      const blank = /^[ \t]*(\r\n|\n|\r)?/.exec(piece)![0];
      skip = blank.length;
      // A `\r` at the piece's end may be the first half of `\r\n`.
      if (blank.endsWith("\r") && skip === piece.length) this.afterBlock = "return";
      else if (skip < piece.length || /[\r\n]$/.test(blank)) this.afterBlock = "no";
    }
    if (skip === piece.length) return;
    this.sink.text(skip ? piece.slice(skip) : piece);
  }

  /** A piece of reasoning text; it may close its block and open the next (blocks may touch). */
  private reasoningPiece(piece: string): void {
    let rest = piece;
    while (rest) {
      this.block ??= { opening: true, closings: [], held: "" };
      const block = this.block;
      if (block.opening) {
        block.held += rest;
        const opening = openingOf(block.held);
        if (opening === undefined) return;
        block.closings = opening.closings;
        block.opening = false;
        rest = block.held.slice(opening.length);
        block.held = "";
      }
      const text = block.held + rest;
      // The scanner ends a block at its first closing, so one found here is the block's end.
      const end = firstClosing(text.toLowerCase(), block.closings);
      if (end !== undefined) {
        if (end.at > 0) this.sink.reasoning(text.slice(0, end.at));
        this.block = undefined;
        this.sink.reasoningEnded();
        this.afterBlock = "blanks";
        rest = text.slice(end.at + end.length);
        continue;
      }
      // What may be the beginning of the closing waits until the block's end is known.
      const held = closingPrefix(text, block.closings);
      block.held = text.slice(text.length - held);
      const ready = text.slice(0, text.length - held);
      if (ready) this.sink.reasoning(ready);
      return;
    }
  }

  /** The block ends without its closing tag: the reply ended inside it (or its region did). */
  private finishBlock(): void {
    const block = this.block!;
    this.block = undefined;
    if (!block.opening && block.held) this.sink.reasoning(block.held);
    this.sink.reasoningEnded();
  }
}

/** A whole reply split: what it says and each reasoning block's text. */
export function splitReasoning(text: string): { text: string; reasoning: string[] } {
  let said = "";
  const blocks: string[] = [];
  let current = "";
  const splitter = new ReasoningSplitter({
    text: (piece) => (said += piece),
    reasoning: (piece) => (current += piece),
    reasoningEnded: () => {
      blocks.push(current);
      current = "";
    },
  });
  splitter.push(text);
  splitter.end();
  return { text: said, reasoning: blocks };
}

/**
 * A reply as it goes back to the model: without its reasoning blocks (providers reject reasoning
 * in the history: DeepSeek) and its harmony framing. A reply with neither comes back unchanged;
 * `""` when it was all reasoning.
 */
export function withoutReasoning(text: string): string {
  if (possibleOpener(text, 0) < 0) return text;
  const split = splitReasoning(text);
  return split.reasoning.length || split.text !== text ? split.text.trimStart() : text;
}

/** What stands in the history for a reply that was reasoning only (a provider may refuse an empty message). */
export const REASONING_ONLY = "[no reply text: the reply held reasoning only]";

/**
 * What the history sends back for a reply whose text is `text` and says `said` (its text without
 * reasoning blocks, from `withoutReasoning`): the reply itself when it had none.
 */
export function historyContent(text: string, said: string): string {
  if (said === text) return text;
  return said.trim() ? said : REASONING_ONLY;
}

/**
 * A message as the history sends it back to the model: a reply without its `<think>` blocks (the
 * session file keeps them). Used when a recorded session is resumed.
 */
export function forHistory(message: ChatMessage): ChatMessage {
  if (message.role !== "assistant") return message;
  const content = historyContent(message.content, withoutReasoning(message.content));
  return content === message.content ? message : { ...message, content };
}
