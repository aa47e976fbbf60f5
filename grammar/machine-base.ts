/**
 * The state of the command machine (command-machine.ts) and everything around its transitions:
 * starting a candidate, the scanner's fast-path questions, the end of input, and how a stop
 * (not a command, a syntax error, the end of a fence) is recorded.
 */
import type { Position, SyntaxError, SyntaxErrorCode } from "./ast.js";
import { LINE_FEED, Stops } from "./chars.js";
import * as messages from "./messages.js";
import { repairHint, type RepairNote } from "./repair.js";

/** What the surrounding scanner provides: the line count, and what a line feed means there. */
export interface MachineHost {
  line: number;
  lineStart: number;
  /** Called for every line feed the machine consumes; true when the enclosing region ends there. */
  newline(offset: number, input: string, next: number): boolean;
  /** The command's text from its `[` up to index `index` of the piece being fed (for a repair's rare look back). */
  textTo(index: number): string;
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

/** Where the machine is: before the first `=` or `<<` only a candidate, then inside the command. */
export const enum State {
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
  /** The rest of a quoted value that broke (a stray `"`, a raw control character, a bad escape), up to `"` ws* `]`. */
  Broken,
  /** In a broken value, after a `"`: `]` may end it. */
  BrokenQuote,
  /** In a broken value, after `"]`: a line end or a `[` ends it; anything else is still the value. */
  BrokenClose,
  /** After a quoted value and spaces, a word: a key (a missing `:`) if `=` or `<<` follows, else the value's text. */
  StrayKey,
  StrayKeySpace,
  /** After a key and `:` in a command (`content: "…"`, the `:` standing for `=`): blanks, then a quoted value, or the ordinary error at that `:`. */
  KeyColon,
  /** A value in single or typographic quotes (`path='a'`, `path=“a”`), read to its closing quote: an error whose hint has `"`. */
  OtherQuoted,
}

export function isHexDigit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

/** The fields of a CommandMachine and its non-transition methods. */
export abstract class MachineBase {
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

  protected state = State.NameFirst;
  protected piece = "";
  protected pieceFrom = 0;
  protected key = "";
  protected tag = "";
  protected tagMatched = 0;
  /** Absolute offset just after the heredoc tag on its header line. */
  protected tagEnd = 0;
  protected sawTagWith: string | undefined;
  protected unicodeDigits = 0;
  protected spaceRunStart = 0;
  /** Where the space run starts, as line and column (a line break may follow before it ends). */
  protected spaceRunLine = 0;
  protected spaceRunColumn = 0;
  protected spaceRunLineFeed = false;
  protected dirtyIndentAt = -1;
  protected keyOffset = 0;
  protected keyLine = 0;
  protected keyColumn = 0;
  protected valueOffset = 0;
  protected valueLine = 0;
  protected valueColumn = 0;
  /** The closing quote of the last quoted value: where a stray quote would be. */
  protected quoteOffset = 0;
  protected quoteLine = 0;
  protected quoteColumn = 0;
  /** How the last value was written: 0 bare (or none yet), 1 quoted, 2 heredoc, 3 in other quotes (machine-quotes.ts). */
  protected lastForm = 0;
  /** A failure found inside a value: reported once the broken value ends, so recovery never resumes inside it. */
  protected pending: SyntaxError | undefined;
  protected brokenEscape = false;
  protected brokenDepth = 0;
  /**
   * The broken value's brackets do not pair up: it broke at a raw line break, control character
   * or bad escape (`breakValue`), not at a stray quote, so it ends at its first `"]` — a value
   * left open at a line's end then takes no more than the text to the next command's end.
   */
  protected brokenUnpaired = false;
  /** Whether a `"` came since the stray one: with none, a `]` means junk after the value, not a stray quote. */
  protected brokenQuoteSeen = false;
  protected junkOffset = 0;
  /** Where the last whitespace inside the current bare value began (-1: none). */
  protected bareGap = -1;
  protected bareGapLine = 0;
  protected bareGapColumn = 0;
  /** Whether the bare value's gap starts with a line feed (a span over it ends on the next line). */
  protected bareGapLineFeed = false;
  protected junkCode = 0;
  protected junkLine = 0;
  protected junkColumn = 0;
  /** Inside the rest of a heredoc body that a body line equal to its tag closed early. */
  protected brokenBody = false;
  protected heredocClosedLine = 0;
  /** What the failure's hint is made from, when it can be repaired. */
  repair: RepairNote | undefined;
  /** At a Failed stop: the broken value ended cleanly there, so the scanner need not recover further. */
  recovered = false;
  protected strayKey = "";

