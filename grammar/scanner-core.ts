/**
 * The scanner's state and its cold paths: captures, positions, emitting findings, settling
 * the command machine, inline code spans held to the end of their line, fences and their
 * closing lines. The hot scanning loop and the small-chunk fast path are in scanner.ts.
 */
import type { Command, Mention, Position, SyntaxError } from "./ast.js";
import { BACKSLASH, BACKTICK, CARRIAGE_RETURN, CLOSE_BRACKET, LINE_FEED, OPEN_BRACKET, SPACE, KEY_FIRST, LESS_THAN, TAB, TAG_REST, TILDE } from "./chars.js";
import { CommandMachine, Outcome, type MachineHost } from "./command-machine.js";
import { parseCommandText } from "./parser.js";
import { LoneReturns } from "./line-endings.js";
import { MentionFinder, endPosition, firstLine } from "./mentions.js";
import { RegionRecorder } from "./region-log.js";
import type { InertRegionKind, InertRegionLog } from "./regions.js";

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

/** The backtick runs of a held stretch, to find where a run opened there closes (CommonMark's rule). */
export class BacktickRuns {
  /** Per run length, the absolute offsets of the runs of exactly that length, in order. */
  private readonly byLength = new Map<number, number[]>();

  constructor(held: string, base: number) {
    for (let i = held.indexOf("`"); i >= 0; i = held.indexOf("`", i)) {
      let j = i;
      while (j < held.length && held.charCodeAt(j) === BACKTICK) j++;
      let starts = this.byLength.get(j - i);
      if (starts === undefined) this.byLength.set(j - i, (starts = []));
      starts.push(base + i);
      i = j;
    }
  }

  /** The offset of the first run of exactly `length` backticks after `start`, or -1. */
  closerOf(start: number, length: number): number {
    const starts = this.byLength.get(length);
    if (starts === undefined) return -1;
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (starts[middle]! <= start) low = middle + 1;
      else high = middle;
    }
    return low < starts.length ? starts[low]! : -1;
  }
}

/**
 * Feed text with `push(chunk)`, then call `end()`. Each call returns the findings completed
 * by that piece of text. Concatenated, they equal `parse(wholeText)` in any chunking.
 */
/** The fields and cold paths of StreamingScanner (see scanner.ts). */
export abstract class ScannerCore implements MachineHost {
  line = 1;
  lineStart = 0;

  protected events: ParseEvent[] = NO_EVENTS;
  protected readonly stack: Pending[] = [];
  protected total = 0;
  protected ended = false;
  protected input = "";
  protected base = 0;
  protected region = Region.Text;
  protected state = State.LineStart;
  protected recovering = false;
  protected indentSpaces = 0;
  protected indentTab = false;
  protected captureText = "";
  protected captureFrom = -1;
  protected capturing = false;
  /** The `Stops` bit of characters that need the full scanner in the current state; 0: all do. */
  protected fastMask = 0;
  protected fastFollowUp = FollowUp.None;
  protected backslashEnd = -1;
  protected backslashOdd = false;
  protected runCharacter = 0;
  protected runLength = 0;
  protected runStart = 0;
  protected codeLength = 0;
  protected codeStart = 0;
  protected maybeFence = false;
  protected holdRunLength = 0;
  protected holdRunStart = 0;
  protected codeMap: BacktickRuns | undefined;
  protected codeMapEnd = -1;
  protected fenceCharacter = 0;
  protected fenceLength = 0;
  /** Absolute offset of a fence opener's info string (just after its run). */
  protected fenceInfoStart = 0;
  protected closer = Closer.Off;
  protected closerIndent = 0;
  protected closerRun = 0;
  protected mentionPending = false;
  /** The tag of a broken command's heredoc that recovery skips (see `recoverHeredoc`). */
  protected recoverTag = "";
  /** Whether that header is known to be one (broken inside it), so any tag and trailing text go. */
  protected recoverLoose = false;
  protected recoverMatched = 0;
  protected readonly machine = new CommandMachine(this);
  protected readonly mentions = new MentionFinder();
  protected log: RegionRecorder | undefined;
  protected readonly returns = new LoneReturns();

