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
 * Its whitespace states are in machine-spaces.ts, its repairs in machine-repairs.ts, values in
 * single or typographic quotes in machine-quotes.ts, its state
 * and error reporting in machine-base.ts.
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
  NAME_REST,
  QUOTE,
  SPACE,
  STOPS,
  Stops,
  TAB,
  TAG_REST,
} from "./chars.js";
import { isHexDigit, Outcome, State } from "./machine-base.js";
import { MachineSpaces } from "./machine-spaces.js";
import * as messages from "./messages.js";

export { Outcome, type MachineHost } from "./machine-base.js";

export class CommandMachine extends MachineSpaces {
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
          if (code === LINE_FEED || code === CARRIAGE_RETURN) {
            if (this.leftOpenBeforeBracket(i)) return this.fail(input, i, base, "invalid_quoted", messages.quoteLeftOpen(this.name, this.key, this.valueLine, this.valueColumn));
            this.breakValue(base + i, messages.rawLineBreakInQuoted(this.name, this.key), code === LINE_FEED);
            continue;
          }
          this.breakValue(base + i, messages.rawControlInQuoted(this.name, this.key, code));
          continue;
        case State.KeyColon: {
          const next = this.afterKeyColon(i, base, code);
          if (next < 0) return this.outcome;
          i = next;
          continue;
        }
        case State.OtherQuoted: {
          const next = this.otherQuoted(input, i, base, code);
          if (next < 0) return this.outcome;
          i = next;
          continue;
        }
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
          // The body of a broken value: only quotes, escapes, brackets and line breaks change anything.
          if (this.state === State.Broken && !this.brokenEscape) {
            while (code >= 128 || (STOPS[code]! & Stops.broken) === 0) {
              if (++i === end) break;
              code = input.charCodeAt(i);
            }
            if (i === end) break;
          }
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
          this.breakValue(base + i, messages.badEscape(this.name, this.key, code), code === LINE_FEED);
          continue;
        case State.QuotedUnicode:
          if (!isHexDigit(code)) {
            this.breakValue(base + i, messages.badEscape(this.name, this.key, 0x75), code === LINE_FEED);
            continue;
          }
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
}
