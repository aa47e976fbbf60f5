/**
 * The streaming scanner: finds commands, mentions and syntax errors in text that arrives in
 * chunks of any size, with exactly the result one call on the whole text would give.
 *
 * It is a resumable state machine over characters. Prose is skipped by a table lookup per
 * character; a `[` hands over to the CommandMachine; fences are tracked line by line; inline code
 * holds back the rest of its line until its closing run (or the line's end) decides it. Nothing
 * already scanned is scanned again except that held stretch, once, and the few characters of a
 * fence-line candidate: the total work is linear in the length of the text.
 */
import type { Command, Mention, Position, SyntaxError } from "./ast.js";
import {
  BACKSLASH,
  BACKTICK,
  CARRIAGE_RETURN,
  CLOSE_BRACKET,
  LINE_FEED,
  OPEN_BRACKET,
  SPACE,
  Stops,
  STOPS,
  TAB,
  TILDE,
} from "./chars.js";
import { CommandMachine, Outcome, type MachineHost } from "./command-machine.js";
import { parseCommandText } from "./parser.js";
import { MentionFinder, endPosition, firstLine } from "./mentions.js";

/** One finding, in source order. */
export type ParseEvent =
  | { type: "command"; command: Command }
  | { type: "mention"; mention: Mention }
  | { type: "error"; error: SyntaxError };

const enum Region {
  Text,
  Fence,
}

const enum State {
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
  FenceContent,
  FenceSkipLine,
}

/** What the fast path still has to do for a chunk it let through. */
const enum FollowUp {
  None,
  Capture,
  Full,
}