  /**
   * The inert regions of the text read so far (regions.ts), for layers that look for other ways
   * of writing a call. Recording starts on first access: read it before the first `push`.
   */
  get regions(): InertRegionLog {
    this.log ??= new RegionRecorder(this, this.total);
    return this.log;
  }

  /** Every offset below this one is decided: nothing before it can still change kind. */
  settledOffset(): number {
    if (this.ended) return this.total;
    switch (this.state) {
      case State.Machine:
        return this.region === Region.Fence ? this.total : this.machine.startOffset;
      case State.Ticks:
        return this.runStart;
      case State.CodeHold:
      case State.CodeHoldRun:
        return this.codeStart;
      case State.LineStart:
      case State.FenceRun:
      case State.RecoverFenceCandidate:
      case State.Prefix:
        return this.lineStart;
      case State.HoldPrefix:
      case State.TagHold:
        return this.heldFrom();
      case State.InertLine:
        return this.inertSettled();
      default:
        return this.total;
    }
  }

  /** Where the code span or tag held open starts. */
  protected abstract heldFrom(): number;

  /** How far an inert line is settled (a reasoning line may still close mid-line). */
  protected abstract inertSettled(): number;

  protected markRegion(offset: number, kind: InertRegionKind | undefined): void {
    if (this.log !== undefined) this.log.mark(offset, kind);
  }

  protected emit(event: ParseEvent): void {
    if (this.events === NO_EVENTS) this.events = [];
    if (event.type === "mention") {
      const text = this.returns.restore(event.mention.text, event.mention.span.start.offset);
      if (text !== event.mention.text) event = { type: "mention", mention: { ...event.mention, text } };
    }
    this.events.push(event);
  }

  /** MachineHost: a line feed at `offset` was consumed; true when it closes the current fence. */
  newline(offset: number, input: string, next: number): boolean {
    this.line++;
    this.lineStart = offset + 1;
    if (this.region !== Region.Fence) return false;
    if (this.closer === Closer.Matched) return true;
    this.closer = Closer.Indent;
    this.closerIndent = 0;
    this.closerRun = 0;
    this.peekCloser(input, next);
    return false;
  }

  protected drain(): void {
    while (this.stack.length > 0) {
      const { input, index, base } = this.stack.pop()!;
      this.scan(input, index, base);
    }
  }

  protected startCapture(index: number): void {
    this.capturing = true;
    this.captureText = "";
    this.captureFrom = index;
  }

  protected captured(index: number): string {
    return this.captureText + this.input.slice(this.captureFrom, index);
  }

  protected stopCapture(): void {
    this.capturing = false;
    this.captureText = "";
  }

  protected enterLineStart(): void {
    this.state = State.LineStart;
    this.indentSpaces = 0;
    this.indentTab = false;
  }

  /** A backslash right before a `[` makes it text, however many backslashes stand there (contract §1). */
  protected noteBackslash(offset: number): void {
    this.backslashOdd = this.backslashEnd === offset ? !this.backslashOdd : true;
    this.backslashEnd = offset + 1;
  }

  /** Whether the character at `offset` is escaped by an odd run of backslashes (CommonMark). */
  protected escaped(offset: number): boolean {
    return this.backslashOdd && this.backslashEnd === offset;
  }

  protected position(offset: number): Position {
    return { offset, line: this.line, column: offset - this.lineStart + 1 };
  }

  protected startMachine(index: number, base: number): void {
    this.machine.begin(base + index);
    this.startCapture(index);
    this.state = State.Machine;
  }

