/**
 * A resumable recognizer for one command, from just after its `[` to its `]` (contract §1–§2).
 *
 * It is fed the text in pieces (`feed`) and keeps every decision in its own state, so no
 * character is ever looked at twice and chunk boundaries may fall anywhere. Before the first
 * `=` or `<<` the text is only a candidate: failing there means "this `[` is prose". After it,
 * the first character that cannot continue the command is a syntax error.
 *
 * The machine only decides where a command ends and where it breaks; the Chevrotain
 * lexer/parser (syntax.ts) turns a complete command's text into the syntax tree.
 */
import type { SyntaxError, SyntaxErrorCode } from "./ast.js";
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
  Stops,
  TAB,
  TAG_REST,
} from "./chars.js";
import * as messages from "./messages.js";

/** What the surrounding scanner provides: the line count, and what a line feed means there. */
export interface MachineHost {
  line: number;
  lineStart: number;
  /** Called for every line feed the machine consumes; true when the enclosing region ends there. */
  newline(offset: number, input: string, next: number): boolean;
}

export const enum Outcome {
  /** The whole piece was consumed; feed more. */
  Running,
  /** The `]` was consumed; `stop` is just after it. */
  Complete,
  /** Not a command after all; `stop` is the character that did not fit (not consumed). */
  NotCommand,
  /** A syntax error at `stop` (not consumed); see `error`. */
  Failed,
  /** The enclosing region (a fence) ended at a line feed; `stop` is just after it. */
  Aborted,
}

const enum State {
  NameFirst,
  Name,
  KeyStart,
  Key,
  AfterKey,
  SecondLessThan,
  TagFirst,
  Tag,
  HeaderEnd,
  BodyLineStart,
  BodyTagTrail,
  BodyLine,
  ValueStart,
  Bare,
  BareSpace,
  Padding,
  AfterValue,
  Quoted,
  QuotedEscape,
  QuotedUnicode,
}

function isHexDigit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

export class CommandMachine {
  outcome: Outcome = Outcome.Running;
  /** Index in the last fed piece where the machine stopped (see Outcome). */
  stop = 0;
  /** Set when `outcome` is Failed (or after `finish` in a confirmed command). */
  error: SyntaxError | undefined;
  /** Whether the first `=` or `<<` was seen: from then on this is a command, not prose. */
  confirmed = false;
  /** At a NotCommand/Failed stop: only whitespace precedes it on its line, since a line feed this machine consumed. */
  lineBlank = false;
  /** With `lineBlank`: the number of spaces before the stop, or -1 when tabs or carriage returns are among them. */
  indent = -1;
  name = "";
  startOffset = 0;
  startLine = 1;
  startColumn = 1;

  private state = State.NameFirst;
  private piece = "";
  private pieceFrom = 0;
  private key = "";
  private tag = "";
  private tagMatched = 0;
  private sawTagWith: string | undefined;
  private unicodeDigits = 0;
  private spaceRunStart = 0;
  private dirtyIndentAt = -1;
  private keyOffset = 0;
  private keyLine = 0;
  private keyColumn = 0;
  private valueOffset = 0;
  private valueLine = 0;
  private valueColumn = 0;

  constructor(private readonly host: MachineHost) {}

  /** Starts a candidate at the `[` found at absolute `offset` (the `[` itself is consumed). */
  begin(offset: number): void {
    this.outcome = Outcome.Running;
    this.error = undefined;
    this.confirmed = false;
    this.lineBlank = false;
    this.indent = -1;
    this.name = "";
    this.key = "";
    this.tag = "";
    this.sawTagWith = undefined;
    this.dirtyIndentAt = -1;
    this.startOffset = offset;
    this.startLine = this.host.line;
    this.startColumn = offset - this.host.lineStart + 1;
    this.state = State.NameFirst;
  }

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
          this.enterSpace(State.BareSpace, base + i);
          continue;
        case State.Padding:
          if (code === EQUALS) i++;
          this.enterSpace(State.AfterValue, base + i);
          continue;
        case State.Quoted:
          while (code !== QUOTE && code !== BACKSLASH && code >= 0x20) {
            if (++i === end) break;
            code = input.charCodeAt(i);
          }
          if (i === end) break;
          if (code === QUOTE) {
            this.enterSpace(State.AfterValue, base + i + 1);
            i++;
            continue;
          }
          if (code === BACKSLASH) {
            this.state = State.QuotedEscape;
            i++;
            continue;
          }
          return this.fail(input, i, base, "invalid_quoted", messages.rawControlInQuoted(this.name, this.key, code));
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
   * For the scanner's fast path: the `Stops` bit of the characters that would move the
   * machine on from where it is (inside a value, name, key or whitespace), or 0 when any might.
   */
  passThroughMask(): number {
    switch (this.state) {
      case State.NameFirst:
        return Stops.nameFirst;
      case State.BodyLine:
        return Stops.lineFeed;
      case State.Bare:
        return Stops.bare;
      case State.Quoted:
        return Stops.quoted;
      case State.Name:
      case State.Tag:
        return Stops.name;
      case State.Key:
        return Stops.key;
      case State.KeyStart:
      case State.AfterKey:
      case State.ValueStart:
      case State.BareSpace:
      case State.AfterValue:
        return Stops.space;
      default:
        return 0;
    }
  }

