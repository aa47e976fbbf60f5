/**
 * The scanner's state and its cold paths: captures, positions, emitting findings, settling
 * the command machine, inline code spans held to the end of their line. Fences are in
 * scanner-fences.ts, a broken command's recovery in scanner-recovery.ts, the Markdown line paths
 * in scanner-lines.ts, the hot scanning loop and the small-chunk fast path in scanner.ts.
 */
import type { Mention, Position } from "./ast.js";
import { BACKTICK } from "./chars.js";
import { BacktickRuns } from "./backtick-runs.js";
import { CommandMachine, Outcome, type MachineHost } from "./command-machine.js";
import type { LineFeedLog } from "./line-feed-log.js";
import { LoneReturns } from "./line-endings.js";
import { MentionFinder, endPosition, firstLine } from "./mentions.js";
import { parseCommandText } from "./parser.js";
import { RegionRecorder } from "./region-log.js";
import type { InertRegionKind, InertRegionLog } from "./regions.js";
import { Closer, FollowUp, NO_EVENTS, Region, State, type ParseEvent, type Pending } from "./scanner-states.js";

export { BacktickRuns } from "./backtick-runs.js";
export {
  Closer,
  FENCE_SPECIAL,
  FollowUp,
  HOLD_SPECIAL,
  NO_EVENTS,
  RECOVER_SPECIAL,
  Region,
  skipTo,
  State,
  TEXT_SPECIAL,
  type ParseEvent,
  type Pending,
} from "./scanner-states.js";

/**
 * The fields and cold paths of StreamingScanner (see scanner.ts): feed text with `push(chunk)`,
 * then call `end()`. Each call returns the findings completed by that piece of text.
 * Concatenated, they equal `parse(wholeText)` in any chunking.
 */
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
  /**
   * `Stops` bits a layer beside the scanner adds to the fast path's mask (dialects/call-scanner.ts):
   * the characters it must read itself. 0 for the scanner alone.
   */
  protected layerStops = 0;
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
  protected closer = Closer.Off;
  protected mentionPending = false;
  protected readonly machine = new CommandMachine(this);
  protected readonly mentions = new MentionFinder();
  protected log: RegionRecorder | undefined;
  /** The line feeds passed, for a layer that reads each chunk after the scanner (dialects); undefined: none kept. */
  protected lineFeeds: LineFeedLog | undefined;
  /** The last chunk the full scanner read was read as it came (no lone `\r` made a line feed). */
  protected readAsIs = false;
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
      // After a tag that began its line: a line feed before anything but blanks makes the whole line an HTML block.
      case State.AfterLineTag:
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

  /**
   * Where a finding the scanner is still reading starts, when it lies in settled text: a command
   * being read in a fence (a mention to come), or a fence line's failed command whose mention waits
   * for the line's end. -1 when there is none.
   */
  protected findingOpenFrom(): number {
    if (this.ended || this.region !== Region.Fence) return -1;
    return this.state === State.Machine || this.mentionPending ? this.machine.startOffset : -1;
  }

  /** Where the code span or tag held open starts. */
  protected abstract heldFrom(): number;

  /** How far an inert line is settled (a reasoning line may still close mid-line). */
  protected abstract inertSettled(): number;

  /** MachineHost: a line feed at `offset` was consumed; true when it closes the current fence (scanner-fences.ts). */
  abstract newline(offset: number, input: string, next: number): boolean;

  /** A fence (opened by a run `length` long) begins; its info string starts at absolute `infoStart`. */
  protected abstract openFence(character: number, length: number, infoStart: number): void;

  /** The current fence ends. */
  protected abstract closeFence(): void;

  /** A broken command left a heredoc header behind (`open`: still reading its tag): recovery skips its body. */
  protected abstract recoverHeredocBody(tag: string, open: boolean): void;

  /** A line feed at absolute `offset` was passed: the next line starts after it. */
  protected countLine(offset: number): void {
    this.line++;
    this.lineStart = offset + 1;
    if (this.lineFeeds !== undefined) this.lineFeeds.record(offset);
  }

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

  /** MachineHost: the command's text so far (the scanner captures it from the `[`). */
  textTo(index: number): string {
    return this.captured(index);
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
        this.recoverHeredocBody(header.tag, header.open);
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
    for (let lineFeed = content.indexOf("\n"); lineFeed >= 0; lineFeed = content.indexOf("\n", lineFeed + 1)) this.countLine(base + index + lineFeed);
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

  /** Scans `input` from `index`; `base` is the absolute offset of input[0]. */
  protected abstract scan(input: string, index: number, base: number): void;
}
