/**
 * The scanner's vocabulary: the findings it reports, its states, and the character tables its
 * loops skip with (scanner.ts, scanner-core.ts and the layers between them).
 */
import type { Command, Mention, SyntaxError } from "./ast.js";
import { BACKSLASH, BACKTICK, CLOSE_BRACKET, LESS_THAN, LINE_FEED, OPEN_BRACKET } from "./chars.js";

/** One finding, in source order. */
export type ParseEvent = { type: "command"; command: Command } | { type: "mention"; mention: Mention } | { type: "error"; error: SyntaxError };

export const enum Region {
  Text,
  Fence,
}

export const enum State {
  Text,
  LineStart,
  FenceRun,
  Ticks,
  CodeHold,
  CodeHoldRun,
  FenceInfo,
  Machine,
  Recover,
  RecoverFenceCandidate,
  /** Recovering, after one `<`: a second makes a heredoc header candidate. */
  RecoverLess,
  /** Recovering, after `<<`: reading the tag. */
  RecoverTag,
  /** Recovering, after the tag: the header line must end (only spaces before its line break). */
  RecoverHeader,
  /** Recovering inside a broken command's heredoc body, at the start of a line. */
  RecoverBodyStart,
  /** Recovering inside a broken command's heredoc body, in a line that is not the closing one. */
  RecoverBodyLine,
  FenceContent,
  FenceSkipLine,
  /** At a line's beginning: container markers and indentation, up to what decides the line. */
  Prefix,
  /** The rest of a line of inert content (code, HTML, quoted material, reasoning), read at its end. */
  InertLine,
  /** Holding a code span or tag open: the next line's beginning, to learn if the paragraph goes on. */
  HoldPrefix,
  /** Holding text after a `<` that may open inline raw HTML. */
  TagHold,
  /** After a complete tag that began a line: only whitespace to the line's end makes it an HTML block. */
  AfterLineTag,
}

/** What the fast path still has to do for a chunk it let through. */
export const enum FollowUp {
  None,
  Capture,
  Full,
}

export const enum Closer {
  Off,
  Indent,
  Run,
  Trail,
  Matched,
  /** After the run, in a DeepSeek call's fence: a DeepSeek end token being matched (scanner-fences.ts). */
  Token,
  /** After a DeepSeek end token: blanks or another such token up to the line feed. */
  AfterToken,
}

function specials(characters: number[]): Uint8Array {
  const table = new Uint8Array(128);
  for (const code of characters) table[code] = 1;
  return table;
}

export const TEXT_SPECIAL = specials([OPEN_BRACKET, BACKSLASH, BACKTICK, LINE_FEED, LESS_THAN]);
export const FENCE_SPECIAL = specials([OPEN_BRACKET, BACKSLASH, LINE_FEED]);
export const RECOVER_SPECIAL = specials([CLOSE_BRACKET, LINE_FEED, LESS_THAN]);
export const HOLD_SPECIAL = specials([BACKTICK, LINE_FEED]);

/** Index of the first character at or after `from` that the table marks, or `input.length`. */
export function skipTo(input: string, from: number, table: Uint8Array): number {
  const end = input.length;
  let i = from;
  while (i < end) {
    const code = input.charCodeAt(i);
    if (code < 128 && table[code] === 1) return i;
    i++;
  }
  return end;
}

export const NO_EVENTS = Object.freeze([]) as unknown as ParseEvent[];

export interface Pending {
  input: string;
  index: number;
  base: number;
}
