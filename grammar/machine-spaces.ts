/**
 * The command machine's whitespace states (command-machine.ts): skipping spaces and line
 * breaks between the pieces of a command, and deciding what the first other character starts
 * (a key, `=` or `<<`, a value, the next parameter, the closing `]`, or an error).
 */
import { BARE, CARRIAGE_RETURN, CLOSE_BRACKET, COLON, COMMA, EQUALS, KEY_FIRST, LESS_THAN, LINE_FEED, QUOTE, SEMICOLON, SPACE, TAB } from "./chars.js";
import { MachineQuotes } from "./machine-quotes.js";
import { Outcome, State } from "./machine-base.js";
import * as messages from "./messages.js";

export abstract class MachineSpaces extends MachineQuotes {
  /** Skips whitespace; returns the index of the first other character, `end`, or -1 on abort. */
  protected skipSpace(input: string, index: number, base: number): number {
    const end = input.length;
    let i = index;
    while (i < end) {
      const code = input.charCodeAt(i);
      if (code === SPACE) i++;
      else if (code === LINE_FEED) {
        if (this.host.newline(base + i, input, i + 1)) {
          this.abort(i + 1);
          return -1;
        }
        i++;
      } else if (code === TAB || code === CARRIAGE_RETURN) {
        this.dirtyIndentAt = base + i;
        i++;
      } else break;
    }
    return i;
  }

  /** Handles the first non-space character in a whitespace state; returns the next index or -1. */
  protected afterSpace(code: number, input: string, i: number, base: number): number {
    switch (this.state) {
      case State.KeyStart:
        if (code < 128 && KEY_FIRST[code]) {
          this.state = State.Key;
          this.piece = "";
          this.pieceFrom = i;
          this.keyOffset = base + i;
          this.keyLine = this.host.line;
          this.keyColumn = base + i - this.host.lineStart + 1;
          return i + 1;
        }
        if (!this.confirmed) return (this.notCommand(i, base), -1);
        return (this.fail(input, i, base, "unexpected_character", this.unexpected(messages.expectations.keyAfterColon(), code)), -1);
      case State.AfterKey:
        if (code === EQUALS) {
          this.confirmed = true;
          this.enterSpace(State.ValueStart, base + i + 1);
          return i + 1;
        }
        if (code === LESS_THAN) {
          this.state = State.SecondLessThan;
          this.valueOffset = this.keyOffset;
          this.valueLine = this.keyLine;
          this.valueColumn = this.keyColumn;
          return i + 1;
        }
        if (!this.confirmed) return (this.notCommand(i, base), -1);
        if (code === COLON && this.colonsOnly()) {
          // `content: "…"`: read on; a quoted value after it makes the `:` a slip for `=` (machine-quotes.ts).
          this.state = State.KeyColon;
          this.junkOffset = base + i;
          this.junkLine = this.host.line;
          this.junkColumn = base + i - this.host.lineStart + 1;
          return i + 1;
        }
        return (this.fail(input, i, base, "unexpected_character", this.unexpected(messages.expectations.assignAfterKey(this.key), code)), -1);
      case State.ValueStart:
        this.lastForm = 0;
        this.bareGap = -1;
        if (code < 128 && BARE[code]) {
          this.state = State.Bare;
          return i + 1;
        }
        if (code === QUOTE) {
          this.state = State.Quoted;
          this.valueOffset = base + i;
          this.valueLine = this.host.line;
          this.valueColumn = base + i - this.host.lineStart + 1;
          return i + 1;
        }
        if (code === CLOSE_BRACKET || code === COLON) {
          return (this.fail(input, i, base, "missing_value", messages.missingValue(this.name, this.key, code)), -1);
        }
        if (this.openOtherQuote(code, base + i)) return i + 1;
        return (this.fail(input, i, base, "unexpected_character", this.unexpected(messages.expectations.value(this.key), code)), -1);
      default:
        if (this.state === State.BareSpace && code < 128 && BARE[code]) {
          this.state = State.Bare;
          this.bareGap = this.spaceRunStart;
          this.bareGapLine = this.spaceRunLine;
          this.bareGapColumn = this.spaceRunColumn;
          this.bareGapLineFeed = this.spaceRunLineFeed;
          return i + 1;
        }
        if (this.state === State.AfterValue && this.lastForm === 0 && this.bareGap >= 0 && this.colonsOnly() && (code === QUOTE || (code < 128 && BARE[code]))) {
          // `action=read path="a"`: the space inside the bare value was a missing `:`, and `path=` its key.
          const message = messages.missingColon(this.name, "the value before it", this.bareGapLine, this.bareGapColumn);
          this.missingColonAt(this.bareGap, this.bareGapLine, this.bareGapColumn, message, this.bareGapLineFeed);
          this.state = State.ValueStart;
          return i;
        }
        if (((this.state === State.BareSpace && code === SEMICOLON) || (this.state === State.AfterValue && this.lastForm === 0 && code === COMMA)) && this.colonsOnly()) {
          // `action=read;path="a"`, `path=YQ==,limit=5`: the `;` or `,` stands where the `:` belongs.
          this.separatorForColon(base + i);
          this.enterSpace(State.KeyStart, base + i + 1);
          return i + 1;
        }
        if (this.state === State.AfterValue && this.lastForm === 0 && this.colonsOnly() && (code === QUOTE || (code < 128 && BARE[code])) && this.commaBeforeKey(i, true)) return i;
        if (this.state === State.BareSpace && code === LESS_THAN && this.colonsOnly() && this.commaBeforeKey(i, false)) return i;
        if ((code === COLON || code === CLOSE_BRACKET) && this.commaAfterQuote()) {
          // `"a",]` or `"a",:`: the comma is junk after the value, as any other character there.
          this.deferStray();
          return i;
        }
        if (code === COLON) {
          this.enterSpace(State.KeyStart, base + i + 1);
          return i + 1;
        }
        if (code === CLOSE_BRACKET) {
          if (this.pending !== undefined) return (this.failDeferred(i, base), -1);
          this.outcome = Outcome.Complete;
          this.stop = i + 1;
          return -1;
        }
        if (this.state === State.AfterValue && this.lastForm === 1 && this.colonsOnly()) {
          // The quoted value ended early (a stray `"` inside it), or the next parameter lacks its `:`.
          if (!this.commaAfterQuote()) {
            this.junkOffset = base + i;
            this.junkCode = code;
            this.junkLine = this.host.line;
            this.junkColumn = base + i - this.host.lineStart + 1;
          }
          if (code === COMMA && base + i === this.quoteOffset + 1) {
            // `path="a", limit=5`: a comma where the `:` belongs, if a key and `=` follow.
            this.enterSpace(State.AfterValue, base + i + 1);
            return i + 1;
          }
          if (base + i > this.quoteOffset + 1 && code < 128 && KEY_FIRST[code]) {
            this.state = State.StrayKey;
            this.strayKey = "";
            this.keyOffset = base + i;
            this.keyLine = this.host.line;
            this.keyColumn = base + i - this.host.lineStart + 1;
            return i;
          }
          this.deferStray();
          return i;
        }
        if (this.state === State.AfterValue && this.lastForm === 2 && this.pending === undefined) {
          // A body line equal to the tag closed the heredoc early: the rest up to the next such line is still body.
          const message = messages.heredocClosedEarly(this.name, this.key, this.tag, this.heredocClosedLine);
          this.defer(base + i, this.host.line, base + i - this.host.lineStart + 1, "unexpected_character", message);
          this.repair = { kind: "heredoc-early", key: this.key, valueAt: this.valueOffset - this.startOffset, tag: this.tag };
          this.brokenBody = true;
          this.state = State.BodyLine;
          return i;
        }
        return (
          this.fail(
            input,
            i,
            base,
            "unexpected_character",
            this.unexpected((this.state === State.BareSpace ? messages.expectations.afterBare : messages.expectations.afterValue)(this.key), code),
          ),
          -1
        );
    }
  }