  /** Returns true when the start of the current line was scheduled to be scanned again. */
  protected settleMachine(outcome: Outcome, index: number): boolean {
    const machine = this.machine;
    const inFence = this.region === Region.Fence;
    if (outcome === Outcome.Complete) {
      const text = this.captured(index);
      this.stopCapture();
      const start = { offset: machine.startOffset, line: machine.startLine, column: machine.startColumn };
      if (inFence) {
        this.emitMention(text, start, "fence");
        this.state = State.FenceContent;
        return false;
      }
      this.recovering = false;
      this.state = State.Text;
      this.markRegion(start.offset, "command");
      this.markRegion(start.offset + text.length, undefined);
      this.emitCommand(text, start);
      return false;
    }
    if (outcome === Outcome.Aborted) {
      if (machine.confirmed) this.emitMention(firstLine(this.captured(index)), this.machineStart(), "fence");
      this.stopCapture();
      this.closeFence();
      return false;
    }
    if (outcome === Outcome.Failed && inFence) {
      if (machine.startLine === this.line) this.mentionPending = true;
      else {
        this.emitMention(firstLine(this.captured(index)), this.machineStart(), "fence");
        this.stopCapture();
      }
      this.state = State.FenceSkipLine;
      return false;
    }
    const failedText = outcome === Outcome.Failed && !inFence ? this.captured(index) : "";
    const lineBeginning = machine.lineBlank && outcome !== Outcome.Failed ? this.captured(index).slice(this.lineStart - machine.startOffset) : undefined;
    this.stopCapture();
    if (inFence) {
      this.state = State.FenceContent;
      return false;
    }
    if (outcome === Outcome.Failed) {
      this.markRegion(machine.startOffset, "command");
      this.emit({ type: "error", error: machine.failureWithHint(failedText) });
      this.recovering = !machine.recovered;
      const header = machine.brokenHeredocHeader();
      if (header) {
        this.recoverTag = header.tag;
        this.recoverLoose = true;
        this.state = header.open ? State.RecoverTag : State.RecoverHeader;
        return false;
      }
    }
    if (lineBeginning !== undefined) {
      // The candidate ran into a line of its own: that line's beginning is read again, by the block structure.
      this.enterLineStart();
      this.stack.push({ input: this.input, index, base: this.base }, { input: lineBeginning, index: 0, base: this.lineStart });
      return true;
    }
    if (machine.lineBlank) {
      this.enterLineStart();
      if (machine.indent < 0) this.indentTab = true;
      else this.indentSpaces = machine.indent;
    } else this.state = this.recovering ? State.Recover : State.Text;
    return false;
  }

  protected machineStart(): Position {
    return { offset: this.machine.startOffset, line: this.machine.startLine, column: this.machine.startColumn };
  }

  protected emitCommand(read: string, start: Position): void {
    const text = this.returns.restore(read, start.offset);
    let result;
    try {
      result = parseCommandText(text, start);
    } catch (caught) {
      const message = `internal: the command at ${start.line}:${start.column} could not be read (${String(caught)}); please report this`;
      result = { ok: false as const, error: { code: "unexpected_character" as const, message, span: { start, end: endPosition(start, text) } } };
    }
    if (result.ok) this.emit({ type: "command", command: result.command });
    else this.emit({ type: "error", error: result.error });
  }

  protected emitMention(text: string, start: Position, context: Mention["context"]): void {
    this.emit({ type: "mention", mention: { text, context, span: { start, end: endPosition(start, text) } } });
  }

  protected emitPendingMention(lineFeed: number): void {
    let text = this.captured(lineFeed);
    if (text.charCodeAt(text.length - 1) === CARRIAGE_RETURN) text = text.slice(0, -1);
    this.stopCapture();
    this.mentionPending = false;
    this.emitMention(text, this.machineStart(), "fence");
  }

  protected endFenceRun(): void {
    const length = this.runLength;
    if (this.runCharacter === TILDE) {
      if (length >= 3) this.openFence(TILDE, length, this.runStart + length);
      else {
        this.stopCapture();
        this.state = this.recovering ? State.Recover : State.Text;
      }
      return;
    }
    if (this.recovering) {
      if (length >= 3) this.state = State.RecoverFenceCandidate;
      else {
        this.stopCapture();
        this.state = State.Recover;
      }
      return;
    }
    this.holdCode(length, length >= 3);
  }

  protected holdCode(length: number, maybeFence: boolean): void {
    this.state = State.CodeHold;
    this.codeLength = length;
    this.codeStart = this.runStart;
    this.maybeFence = maybeFence;
  }

