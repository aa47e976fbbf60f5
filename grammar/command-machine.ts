/**
 * A resumable recognizer for one command, from just after its `[` to its `]` (contract §1–§2).
 *
 * It is fed the text in pieces (`feed`) and keeps every decision in its own state, so no
 * character is ever looked at twice and chunk boundaries may fall anywhere. Before the first
 * `=` or `<<` the text is only a candidate: failing there means "this `[` is prose". After it,
 * the first character that cannot continue the command is a syntax error.
 *
 * The machine only decides where a command ends and where it breaks; the Chevrotain
 * lexer and parser (lexer.ts, parser.ts) turn a complete command's text into the syntax tree.
 */
import {
  BACKSLASH,
  BARE,
  CARRIAGE_RETURN,
  CLOSE_BRACKET,
  COLON,
  EQUALS,
  KEY_FIRST,
  KEY_REST,
  LESS_THAN,
  LINE_FEED,
  NAME_FIRST,
  OPEN_BRACKET,
  NAME_REST,
  QUOTE,
  SPACE,
  TAB,
  TAG_REST,
} from "./chars.js";
import { isHexDigit, MachineBase, Outcome, State } from "./machine-base.js";
import * as messages from "./messages.js";

export { Outcome, type MachineHost } from "./machine-base.js";