  constructor(protected readonly host: MachineHost) {}

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
    this.lastForm = 0;
    this.pending = undefined;
    this.brokenEscape = false;
    this.brokenDepth = 0;
    this.brokenUnpaired = false;
    this.brokenBody = false;
    this.repair = undefined;
    this.recovered = false;
    this.startOffset = offset;
    this.startLine = this.host.line;
    this.startColumn = offset - this.host.lineStart + 1;
    this.state = State.NameFirst;
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
      case State.Broken:
        return this.brokenEscape ? 0 : Stops.broken;
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

  /**
   * After a failure inside a heredoc header (`k<< EOF`, `k<<END-OF-FILE`, `k<<EOF x`): the tag
   * read so far, and whether the failing character may still continue it. Recovery uses it to
   * skip the body that follows, so command-shaped lines in it are not taken as commands.
   */
  brokenHeredocHeader(): { tag: string; open: boolean } | undefined {
    if (this.outcome !== Outcome.Failed) return undefined;
    if (this.state === State.TagFirst) return { tag: "", open: true };
    if (this.state === State.HeaderEnd) return { tag: this.tag, open: this.error?.span.start.offset === this.tagEnd };
    return undefined;
  }

  /** The input ended. A candidate is prose; a confirmed command is an unterminated one. */
  finish(endOffset: number, endLine: number, endColumn: number): Outcome {
    if (!this.confirmed) {
      this.outcome = Outcome.NotCommand;
      return this.outcome;
    }
    if (this.state === State.StrayKey || this.state === State.StrayKeySpace) this.deferStray();
    if (this.pending !== undefined) {
      const open = this.state === State.Broken || this.state === State.BrokenQuote || this.state === State.OtherQuoted;
      // A value in other quotes, or one broken by a raw line break, never closed: the hint cannot say where it ends.
      if (this.state === State.OtherQuoted || (open && this.repair?.kind === "quoted" && this.repair.strayAt === undefined)) this.repair = undefined;
      // A broken value that never found its `"]` took the rest of the text: say so, since commands after it did not run.
      this.error = open
        ? {
            ...this.pending,
            message: `${this.pending.message}; no closing \`"]\` came, so the rest of the text was taken as that value — close it and send again the commands that came after it`,
          }
        : this.pending;
      this.outcome = Outcome.Failed;
      return this.outcome;
    }
    const start = { offset: this.startOffset, line: this.startLine, column: this.startColumn };
    const end = { offset: endOffset, line: endLine, column: endColumn };
    let code: SyntaxErrorCode = "unterminated_command";
    let message = messages.unterminatedCommand(this.name, this.startLine, this.startColumn);
    const heredocClosedAtEnd = (this.state === State.BodyLineStart && this.tagMatched === this.tag.length) || this.state === State.BodyTagTrail;
    if (this.state >= State.HeaderEnd && this.state <= State.BodyLine && !heredocClosedAtEnd) {
      code = "unterminated_heredoc";
      message = messages.unterminatedHeredoc(this.name, this.key, this.tag, this.valueLine, this.valueColumn, this.sawTagWith);
      this.repair = { kind: "heredoc-open", key: this.key, valueAt: this.valueOffset - this.startOffset, tag: this.tag };
      start.offset = this.valueOffset;
      start.line = this.valueLine;
      start.column = this.valueColumn;
    } else if (this.state >= State.Quoted) {
      code = "unterminated_quoted";
      message = messages.unterminatedQuoted(this.name, this.key, this.valueLine, this.valueColumn);
      start.offset = this.valueOffset;
      start.line = this.valueLine;
      start.column = this.valueColumn;
      // A value left open on its own line (the reply ended inside it): closed where the text ends.
      if (this.state === State.Quoted && endLine === this.valueLine) this.repair = { kind: "close", key: this.key, valueAt: 0, closing: '"]' };
    } else if (this.state >= State.Bare && this.state <= State.AfterValue) {
      // Every value complete, only the `]` missing.
      this.repair = { kind: "close", key: this.key, valueAt: 0, closing: "]" };
    }
    this.error = { code, message, protocol: this.name, span: { start, end } };
    this.outcome = Outcome.Failed;
    return this.outcome;
  }