  /** A backtick run in prose ended at `index`: a code span opener, or (on a replayed line) decided already. */
  protected endTicks(input: string, index: number, base: number): number {
    if (this.codeMap === undefined || this.runStart >= this.codeMapEnd) {
      this.holdCode(this.runLength, false);
      return index;
    }
    this.stopCapture();
    this.state = State.Text;
    const closer = this.codeMap.closerOf(this.runStart, this.runLength);
    if (closer < 0) return index;
    const closerIndex = closer - base;
    this.markRegion(this.runStart, "inline-code");
    this.markRegion(closer + this.runLength, undefined);
    const content = input.slice(index, closerIndex);
    this.findSpanMentions(content, base + index);
    // A span that ran over lines: the line count moves on past them.
    for (let lineFeed = content.indexOf("\n"); lineFeed >= 0; lineFeed = content.indexOf("\n", lineFeed + 1)) {
      this.line++;
      this.lineStart = base + index + lineFeed + 1;
    }
    return closerIndex + this.runLength;
  }

  protected closeHeldCode(index: number): void {
    const held = this.captured(index);
    this.stopCapture();
    this.markRegion(this.codeStart, "inline-code");
    this.markRegion(this.holdRunStart + this.holdRunLength, undefined);
    this.findSpanMentions(held.slice(this.codeLength, this.holdRunStart - this.codeStart), this.codeStart + this.codeLength);
    this.state = State.Text;
  }

  /**
   * The line (or text) ended with no closing run. A fence opener candidate becomes a fence;
   * otherwise the opener is literal and the held stretch is scanned again as prose, once, with
   * every backtick run on it already decided. Returns true when a replay was scheduled.
   */
  protected resolveHeldCode(input: string, index: number, base: number): boolean {
    if (this.maybeFence) {
      this.openFence(BACKTICK, this.codeLength, this.codeStart + this.codeLength);
      return false;
    }
    const held = this.captured(index);
    this.stopCapture();
    this.codeMap = new BacktickRuns(held, this.codeStart);
    this.codeMapEnd = this.codeStart + held.length;
    this.state = State.Text;
    this.stack.push({ input, index, base }, { input: held, index: 0, base: this.codeStart });
    return true;
  }

  protected findSpanMentions(content: string, offset: number, context: Mention["context"] = "inline-code"): void {
    if (content.indexOf("[") < 0) return;
    for (const found of this.mentions.find(content, offset, this.line, this.lineStart, context)) this.emit({ type: "mention", mention: found });
  }

  /** Opens a fence; the opener line is captured from its run up to `infoStart` and goes on to the line's end. */
  protected openFence(character: number, length: number, infoStart: number): void {
    this.recovering = false;
    this.markRegion(infoStart - length, "fence");
    this.fenceCharacter = character;
    this.fenceLength = length;
    this.fenceInfoStart = infoStart;
    this.state = State.FenceInfo;
  }

  /** The opener line ended at `index` (absolute `offset`): command-shaped text in its info string is a fence mention. */
  protected endFenceInfo(index: number, offset: number): void {
    const line = this.captured(index);
    this.stopCapture();
    let info = line.slice(line.length - (offset - this.fenceInfoStart));
    if (info.charCodeAt(info.length - 1) === CARRIAGE_RETURN) info = info.slice(0, -1);
    this.findSpanMentions(info, this.fenceInfoStart, "fence");
  }

  protected closeFence(): void {
    this.markRegion(this.lineStart, undefined);
    this.region = Region.Text;
    this.closer = Closer.Off;
    this.recovering = false;
    this.enterLineStart();
  }