export class CommandMachine extends MachineBase {
  /** Consumes `input` from `index` (absolute offset of input[0] is `base`) until an outcome. */
  feed(input: string, index: number, base: number): Outcome {
    const end = input.length;
    let i = index;
    if (this.state === State.Name || this.state === State.Key || this.state === State.Tag) this.pieceFrom = i;
    while (i < end) {
      let code = input.charCodeAt(i);
      switch (this.state) {
        case State.NameFirst:
          if (code < 128 && NAME_FIRST[code]) {
            this.state = State.Name;
            this.piece = "";
            this.pieceFrom = i;
            i++;
            continue;
          }
          return this.notCommand(i, base);
        case State.Name:
          while (code < 128 && NAME_REST[code]) {
            if (++i === end) break;
            code = input.charCodeAt(i);
          }
          if (i === end) break;
          if (code !== COLON) return this.notCommand(i, base);
          this.name = this.piece + input.slice(this.pieceFrom, i);
          this.enterSpace(State.KeyStart, base + i + 1);
          i++;
          continue;
        case State.KeyStart:
        case State.AfterKey:
        case State.ValueStart:
        case State.BareSpace:
        case State.AfterValue: {
          i = this.skipSpace(input, i, base);
          if (i < 0) return this.outcome;
          if (i === end) break;
          code = input.charCodeAt(i);
          const next = this.afterSpace(code, input, i, base);
          if (next < 0) return this.outcome;
          i = next;
          continue;
        }
        case State.Key:
          while (code < 128 && KEY_REST[code]) {
            if (++i === end) break;
            code = input.charCodeAt(i);
          }
          if (i === end) break;
          this.key = this.piece + input.slice(this.pieceFrom, i);
          this.enterSpace(State.AfterKey, base + i);
          continue;
        case State.SecondLessThan:
          if (code !== LESS_THAN && !this.confirmed) return this.notCommand(i, base);
          if (code !== LESS_THAN) return this.fail(input, i, base, "unexpected_character", this.unexpected(messages.expectations.secondLessThan(this.key), code));
          this.confirmed = true;
          this.state = State.TagFirst;
          i++;
          continue;
        case State.TagFirst:
          if (code < 128 && KEY_FIRST[code]) {
            this.state = State.Tag;
            this.piece = "";
            this.pieceFrom = i;
            i++;
            continue;
          }
          return this.fail(input, i, base, "unexpected_character", this.unexpected(messages.expectations.tagAfterHeredoc(this.key), code));
        case State.Tag:
          while (code < 128 && TAG_REST[code]) {
            if (++i === end) break;
            code = input.charCodeAt(i);
          }
          if (i === end) break;
          this.tag = this.piece + input.slice(this.pieceFrom, i);
          this.tagEnd = base + i;
          this.state = State.HeaderEnd;
          continue;
        case State.HeaderEnd:
          if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) {
            i++;
            continue;
          }
          if (code !== LINE_FEED) {
            return this.fail(input, i, base, "unexpected_character", this.unexpected(messages.expectations.lineBreakAfterTag(this.key, this.tag), code));
          }
          if (this.host.newline(base + i, input, i + 1)) return this.abort(i + 1);
          this.state = State.BodyLineStart;
          this.tagMatched = 0;
          i++;
          continue;
        case State.BodyLineStart:
          if (this.tagMatched < this.tag.length) {
            if (code === this.tag.charCodeAt(this.tagMatched)) {
              this.tagMatched++;
              i++;
            } else this.state = State.BodyLine;
            continue;
          }
          this.state = State.BodyTagTrail;
          continue;
        case State.BodyTagTrail:
          if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) {
            i++;
            continue;
          }
          if (code === LINE_FEED) {
            if (this.host.newline(base + i, input, i + 1)) return this.abort(i + 1);
            this.enterSpace(State.AfterValue, base + i + 1);
            this.lastForm = this.brokenBody ? 0 : 2;
            this.brokenBody = false;
            this.heredocClosedLine = this.host.line - 1;
            i++;
            continue;
          }
          if (code === CLOSE_BRACKET || code === COLON) this.sawTagWith ??= String.fromCharCode(code);
          this.state = State.BodyLine;
          continue;
        case State.BodyLine: {
          const lineFeed = input.indexOf("\n", i);
          if (lineFeed < 0) {
            i = end;
            break;
          }
          i = lineFeed + 1;
          if (this.host.newline(base + lineFeed, input, i)) return this.abort(i);
          this.state = State.BodyLineStart;
          this.tagMatched = 0;
          continue;
        }
        case State.Bare:
          while (code < 128 && BARE[code]) {
            if (++i === end) break;
            code = input.charCodeAt(i);
          }
          if (i === end) break;
          if (code === EQUALS) {
            this.state = State.Padding;
            i++;
            continue;
          }
          this.enterSpace(State.BareSpace, base + i, code === LINE_FEED);
          continue;
        case State.Padding:
          if (code === EQUALS) {
            i++;
            continue;
          }
          this.enterSpace(State.AfterValue, base + i, code === LINE_FEED);
          continue;
        case State.Quoted:
          while (code !== QUOTE && code !== BACKSLASH && code >= 0x20) {
            if (++i === end) break;
            code = input.charCodeAt(i);
          }
          if (i === end) break;
          if (code === QUOTE) {
            this.enterSpace(State.AfterValue, base + i + 1);
            this.lastForm = 1;
            this.quoteOffset = base + i;
            this.quoteLine = this.host.line;
            this.quoteColumn = base + i - this.host.lineStart + 1;
            i++;
            continue;
          }
          if (code === BACKSLASH) {
            this.state = State.QuotedEscape;
            i++;
            continue;
          }
          return this.fail(input, i, base, "invalid_quoted", messages.rawControlInQuoted(this.name, this.key, code));
        case State.StrayKey:
        case State.StrayKeySpace: {
          const next = this.strayKeyStep(input, i, code);
          if (next < 0) return this.outcome;
          i = next;
          continue;
        }
        case State.Broken:
        case State.BrokenQuote:
        case State.BrokenClose: {
          const next = this.brokenValue(input, i, base, code);
          if (next < 0) return this.outcome;
          i = next;
          continue;
        }
        case State.QuotedEscape:
          if (code === 0x75 /* u */) {
            this.state = State.QuotedUnicode;
            this.unicodeDigits = 0;
            i++;
            continue;
          }
          // " \ / b f n r t
          if (code === QUOTE || code === BACKSLASH || code === 0x2f || code === 0x62 || code === 0x66 || code === 0x6e || code === 0x72 || code === 0x74) {
            this.state = State.Quoted;
            i++;
            continue;
          }
          return this.fail(input, i, base, "invalid_quoted", messages.badEscape(this.name, this.key, code));
        case State.QuotedUnicode:
          if (!isHexDigit(code)) return this.fail(input, i, base, "invalid_quoted", messages.badEscape(this.name, this.key, 0x75));
          if (++this.unicodeDigits === 4) this.state = State.Quoted;
          i++;
          continue;
      }
      // Only the inner loops of multi-character states break out of the switch, at `end`.
      break;
    }
    if (this.state === State.Name || this.state === State.Key || this.state === State.Tag) {
      this.piece += input.slice(this.pieceFrom, end);
    }
    this.outcome = Outcome.Running;
    this.stop = end;
    return Outcome.Running;
  }

  /**
   * One step through the rest of a broken quoted value, which is data up to a `"` that is followed
   * (after spaces) by `]`: recovery resumes there and never inside the value. Returns the next
   * index, or -1 at an outcome.
   */
  private brokenValue(input: string, i: number, base: number, code: number): number {
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
    } else if (code === OPEN_BRACKET) this.brokenDepth++;
    else if (code === CLOSE_BRACKET && this.brokenDepth === 0 && !this.brokenQuoteSeen && this.repair?.strayAt !== undefined) {
      // `"v" junk]`: no stray quote after all, only text after the value; recovery takes it from this `]`.
      this.defer(this.junkOffset, this.junkLine, this.junkColumn, "unexpected_character", this.unexpected(messages.expectations.afterValue(this.key), this.junkCode));
      this.repair = undefined;
      return (this.failDeferred(i, base), -1);
    } else if (code === CLOSE_BRACKET && this.brokenDepth > 0) this.brokenDepth--;
    return i + 1;
  }

  /** A word after a quoted value and spaces: the next key (with `=` or `<<` after it) or the value's text. */
  private strayKeyStep(input: string, i: number, code: number): number {
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
    this.missingColonAt(this.quoteOffset + 1, this.quoteLine, this.quoteColumn + 1, messages.missingColon(this.name, this.key, this.quoteLine, this.quoteColumn));
    this.key = this.strayKey;
    this.state = State.AfterKey;
    return i;
  }

  /** Nothing is broken yet but missing colons, which the machine reads past. */
  private colonsOnly(): boolean {
    return this.pending === undefined || this.repair?.kind === "colon";
  }

  /**
   * A `:` is missing at absolute `offset` (at `line` and `column`, which the caller noted: a line
   * break may have come since): noted (the first one is the error), and parsing goes on.
   */
  private missingColonAt(offset: number, line: number, column: number, message: string, lineFeed = false): void {
    if (this.pending === undefined) {
      this.defer(offset, line, column, "unexpected_character", message, lineFeed);
      this.repair = { kind: "colon", key: this.key, valueAt: 0, colons: [] };
    }
    this.repair!.colons!.push(offset - this.startOffset);
  }

  /** Skips whitespace; returns the index of the first other character, `end`, or -1 on abort. */
  private skipSpace(input: string, index: number, base: number): number {
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
  private afterSpace(code: number, input: string, i: number, base: number): number {
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
          this.junkOffset = base + i;
          this.junkCode = code;
          this.junkLine = this.host.line;
          this.junkColumn = base + i - this.host.lineStart + 1;
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
}