  /**
   * The failure with its hint, given the command's text from its `[` up to where it stopped
   * (the scanner has it): the corrected command, where one can be told.
   */
  failureWithHint(text: string): SyntaxError {
    const error = this.error!;
    if (this.repair === undefined || error.hint !== undefined) return error;
    const { hint, message } = repairHint(text, this.repair);
    const repaired = message === undefined ? { ...error } : { ...error, message };
    if (hint !== undefined) repaired.hint = hint;
    return repaired;
  }

  /** Records a failure inside a value; the machine goes on through the broken value and reports it at its end. */
  protected defer(offset: number, line: number, column: number, code: SyntaxErrorCode, message: string, lineFeed = false): void {
    const end = lineFeed ? { offset: offset + 1, line: line + 1, column: 1 } : { offset: offset + 1, line, column: column + 1 };
    this.pending = { code, message, protocol: this.name, span: { start: { offset, line, column }, end } };
  }

  /** The quoted value just closed had a stray `"`: the rest up to `"]` is its text. */
  protected deferStray(): void {
    this.brokenQuoteSeen = false;
    const message = messages.strayQuote(this.name, this.key, this.quoteLine, this.quoteColumn);
    this.defer(this.quoteOffset, this.quoteLine, this.quoteColumn, "invalid_quoted", message);
    this.repair = { kind: "quoted", key: this.key, valueAt: this.valueOffset - this.startOffset, strayAt: this.quoteOffset - this.startOffset };
    this.state = State.Broken;
    this.brokenEscape = false;
  }

  /** Fails with the deferred error at `i` (not consumed: the scanner's recovery takes the `]` there). */
  protected failDeferred(i: number, base: number): Outcome {
    this.noteLineBlank(base + i);
    this.error = this.pending;
    this.stop = i;
    this.outcome = Outcome.Failed;
    return this.outcome;
  }

  /** Whitespace may start at absolute `offset` (with `lineFeed`: a line feed stands there). */
  protected enterSpace(state: State, offset: number, lineFeed = false): void {
    this.state = state;
    this.spaceRunStart = offset;
    this.spaceRunLineFeed = lineFeed;
    this.spaceRunLine = this.host.line;
    this.spaceRunColumn = offset - this.host.lineStart + 1;
  }

  protected unexpected(expected: string, code: number): string {
    return messages.unexpectedCharacter(this.name, expected, code, this.startLine, this.startColumn);
  }

  protected noteLineBlank(offset: number): void {
    const inSpace =
      this.state === State.KeyStart || this.state === State.AfterKey || this.state === State.ValueStart || this.state === State.BareSpace || this.state === State.AfterValue;
    const blank = inSpace && this.host.lineStart >= this.spaceRunStart && this.host.lineStart > this.startOffset;
    this.lineBlank = blank;
    this.indent = blank && this.dirtyIndentAt < this.host.lineStart ? offset - this.host.lineStart : -1;
  }

  protected notCommand(i: number, base: number): Outcome {
    this.noteLineBlank(base + i);
    this.stop = i;
    this.outcome = Outcome.NotCommand;
    return this.outcome;
  }

  protected abort(next: number): Outcome {
    this.stop = next;
    this.outcome = Outcome.Aborted;
    return this.outcome;
  }

  protected fail(input: string, i: number, base: number, code: SyntaxErrorCode, message: string): Outcome {
    const offset = base + i;
    return this.failAt(i, base, { offset, line: this.host.line, column: offset - this.host.lineStart + 1 }, input.charCodeAt(i) === LINE_FEED, code, message);
  }

  /** Fails with an error at `start` (one character, a line feed when `lineFeed`); the machine stopped at index `i`. */
  protected failAt(i: number, base: number, start: Position, lineFeed: boolean, code: SyntaxErrorCode, message: string): Outcome {
    this.noteLineBlank(base + i);
    // Missing `:`s or other quotes noted before are no repair of a command that breaks for another reason.
    if (this.repair?.kind === "colon" || this.repair?.kind === "requote") this.repair = undefined;
    const end = lineFeed ? { offset: start.offset + 1, line: start.line + 1, column: 1 } : { offset: start.offset + 1, line: start.line, column: start.column + 1 };
    this.error = { code, message, protocol: this.name, span: { start, end } };
    this.stop = i;
    this.outcome = Outcome.Failed;
    return this.outcome;
  }
}