  /** Decides, ahead of the content scan, whether the current fence line closes the fence. */
  protected peekCloser(input: string, index: number): void {
    const end = input.length;
    for (let i = index; i < end; i++) {
      const code = input.charCodeAt(i);
      if (this.closer === Closer.Indent) {
        if (code === SPACE && this.closerIndent < 3) this.closerIndent++;
        else if (code === this.fenceCharacter) {
          this.closer = Closer.Run;
          this.closerRun = 1;
        } else this.closer = Closer.Off;
      } else if (this.closer === Closer.Run && code === this.fenceCharacter) this.closerRun++;
      else if (this.closer === Closer.Run && this.closerRun < this.fenceLength) this.closer = Closer.Off;
      else if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) this.closer = Closer.Trail;
      else this.closer = code === LINE_FEED ? Closer.Matched : Closer.Off;
      if (this.closer === Closer.Off || this.closer === Closer.Matched) return;
    }
  }

  /**
   * One character of a heredoc header in a broken command's tail (`<<TAG` ending its line),
   * in state RecoverLess, RecoverTag or RecoverHeader. Returns the next index: the character
   * is consumed, or left for the Recover state when this is not a header after all.
   */
  protected recoverHeredoc(input: string, i: number, base: number): number {
    const code = input.charCodeAt(i);
    if (this.state === State.RecoverLess) {
      if (code !== LESS_THAN) {
        this.state = State.Recover;
        return i;
      }
      this.recoverTag = "";
      this.recoverLoose = false;
      this.state = State.RecoverTag;
      return i + 1;
    }
    const tag = this.recoverTag;
    if (code === LINE_FEED) {
      if (tag === "") {
        this.state = State.Recover;
        return i;
      }
      this.newline(base + i, input, i + 1);
      this.recoverMatched = 0;
      this.state = State.RecoverBodyStart;
      return i + 1;
    }
    if (code === CLOSE_BRACKET) {
      this.state = State.Recover;
      return i;
    }
    const space = code === SPACE || code === TAB || code === CARRIAGE_RETURN;
    if (this.state === State.RecoverTag) {
      if (space) {
        if (tag !== "") this.state = State.RecoverHeader;
        else if (code === CARRIAGE_RETURN || !this.recoverLoose) this.state = State.Recover;
        return tag !== "" || this.state === State.Recover ? i : i + 1;
      }
      if (this.recoverLoose) {
        if (code === 0x22 || code === 0x27) return i + 1;
        let j = i + 1;
        for (let next = input.charCodeAt(j); j < input.length; next = input.charCodeAt(++j)) {
          if (next <= SPACE || next === CLOSE_BRACKET || next === 0x22 || next === 0x27) break;
        }
        this.recoverTag += input.slice(i, j);
        return j;
      }
      if (code < 128 && (tag === "" ? KEY_FIRST[code] : TAG_REST[code])) {
        let j = i + 1;
        for (let next = input.charCodeAt(j); j < input.length && next < 128 && TAG_REST[next]; next = input.charCodeAt(++j));
        this.recoverTag += input.slice(i, j);
        return j;
      }
      this.state = State.Recover;
      return i;
    }
    if (space || this.recoverLoose) return i + 1;
    this.state = State.Recover;
    return i;
  }

  /** One step in a broken command's heredoc body: only a line that is exactly the tag ends it. */
  protected recoverBody(input: string, i: number, base: number): number {
    if (this.state === State.RecoverBodyLine) {
      const lineFeed = input.indexOf("\n", i);
      if (lineFeed < 0) return input.length;
      this.newline(base + lineFeed, input, lineFeed + 1);
      this.recoverMatched = 0;
      this.state = State.RecoverBodyStart;
      return lineFeed + 1;
    }
    const code = input.charCodeAt(i);
    const tag = this.recoverTag;
    if (this.recoverMatched < tag.length) {
      if (code === tag.charCodeAt(this.recoverMatched)) {
        this.recoverMatched++;
        return i + 1;
      }
    } else if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) return i + 1;
    else if (code === LINE_FEED) {
      // The closing line: the broken command goes on (`:` or `]`); recovery goes on too.
      this.newline(base + i, input, i + 1);
      this.enterLineStart();
      return i + 1;
    }
    this.state = State.RecoverBodyLine;
    return i;
  }

  /** Scans `input` from `index`; `base` is the absolute offset of input[0]. */
  protected abstract scan(input: string, index: number, base: number): void;
}