const enum Closer {
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

const TEXT_SPECIAL = specials([OPEN_BRACKET, BACKSLASH, BACKTICK, LINE_FEED]);
const FENCE_SPECIAL = specials([OPEN_BRACKET, BACKSLASH, LINE_FEED]);
const RECOVER_SPECIAL = specials([CLOSE_BRACKET, LINE_FEED]);
const HOLD_SPECIAL = specials([BACKTICK, LINE_FEED]);

/** Index of the first character at or after `from` that the table marks, or `input.length`. */
function skipTo(input: string, from: number, table: Uint8Array): number {
  const end = input.length;
  let i = from;
  while (i < end) {
    const code = input.charCodeAt(i);
    if (code < 128 && table[code] === 1) return i;
    i++;
  }
  return end;
}

const NO_EVENTS = Object.freeze([]) as unknown as ParseEvent[];

interface Pending {
  input: string;
  index: number;
  base: number;
}

/** For each backtick run in `held` (a line's rest), the absolute offset of its closing run, or -1. */
function closingRuns(held: string, base: number): Map<number, number> {
  const runs: [number, number][] = [];
  for (let i = held.indexOf("`"); i >= 0; i = held.indexOf("`", i)) {
    let j = i;
    while (j < held.length && held.charCodeAt(j) === BACKTICK) j++;
    runs.push([i, j - i]);
    i = j;
  }
  const closers = new Map<number, number>();
  const nextByLength = new Map<number, number>();
  for (let k = runs.length - 1; k >= 0; k--) {
    const [start, length] = runs[k]!;
    const next = nextByLength.get(length);
    closers.set(base + start, next === undefined ? -1 : base + next);
    nextByLength.set(length, start);
  }
  return closers;
}

/**
 * Feed text with `push(chunk)`, then call `end()`. Each call returns the findings completed
 * by that piece of text. Concatenated, they equal `parse(wholeText)` in any chunking.
 */
export class StreamingScanner implements MachineHost {
  line = 1;
  lineStart = 0;

  private events: ParseEvent[] = NO_EVENTS;
  private readonly stack: Pending[] = [];
  private total = 0;
  private ended = false;
  private input = "";
  private base = 0;
  private region = Region.Text;
  private state = State.LineStart;
  private recovering = false;
  private indentSpaces = 0;
  private indentTab = false;
  private captureText = "";
  private captureFrom = -1;
  private capturing = false;
  /** Characters that need the full scanner in the current state; null when every chunk does. */
  /** The `Stops` bit of characters that need the full scanner in the current state; 0: all do. */
  private fastMask = 0;
  private fastFollowUp = FollowUp.None;
  private backslashEnd = -1;
  private backslashOdd = false;
  private runCharacter = 0;
  private runLength = 0;
  private runStart = 0;
  private codeLength = 0;
  private codeStart = 0;
  private maybeFence = false;
  private holdRunLength = 0;
  private holdRunStart = 0;
  private codeMap: Map<number, number> | undefined;
  private codeMapEnd = -1;
  private fenceCharacter = 0;
  private fenceLength = 0;
  private closer = Closer.Off;
  private closerIndent = 0;
  private closerRun = 0;
  private mentionPending = false;
  private readonly machine = new CommandMachine(this);
  private readonly mentions = new MentionFinder();

  /**
   * Scans the next piece of text; returns what it completed, in source order. When nothing
   * completed, the returned array is a shared frozen empty one: read it, don't modify it.
   */
  push(chunk: string): ParseEvent[] {
    const mask = this.fastMask;
    if (mask !== 0) {
      // The fast path for small chunks: nothing in this one can change the state.
      const length = chunk.length;
      let i = 0;
      while (i < length && (STOPS[chunk.charCodeAt(i)]! & mask) === 0) i++;
      if (i === length) {
        this.total += length;
        const followUp = this.fastFollowUp;
        if (followUp === FollowUp.Capture) this.captureText += chunk;
        else if (followUp === FollowUp.Full) this.followUpFastPass(chunk);
        return NO_EVENTS;
      }
      if (length === 1 && chunk.charCodeAt(0) === LINE_FEED && this.lineFeedAlone()) return NO_EVENTS;
    }
    return this.scanChunk(chunk);
  }

  private scanChunk(chunk: string): ParseEvent[] {
    this.events = NO_EVENTS;
    if (this.ended) return NO_EVENTS;
    const base = this.total;
    this.total += chunk.length;
    this.scan(chunk, 0, base);
    if (this.stack.length > 0) this.drain();
    this.chooseFastPath();
    return this.events;
  }

  /** The text is complete: settles what was held back and reports what never finished. */
  end(): ParseEvent[] {
    this.events = NO_EVENTS;
    this.fastMask = 0;
    if (this.ended) return NO_EVENTS;
    this.ended = true;
    this.settleHeldCode();
    this.finishState();
    this.stopCapture();
    return this.events;
  }

  /** Which characters of the next chunk need the full scanner, given the state reached. */
  /** A chunk that is one line feed, in prose or fence content: the common slow case, kept short. */
  private lineFeedAlone(): boolean {
    const state = this.state;
    if (state !== State.Text && state !== State.LineStart && state !== State.FenceContent) return false;
    const offset = this.total++;
    if (state === State.FenceContent) {
      if (this.closer !== Closer.Off) this.peekCloser("\n", 0);
      if (this.newline(offset, "", 0)) this.closeFence();
    } else {
      this.line++;
      this.lineStart = offset + 1;
      this.enterLineStart();
    }
    this.chooseFastPath();
    return true;
  }

  /** What a chunk that took the fast path still changes: captured text, a name, a fence line, a line start. */
  private followUpFastPass(chunk: string): void {
    if (this.capturing) {
      this.captureText += chunk;
      if (this.state === State.Machine && this.machine.passedThrough(chunk)) this.chooseFastPath();
    }
    if (this.closer !== Closer.Off) {
      this.peekCloser(chunk, 0);
      if ((this.closer as Closer) === Closer.Off) this.chooseFastPath();
    }
    if (this.state === State.LineStart) {
      this.state = this.recovering ? State.Recover : State.Text;
      this.chooseFastPath();
    }
  }

  private chooseFastPath(): void {
    if (this.closer !== Closer.Off || this.state === State.LineStart || (this.state === State.Machine && this.machine.keepsPieces())) {
      this.fastFollowUp = FollowUp.Full;
    } else this.fastFollowUp = this.capturing ? FollowUp.Capture : FollowUp.None;
    let mask = 0;
    if (this.closer !== Closer.Matched) {
      switch (this.state) {
        case State.Text:
          mask = Stops.text;
          break;
        case State.LineStart:
          mask = Stops.lineStart;
          break;
        case State.FenceContent:
          mask = Stops.fence;
          break;
        case State.Recover:
          mask = Stops.recover;
          break;
        case State.FenceInfo:
        case State.FenceSkipLine:
          mask = Stops.lineFeed;
          break;
        case State.CodeHold:
          mask = Stops.codeHold;
          break;
        case State.Machine:
          mask = this.machine.passThroughMask();
          break;
      }
    }
    this.fastMask = mask;
  }

  private emit(event: ParseEvent): void {
    if (this.events === NO_EVENTS) this.events = [];
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

  private drain(): void {
    while (this.stack.length > 0) {
      const { input, index, base } = this.stack.pop()!;
      this.scan(input, index, base);
    }
  }

  private startCapture(index: number): void {
    this.capturing = true;
    this.captureText = "";
    this.captureFrom = index;
  }

  private captured(index: number): string {
    return this.captureText + this.input.slice(this.captureFrom, index);
  }

  private stopCapture(): void {
    this.capturing = false;
    this.captureText = "";
  }

  private enterLineStart(): void {
    this.state = State.LineStart;
    this.indentSpaces = 0;
    this.indentTab = false;
  }

  private noteBackslash(offset: number): void {
    this.backslashOdd = this.backslashEnd === offset ? !this.backslashOdd : true;
    this.backslashEnd = offset + 1;
  }

  private position(offset: number): Position {
    return { offset, line: this.line, column: offset - this.lineStart + 1 };
  }

  private scan(input: string, index: number, base: number): void {
    this.input = input;
    this.base = base;
    if (this.capturing) this.captureFrom = index;
    if (this.region === Region.Fence && this.closer !== Closer.Off && this.closer !== Closer.Matched) this.peekCloser(input, index);
    const end = input.length;
    let i = index;
    while (i < end) {
      switch (this.state) {
        case State.Text: {
          i = skipTo(input, i, TEXT_SPECIAL);
          if (i === end) break;
          const code = input.charCodeAt(i);
          if (code === LINE_FEED) {
            this.newline(base + i, input, i + 1);
            this.enterLineStart();
          } else if (code === BACKSLASH) this.noteBackslash(base + i);
          else if (code === BACKTICK) {
            this.state = State.Ticks;
            this.runStart = base + i;
            this.runLength = 0;
            this.startCapture(i);
            continue;
          } else if (!(this.backslashOdd && this.backslashEnd === base + i)) {
            this.startMachine(i, base);
          }
          i++;
          continue;
        }
        case State.LineStart: {
          const code = input.charCodeAt(i);
          if (code === SPACE) this.indentSpaces++;
          else if (code === TAB) this.indentTab = true;
          else if ((code === BACKTICK || code === TILDE) && this.indentSpaces <= 3 && !this.indentTab) {
            this.state = State.FenceRun;
            this.runCharacter = code;
            this.runLength = 0;
            this.runStart = base + i;
            if (code === BACKTICK) this.startCapture(i);
            continue;
          } else if (code === OPEN_BRACKET && this.recovering) this.startMachine(i, base);
          else {
            this.state = this.recovering ? State.Recover : State.Text;
            continue;
          }
          i++;
          continue;
        }
        case State.FenceRun:
          if (input.charCodeAt(i) === this.runCharacter) {
            this.runLength++;
            i++;
          } else this.endFenceRun();
          continue;
        case State.Ticks:
          if (input.charCodeAt(i) === BACKTICK) {
            this.runLength++;
            i++;
            continue;
          }
          i = this.endTicks(input, i, base);
          continue;
        case State.CodeHold:
          i = skipTo(input, i, HOLD_SPECIAL);
          if (i === end) break;
          if (input.charCodeAt(i) === BACKTICK) {
            this.state = State.CodeHoldRun;
            this.holdRunStart = base + i;
            this.holdRunLength = 0;
            continue;
          }
          if (this.resolveHeldCode(input, i, base)) return;
          continue;
        case State.CodeHoldRun:
          if (input.charCodeAt(i) === BACKTICK) {
            this.holdRunLength++;
            i++;
          } else if (this.holdRunLength === this.codeLength) this.closeHeldCode(i);
          else {
            this.maybeFence = false;
            this.state = State.CodeHold;
          }
          continue;
        case State.FenceInfo: {
          const lineFeed = input.indexOf("\n", i);
          if (lineFeed < 0) {
            i = end;
            break;
          }
          this.line++;
          this.lineStart = base + lineFeed + 1;
          this.region = Region.Fence;
          this.closer = Closer.Indent;
          this.closerIndent = 0;
          this.peekCloser(input, lineFeed + 1);
          this.state = State.FenceContent;
          i = lineFeed + 1;
          continue;
        }
        case State.Machine: {
          const outcome = this.machine.feed(input, i, base);
          i = this.machine.stop;
          if (outcome !== Outcome.Running) this.settleMachine(outcome, i);
          continue;
        }
        case State.Recover: {
          i = skipTo(input, i, RECOVER_SPECIAL);
          if (i === end) break;
          if (input.charCodeAt(i) === CLOSE_BRACKET) {
            this.recovering = false;
            this.state = State.Text;
          } else {
            this.newline(base + i, input, i + 1);
            this.enterLineStart();
          }
          i++;
          continue;
        }
        case State.RecoverFenceCandidate: {
          i = skipTo(input, i, HOLD_SPECIAL);
          if (i === end) break;
          if (input.charCodeAt(i) === LINE_FEED) {
            this.stopCapture();
            this.openFence(BACKTICK, this.runLength);
            continue;
          }
          // A backtick in the info string: not a fence. Recovery ends at a `]` held so far.
          const held = this.captured(i);
          this.stopCapture();
          const bracket = held.indexOf("]");
          if (bracket < 0) {
            this.state = State.Recover;
            continue;
          }
          this.recovering = false;
          this.state = State.Text;
          this.stack.push({ input, index: i, base }, { input: held.slice(bracket + 1), index: 0, base: this.runStart + bracket + 1 });
          return;
        }
        case State.FenceContent: {
          i = skipTo(input, i, FENCE_SPECIAL);
          if (i === end) break;
          const code = input.charCodeAt(i);
          if (code === LINE_FEED) {
            if (this.newline(base + i, input, i + 1)) this.closeFence();
          } else if (code === BACKSLASH) this.noteBackslash(base + i);
          else if (!(this.backslashOdd && this.backslashEnd === base + i)) this.startMachine(i, base);
          i++;
          continue;
        }
        case State.FenceSkipLine: {
          const lineFeed = input.indexOf("\n", i);
          if (lineFeed < 0) {
            i = end;
            break;
          }
          if (this.mentionPending) this.emitPendingMention(lineFeed);
          this.state = State.FenceContent;
          if (this.newline(base + lineFeed, input, lineFeed + 1)) this.closeFence();
          i = lineFeed + 1;
          continue;
        }
      }
      break;
    }
    if (this.capturing) {
      this.captureText += input.slice(this.captureFrom, end);
      this.captureFrom = end;
    }
  }

  private startMachine(index: number, base: number): void {
    this.machine.begin(base + index);
    this.startCapture(index);
    this.state = State.Machine;
  }

  private settleMachine(outcome: Outcome, index: number): void {
    const machine = this.machine;
    const inFence = this.region === Region.Fence;
    if (outcome === Outcome.Complete) {
      const text = this.captured(index);
      this.stopCapture();
      const start = { offset: machine.startOffset, line: machine.startLine, column: machine.startColumn };
      if (inFence) {
        this.emitMention(text, start, "fence");
        this.state = State.FenceContent;
        return;
      }
      this.recovering = false;
      this.state = State.Text;
      this.emitCommand(text, start);
      return;
    }
    if (outcome === Outcome.Aborted) {
      if (machine.confirmed) this.emitMention(firstLine(this.captured(index)), this.machineStart(), "fence");
      this.stopCapture();
      this.closeFence();
      return;
    }
    if (outcome === Outcome.Failed && inFence) {
      if (machine.startLine === this.line) this.mentionPending = true;
      else {
        this.emitMention(firstLine(this.captured(index)), this.machineStart(), "fence");
        this.stopCapture();
      }
      this.state = State.FenceSkipLine;
      return;
    }
    this.stopCapture();
    if (inFence) {
      this.state = State.FenceContent;
      return;
    }
    if (outcome === Outcome.Failed) {
      this.emit({ type: "error", error: machine.error! });
      this.recovering = true;
    }
    if (machine.lineBlank) {
      this.enterLineStart();
      if (machine.indent < 0) this.indentTab = true;
      else this.indentSpaces = machine.indent;
    } else this.state = this.recovering ? State.Recover : State.Text;
  }

  private machineStart(): Position {
    return { offset: this.machine.startOffset, line: this.machine.startLine, column: this.machine.startColumn };
  }

  private emitCommand(text: string, start: Position): void {
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

  private emitMention(text: string, start: Position, context: Mention["context"]): void {
    this.emit({ type: "mention", mention: { text, context, span: { start, end: endPosition(start, text) } } });
  }

  private emitPendingMention(lineFeed: number): void {
    let text = this.captured(lineFeed);
    if (text.charCodeAt(text.length - 1) === CARRIAGE_RETURN) text = text.slice(0, -1);
    this.stopCapture();
    this.mentionPending = false;
    this.emitMention(text, this.machineStart(), "fence");
  }

  private endFenceRun(): void {
    const length = this.runLength;
    if (this.runCharacter === TILDE) {
      if (length >= 3) this.openFence(TILDE, length);
      else this.state = this.recovering ? State.Recover : State.Text;
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

  private holdCode(length: number, maybeFence: boolean): void {
    this.state = State.CodeHold;
    this.codeLength = length;
    this.codeStart = this.runStart;
    this.maybeFence = maybeFence;
  }

  /** A backtick run in prose ended at `index`: a code span opener, or (on a replayed line) decided already. */
  private endTicks(input: string, index: number, base: number): number {
    if (this.codeMap === undefined || this.runStart >= this.codeMapEnd) {
      this.holdCode(this.runLength, false);
      return index;
    }
    this.stopCapture();
    this.state = State.Text;
    const closer = this.codeMap.get(this.runStart) ?? -1;
    if (closer < 0) return index;
    const closerIndex = closer - base;
    this.findSpanMentions(input.slice(index, closerIndex), base + index);
    return closerIndex + this.runLength;
  }

  private closeHeldCode(index: number): void {
    const held = this.captured(index);
    this.stopCapture();
    this.findSpanMentions(held.slice(this.codeLength, this.holdRunStart - this.codeStart), this.codeStart + this.codeLength);
    this.state = State.Text;
  }

  /**
   * The line (or text) ended with no closing run. A fence opener candidate becomes a fence;
   * otherwise the opener is literal and the held stretch is scanned again as prose, once, with
   * every backtick run on it already decided. Returns true when a replay was scheduled.
   */
  private resolveHeldCode(input: string, index: number, base: number): boolean {
    if (this.maybeFence) {
      this.stopCapture();
      this.openFence(BACKTICK, this.codeLength);
      return false;
    }
    const held = this.captured(index);
    this.stopCapture();
    this.codeMap = closingRuns(held, this.codeStart);
    this.codeMapEnd = this.codeStart + held.length;
    this.state = State.Text;
    this.stack.push({ input, index, base }, { input: held, index: 0, base: this.codeStart });
    return true;
  }

  private findSpanMentions(content: string, offset: number): void {
    if (content.indexOf("[") < 0) return;
    for (const found of this.mentions.find(content, offset, this.line, this.lineStart)) this.emit({ type: "mention", mention: found });
  }

  private openFence(character: number, length: number): void {
    this.recovering = false;
    this.fenceCharacter = character;
    this.fenceLength = length;
    this.state = State.FenceInfo;
  }

  private closeFence(): void {
    this.region = Region.Text;
    this.closer = Closer.Off;
    this.recovering = false;
    this.enterLineStart();
  }

  /** Decides, ahead of the content scan, whether the current fence line closes the fence. */
  private peekCloser(input: string, index: number): void {
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

  /** At the end of the text: code held back is decided (it has no closer now) and replayed. */
  private settleHeldCode(): void {
    for (;;) {
      if (this.state === State.CodeHoldRun && this.holdRunLength === this.codeLength) {
        this.closeHeldCode(this.input.length);
        return;
      }
      if (this.state !== State.CodeHold && this.state !== State.CodeHoldRun) return;
      if (!this.resolveHeldCode(this.input, this.input.length, this.base)) return;
      this.drain();
    }
  }

  private finishState(): void {
    if (this.state === State.FenceSkipLine && this.mentionPending) {
      this.emitPendingMention(this.input.length);
      return;
    }
    if (this.state !== State.Machine) return;
    const end = this.position(this.total);
    const outcome = this.machine.finish(end.offset, end.line, end.column);
    if (outcome !== Outcome.Failed) return;
    if (this.region === Region.Fence) this.emitMention(firstLine(this.captured(this.input.length)), this.machineStart(), "fence");
    else this.emit({ type: "error", error: this.machine.error! });
  }
}
