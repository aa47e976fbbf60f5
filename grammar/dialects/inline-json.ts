/**
 * A `{` in the middle of a line of prose opens a JSON call only when its first key is one a JSON
 * call opens with (read-call.ts, callFromJson: `"name"`, `"tool_name"`, `"function"`, …): read a
 * character at a time, so any other braces in prose are dropped after a few characters and the
 * text after them is read as before.
 */
import { NAME_KEYS } from "./read-call.js";
import { CARRIAGE_RETURN, LINE_FEED, QUOTE, SPACE, TAB } from "./states.js";

/** A call's name keys, OpenAI's `"type"` and `"id"`, and its arguments' keys, which some models write first. */
const FIRST_KEYS = new Set([...NAME_KEYS, "function_call", "action", "type", "id", "arguments", "parameters"]);
const PREFIXES = new Set([...FIRST_KEYS].flatMap((key) => [...key].map((_, length) => key.slice(0, length + 1))));

export const enum KeyStep {
  /** The character may lead to a first key: read on. */
  Goes,
  /** The first key's closing quote: the object may be a call. */
  Opens,
  /** No first key of a call: the character is text. */
  Fails,
  /** A line feed right after the `{` and blanks: the key may begin the next line. */
  Line,
}

/** Reads, after a `{`, blanks and a JSON call's first key in double quotes. */
export class FirstKeyReader {
  private key = "";
  private quoted = false;
  /** A line feed came after the `{` (its line ended with it). */
  private broken = false;

  reset(): void {
    this.key = "";
    this.quoted = false;
    this.broken = false;
  }

  /** The `{` ended its line: the key began the next one. */
  get onNextLine(): boolean {
    return this.broken;
  }

  /** The `{` ended its line and only blanks came on the next one. */
  get blankSinceLine(): boolean {
    return this.broken && !this.quoted;
  }

  take(code: number): KeyStep {
    if (!this.quoted) {
      if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) return KeyStep.Goes;
      if (code === LINE_FEED) {
        // A blank line after the `{` ends it.
        if (this.broken) return KeyStep.Fails;
        this.broken = true;
        return KeyStep.Line;
      }
      this.quoted = code === QUOTE;
      return this.quoted ? KeyStep.Goes : KeyStep.Fails;
    }
    if (code === QUOTE) return FIRST_KEYS.has(this.key) ? KeyStep.Opens : KeyStep.Fails;
    this.key += String.fromCharCode(code);
    return PREFIXES.has(this.key) ? KeyStep.Goes : KeyStep.Fails;
  }
}
