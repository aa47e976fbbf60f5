/**
 * The command machine's repairs (command-machine.ts): the rest of a broken quoted value, read as
 * data up to its end so recovery never resumes inside it; a word after a quoted value that is
 * the next key without its `:`; and the missing colons the machine notes and reads past.
 */
import { BACKSLASH, CARRIAGE_RETURN, CLOSE_BRACKET, EQUALS, KEY_REST, LESS_THAN, LINE_FEED, OPEN_BRACKET, QUOTE, SPACE, TAB } from "./chars.js";
import { MachineBase, State } from "./machine-base.js";
import * as messages from "./messages.js";

export abstract class MachineRepairs extends MachineBase {
  /**
   * One step through the rest of a broken quoted value, which is data up to a `"` that is followed
   * (after spaces) by `]`: recovery resumes there and never inside the value. Returns the next
   * index, or -1 at an outcome.
   */
  protected brokenValue(input: string, i: number, base: number, code: number): number {
    if (code === LINE_FEED) {
      if (this.state === State.BrokenClose) {
        // `"]` ended its line: the broken value ends here, and scanning goes on after it.
        this.recovered = true;
        return (this.failDeferred(i, base), -1);
      }
      if (this.host.newline(base + i, input, i + 1)) return (this.abort(i + 1), -1);
      this.brokenEscape = false;
      this.state = State.Broken;
      return i + 1;
    }
    if (this.state === State.BrokenClose) {
      if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) return i + 1;
      this.state = State.Broken;
      if (code !== OPEN_BRACKET) return i;
      this.recovered = true;
      return (this.failDeferred(i, base), -1);
    }
    if (this.state === State.BrokenQuote) {
      if (code === CLOSE_BRACKET && this.brokenDepth > 0) {
        this.brokenDepth--;
        this.state = State.Broken;
        return i + 1;
      }
      if (code === CLOSE_BRACKET) {
        this.state = State.BrokenClose;
        return i + 1;
      }
      if (code === SPACE || code === TAB || code === CARRIAGE_RETURN || code === QUOTE) return i + 1;
      this.state = State.Broken;
      return i;
    }
    if (this.brokenEscape) {
      this.brokenEscape = false;
      return i + 1;
    }
    // Brackets of command-shaped text inside the value pair up: its `"]` does not end the value.
    if (code === BACKSLASH) this.brokenEscape = true;
    else if (code === QUOTE) {
      this.state = State.BrokenQuote;
      this.brokenQuoteSeen = true;
    } else if (code === OPEN_BRACKET && !this.brokenUnpaired) this.brokenDepth++;
    else if (code === CLOSE_BRACKET && this.brokenDepth === 0 && !this.brokenQuoteSeen && this.repair?.strayAt !== undefined) {
      // `"v" junk]`: no stray quote after all, only text after the value; recovery takes it from this `]`.
      this.defer(
        this.junkOffset,
        this.junkLine,
        this.junkColumn,
        "unexpected_character",
        this.unexpected(messages.expectations.afterValue(this.key), this.junkCode),
        this.junkCode === LINE_FEED,
      );
      this.repair = undefined;
      return (this.failDeferred(i, base), -1);
    } else if (code === CLOSE_BRACKET && this.brokenDepth > 0) this.brokenDepth--;
    return i + 1;
  }

  /**
   * At a raw line break (index `index`) inside a quoted value whose line ends in `]`
   * (`path="a.ts]`): the value's closing `"` was left out before the command's `]`, so the
   * command ends there (an error whose hint closes the value), and the next line is read as
   * before. Any other raw line break is a line of the value (`breakValue`).
   */
  protected leftOpenBeforeBracket(index: number): boolean {
    if (this.pending !== undefined || !/\][ \t]*\r?$/.test(this.host.textTo(index))) return false;
    this.repair = { kind: "close-quote", key: this.key, valueAt: this.valueOffset - this.startOffset };
    return true;
  }

  /**
   * A quoted value broke at absolute `offset` (`lineFeed`: a line feed stands there), as `message`
   * says: a raw line break (models write a file's lines so), another raw control character (a
   * tab), or a bad escape (`\d`, `C:\Users`). The value goes on as a broken one, data up to its
   * first `"]` (`brokenUnpaired`), so that nothing in its later lines runs before it; the hint is
   * the command with those characters escaped. The character at `offset` is read again as the broken value's.
   */
  protected breakValue(offset: number, message: string, lineFeed = false): void {
    if (this.pending === undefined) {
      const column = offset - this.host.lineStart + 1;
      this.defer(offset, this.host.line, column, "invalid_quoted", `${message}${messages.BROKEN_VALUE_TAKEN}`, lineFeed);
      this.repair = { kind: "quoted", key: this.key, valueAt: this.valueOffset - this.startOffset };
    } else this.repair = undefined;
    this.brokenQuoteSeen = false;
    this.brokenEscape = false;
    this.brokenUnpaired = true;
    this.state = State.Broken;
  }

  /** A word after a quoted value and spaces: the next key (with `=` or `<<` after it) or the value's text. */
  protected strayKeyStep(input: string, i: number, code: number): number {
    if (this.state === State.StrayKey && code < 128 && KEY_REST[code]) {
      this.strayKey += input[i];
      return i + 1;
    }
    if (code === SPACE || code === TAB) {
      this.state = State.StrayKeySpace;
      return i + 1;
    }
    if (code !== EQUALS && code !== LESS_THAN) {
      this.deferStray();
      return i;
    }
    // The `:` belonged right after the closing quote; when a line feed stands there (the stray key's line starts just past it), the span ends on the next line.
    const lineFeedAfterQuote = this.junkOffset - this.junkColumn + 1 === this.quoteOffset + 2;
    this.missingColonAt(
      this.quoteOffset + 1,
      this.quoteLine,
      this.quoteColumn + 1,
      messages.missingColon(this.name, this.key, this.quoteLine, this.quoteColumn),
      lineFeedAfterQuote,
    );
    this.key = this.strayKey;
    this.state = State.AfterKey;
    return i;
  }

  /** Nothing is broken yet but missing colons, which the machine reads past. */
  protected colonsOnly(): boolean {
    return this.pending === undefined || this.repair?.kind === "colon";
  }

  /**
   * A `:` is missing at absolute `offset` (at `line` and `column`, which the caller noted: a line
   * break may have come since): noted (the first one is the error), and parsing goes on.
   */
  protected missingColonAt(offset: number, line: number, column: number, message: string, lineFeed = false): void {
    if (this.pending === undefined) {
      this.defer(offset, line, column, "unexpected_character", message, lineFeed);
      this.repair = { kind: "colon", key: this.key, valueAt: 0, colons: [] };
    }
    this.repair!.colons!.push(offset - this.startOffset);
  }
}