  /** Whether characters passed through must be handed to `passedThrough` (a name, key or tag). */
  keepsPieces(): boolean {
    return this.state === State.NameFirst || this.state === State.Name || this.state === State.Key || this.state === State.Tag;
  }

  /** For the scanner's fast path: `chunk` passed through; keeps it if it is part of a name, key or tag. True when the state changed. */
  passedThrough(chunk: string): boolean {
    if (this.state === State.Name || this.state === State.Key || this.state === State.Tag) this.piece += chunk;
    else if (this.state === State.NameFirst) {
      this.state = State.Name;
      this.piece = chunk;
      return true;
    }
    return false;
  }

  /** The input ended. A candidate is prose; a confirmed command is an unterminated one. */
  finish(endOffset: number, endLine: number, endColumn: number): Outcome {
    if (!this.confirmed) {
      this.outcome = Outcome.NotCommand;
      return this.outcome;
    }
    const start = { offset: this.startOffset, line: this.startLine, column: this.startColumn };
    const end = { offset: endOffset, line: endLine, column: endColumn };
    let code: SyntaxErrorCode = "unterminated_command";
    let message = messages.unterminatedCommand(this.name, this.startLine, this.startColumn);
    const heredocClosedAtEnd =
      (this.state === State.BodyLineStart && this.tagMatched === this.tag.length) || this.state === State.BodyTagTrail;
    if (this.state >= State.HeaderEnd && this.state <= State.BodyLine && !heredocClosedAtEnd) {
      code = "unterminated_heredoc";
      message = messages.unterminatedHeredoc(this.name, this.key, this.tag, this.valueLine, this.valueColumn, this.sawTagWith);
      start.offset = this.valueOffset;
      start.line = this.valueLine;
      start.column = this.valueColumn;
    } else if (this.state >= State.Quoted) {
      code = "unterminated_quoted";
      message = messages.unterminatedQuoted(this.name, this.key, this.valueLine, this.valueColumn);
      start.offset = this.valueOffset;
      start.line = this.valueLine;
      start.column = this.valueColumn;
    }
    this.error = { code, message, protocol: this.name, span: { start, end } };
    this.outcome = Outcome.Failed;
    return this.outcome;
  }

  private enterSpace(state: State, offset: number): void {
    this.state = state;
    this.spaceRunStart = offset;
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
        if (!this.confirmed) return this.notCommand(i, base), -1;
        return this.fail(input, i, base, "unexpected_character", this.unexpected(messages.expectations.keyAfterColon(), code)), -1;
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
        if (!this.confirmed) return this.notCommand(i, base), -1;
        return this.fail(input, i, base, "unexpected_character", this.unexpected(messages.expectations.assignAfterKey(this.key), code)), -1;
      case State.ValueStart:
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
          return this.fail(input, i, base, "missing_value", messages.missingValue(this.name, this.key, code)), -1;
        }
        return this.fail(input, i, base, "unexpected_character", this.unexpected(messages.expectations.value(this.key), code)), -1;
      default:
        if (this.state === State.BareSpace && code < 128 && BARE[code]) {
          this.state = State.Bare;
          return i + 1;
        }
        if (code === COLON) {
          this.enterSpace(State.KeyStart, base + i + 1);
          return i + 1;
        }
        if (code === CLOSE_BRACKET) {
          this.outcome = Outcome.Complete;
          this.stop = i + 1;
          return -1;
        }
        return this.fail(
          input,
          i,
          base,
          "unexpected_character",
          this.unexpected((this.state === State.BareSpace ? messages.expectations.afterBare : messages.expectations.afterValue)(this.key), code),
        ), -1;
    }
  }

  private unexpected(expected: string, code: number): string {
    return messages.unexpectedCharacter(this.name, expected, code, this.startLine, this.startColumn);
  }

  private noteLineBlank(offset: number): void {
    const inSpace =
      this.state === State.KeyStart ||
      this.state === State.AfterKey ||
      this.state === State.ValueStart ||
      this.state === State.BareSpace ||
      this.state === State.AfterValue;
    const blank = inSpace && this.host.lineStart >= this.spaceRunStart && this.host.lineStart > this.startOffset;
    this.lineBlank = blank;
    this.indent = blank && this.dirtyIndentAt < this.host.lineStart ? offset - this.host.lineStart : -1;
  }

  private notCommand(i: number, base: number): Outcome {
    this.noteLineBlank(base + i);
    this.stop = i;
    this.outcome = Outcome.NotCommand;
    return this.outcome;
  }

  private abort(next: number): Outcome {
    this.stop = next;
    this.outcome = Outcome.Aborted;
    return this.outcome;
  }

  private fail(input: string, i: number, base: number, code: SyntaxErrorCode, message: string): Outcome {
    const offset = base + i;
    this.noteLineBlank(offset);
    const line = this.host.line;
    const column = offset - this.host.lineStart + 1;
    this.error = {
      code,
      message,
      protocol: this.name,
      span: {
        start: { offset, line, column },
        end: input.charCodeAt(i) === LINE_FEED ? { offset: offset + 1, line: line + 1, column: 1 } : { offset: offset + 1, line, column: column + 1 },
      },
    };
    this.stop = i;
    this.outcome = Outcome.Failed;
    return this.outcome;
  }
}