  /**
   * A bare value ended in `,KEY=` and a value follows (`action=read,path="a"`), or in `,KEY` and a
   * heredoc's `<<` follows (`path=a.txt,content<<EOF`): the comma stood where the `:` belongs, and
   * KEY began the next parameter. Noted as a missing `:`, and what follows is read as KEY's.
   */
  private commaBeforeKey(index: number, assigned: boolean): boolean {
    const text = this.host.textTo(index);
    const glued = (assigned ? /,([A-Za-z_][A-Za-z0-9_-]*)=$/ : /,([A-Za-z_][A-Za-z0-9_-]*)$/).exec(text);
    if (glued === null) return false;
    const offset = this.startOffset + glued.index;
    this.separatorForColon(offset);
    this.key = glued[1]!;
    if (assigned) this.state = State.ValueStart;
    else {
      this.state = State.AfterKey;
      this.keyOffset = offset + 1;
      this.keyLine = this.host.line;
      this.keyColumn = offset + 1 - this.host.lineStart + 1;
    }
    return true;
  }

  /** The character at absolute `offset` on this line (a `,` or `;` after the value of the current key) stands where a `:` belongs. */
  private separatorForColon(offset: number): void {
    const column = offset - this.host.lineStart + 1;
    this.missingColonAt(offset, this.host.line, column, messages.missingColon(this.name, `the value of ${this.key}`, this.host.line, column));
  }

  /** After a quoted value, a comma came first (`"a", `): it stands where a `:` would, if a key follows. */
  private commaAfterQuote(): boolean {
    return this.state === State.AfterValue && this.lastForm === 1 && this.junkCode === COMMA && this.junkOffset === this.quoteOffset + 1 && this.colonsOnly();
  }
}
