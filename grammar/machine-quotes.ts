/**
 * The command machine's reading of a value in single or typographic quotes or backticks
 * (`path='a.ts'`, `path=“a.ts”`, `command=\`npm test\``), which models write for a quoted value: it is read as data to its closing quote
 * (over lines, brackets of command-shaped text inside it paired up), so that nothing in it ever
 * runs, and the command is an error whose hint has the value in `"` (repair.ts, `requote`).
 *
 * Its end is a closing quote (at bracket depth 0) followed, after blanks, by `]`, or by `:`, a key
 * and `=` or `<<` (the next parameter); any other closing quote is part of the value (`'it's'`).
 */
import { CARRIAGE_RETURN, CLOSE_BRACKET, COLON, EQUALS, KEY_FIRST, KEY_REST, LESS_THAN, LINE_FEED, OPEN_BRACKET, QUOTE, SPACE, TAB } from "./chars.js";
import { State } from "./machine-base.js";
import { MachineRepairs } from "./machine-repairs.js";
import * as messages from "./messages.js";

export const APOSTROPHE = 0x27;
export const BACKTICK = 0x60;
export const LEFT_QUOTE = 0x201c;
export const RIGHT_QUOTE = 0x201d;
/** Keys longer than this after a closing quote are read as the value's text. */
const KEY_LIMIT = 64;

/** Where the reading after a closing quote is. */
const enum After {
  /** Inside the value. */
  Value,
  /** After a closing quote: blanks, then `]` or `:` end the value. */
  Quote,
  /** After the quote and `:`: blanks, then a key. */
  Colon,
  /** In the key. */
  Key,
  /** After the key: blanks, then `=` or `<<`. */
  KeyEnd,
}

export abstract class MachineQuotes extends MachineRepairs {
  private otherCloser = 0;
  private after = After.Value;
  private closerAt = 0;
  private otherKey = "";

  /** At a value's start, `code` may open a value in other quotes: read on as one, or false. */
  protected openOtherQuote(code: number, offset: number): boolean {
    if (!isOtherQuote(code)) return false;
    if (this.pending !== undefined && this.repair?.kind !== "requote") return false;
    this.state = State.OtherQuoted;
    this.otherCloser = code === LEFT_QUOTE ? RIGHT_QUOTE : code;
    this.after = After.Value;
    this.brokenDepth = 0;
    this.valueOffset = offset;
    this.valueLine = this.host.line;
    this.valueColumn = offset - this.host.lineStart + 1;
    return true;
  }

  /**
   * After a key and `:` (`State.KeyColon`, the `:` noted as the junk): blanks, then a quoted value
   * makes the `:` a slip for `=`, noted as missing colons are (an error whose hint has the `=`;
   * the value is read as any other, so nothing in it runs); anything else is the ordinary error at
   * that `:`. Returns the next index, or -1.
   */
  protected afterKeyColon(i: number, base: number, code: number): number {
    if (code === SPACE || code === TAB) return i + 1;
    if (code === QUOTE || isOtherQuote(code)) {
      if (this.pending === undefined) {
        this.defer(this.junkOffset, this.junkLine, this.junkColumn, "unexpected_character", messages.colonForEquals(this.name, this.key, this.junkLine, this.junkColumn));
        this.repair = { kind: "colon", key: this.key, valueAt: 0, colons: [] };
      }
      (this.repair!.equals ??= []).push(this.junkOffset - this.startOffset);
      this.state = State.ValueStart;
      return i;
    }
    const start = { offset: this.junkOffset, line: this.junkLine, column: this.junkColumn };
    this.failAt(i, base, start, false, "unexpected_character", this.unexpected(messages.expectations.assignAfterKey(this.key), COLON));
    return -1;
  }

  /** One character of a value in other quotes; returns the next index, or -1 at an outcome. */
  protected otherQuoted(input: string, i: number, base: number, code: number): number {
    const blank = code === SPACE || code === TAB || code === CARRIAGE_RETURN || code === LINE_FEED;
    if (code === LINE_FEED && this.host.newline(base + i, input, i + 1)) return (this.abort(i + 1), -1);
    switch (this.after) {
      case After.Quote:
        if (blank) return i + 1;
        if (code === CLOSE_BRACKET && this.brokenDepth === 0) return this.endOtherQuote(i, State.AfterValue);
        if (code === COLON && this.brokenDepth === 0) {
          this.after = After.Colon;
          return i + 1;
        }
        break;
      case After.Colon:
        if (blank) return i + 1;
        if (code < 128 && KEY_FIRST[code]) {
          this.after = After.Key;
          this.otherKey = input[i]!;
          this.keyOffset = base + i;
          this.keyLine = this.host.line;
          this.keyColumn = base + i - this.host.lineStart + 1;
          return i + 1;
        }
        break;
      case After.Key:
        if (code < 128 && KEY_REST[code] && this.otherKey.length < KEY_LIMIT) {
          this.otherKey += input[i];
          return i + 1;
        }
        if (blank) {
          this.after = After.KeyEnd;
          return i + 1;
        }
        if (code === EQUALS || code === LESS_THAN) return this.endOtherQuote(i, State.AfterKey);
        break;
      case After.KeyEnd:
        if (blank) return i + 1;
        if (code === EQUALS || code === LESS_THAN) return this.endOtherQuote(i, State.AfterKey);
        break;
    }
    // Inside the value (or what followed a quote did not end it): brackets pair up, a closing quote may end it.
    this.after = After.Value;
    if (code === this.otherCloser || (this.otherCloser === RIGHT_QUOTE && code === LEFT_QUOTE)) {
      this.after = After.Quote;
      this.closerAt = base + i;
    } else if (code === OPEN_BRACKET) this.brokenDepth++;
    else if (code === CLOSE_BRACKET && this.brokenDepth > 0) this.brokenDepth--;
    return i + 1;
  }

  /** The value ended at the last closing quote; `state` reads the character at `i` again (`]`, or the next key's `=` or `<<`). */
  private endOtherQuote(i: number, state: State): number {
    const quotes = this.otherCloser === APOSTROPHE ? "single quotes" : this.otherCloser === BACKTICK ? "backticks" : "typographic quotes";
    const message = messages.otherQuotes(this.name, this.key, this.valueLine, this.valueColumn, quotes);
    if (this.pending === undefined) {
      this.defer(this.valueOffset, this.valueLine, this.valueColumn, "invalid_quoted", message);
      this.repair = { kind: "requote", key: this.key, valueAt: this.valueOffset - this.startOffset, quotes: [] };
    }
    this.repair!.quotes!.push(this.valueOffset - this.startOffset, this.closerAt - this.startOffset);
    this.lastForm = 3;
    if (state === State.AfterKey) {
      this.key = this.otherKey;
      this.state = state;
    } else this.enterSpace(State.AfterValue, this.closerAt + 1);
    return i;
  }
}

/** A quote a model writes for a value's `"`: `'`, `` ` ``, `“` or `”`. */
function isOtherQuote(code: number): boolean {
  return code === APOSTROPHE || code === BACKTICK || code === LEFT_QUOTE || code === RIGHT_QUOTE;
}
