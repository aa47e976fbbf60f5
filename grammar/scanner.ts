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
import { BACKSLASH, BACKTICK, CLOSE_BRACKET, LESS_THAN, LINE_FEED, OPEN_BRACKET, SPACE, Stops, STOPS, TAB, TILDE } from "./chars.js";
import { Need } from "./blocks.js";
import { Outcome } from "./command-machine.js";
import { Closer, FENCE_SPECIAL, FollowUp, HOLD_SPECIAL, NO_EVENTS, RECOVER_SPECIAL, Region, skipTo, State, TEXT_SPECIAL, type ParseEvent } from "./scanner-core.js";
import { EndingScanner } from "./scanner-end.js";
import { prefixEnd } from "./line-prefix.js";

export type { ParseEvent } from "./scanner-core.js";

/** Longer chunks go straight to the full scanner, whose loops are as fast and see each character once. */
const FAST_PATH_LIMIT = 64;

/**
 * Feed text with `push(chunk)`, then call `end()`. Each call returns the findings completed
 * by that piece of text. Concatenated, they equal `parse(wholeText)` in any chunking.
 */
export class StreamingScanner extends EndingScanner {
  /**
   * Scans the next piece of text; returns what it completed, in source order. When nothing
   * completed, the returned array is a shared frozen empty one: read it, don't modify it.
   */
  push(chunk: string): ParseEvent[] {
    // The commonest case of all, kept tiny so it can be inlined: one plain character of prose.
    const followUp = this.fastFollowUp;
    if (chunk.length === 1 && followUp !== FollowUp.Full && (STOPS[chunk.charCodeAt(0)]! & this.fastMask) === 0 && this.fastMask !== 0) {
      this.total++;
      if (followUp === FollowUp.Capture) this.captureText += chunk;
      return NO_EVENTS;
    }
    return this.pushChunk(chunk);
  }

  /** A chunk the one-character fast path did not take. */
  protected pushChunk(chunk: string): ParseEvent[] {
    const mask = this.fastMask;
    const length = chunk.length;
    // An empty chunk (streams send empty deltas) must not count as a line's first character.
    if (length === 0) return NO_EVENTS;
    if (mask !== 0 && length <= FAST_PATH_LIMIT) {
      // The fast path for small chunks: nothing in this one can change the state.
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
    this.scanText(chunk, false);
    this.chooseFastPath();
    return this.events;
  }

  /** Scans a chunk, its lone `\r` read as line feeds (line-endings.ts); `final` when the text ends with it. */
  private scanText(chunk: string, final: boolean): void {
    const returns = this.returns;
    const text = returns.pending || chunk.indexOf("\r") >= 0 ? returns.read(chunk, this.total, final) : chunk;
    this.readAsIs = text === chunk;
    const base = this.total;
    this.total += text.length;
    if (text.length > 0) {
      this.scan(text, 0, base);
      if (this.stack.length > 0) this.drain();
    }
    if (!this.capturing) returns.forget();
  }

  /** The text is complete: settles what was held back and reports what never finished. */
  end(): ParseEvent[] {
    this.events = NO_EVENTS;
    this.fastMask = 0;
    if (this.ended) return NO_EVENTS;
    if (this.returns.pending) this.scanText("", true);
    this.settleAtEnd();
    this.ended = true;
    this.finishState();
    this.stopCapture();
    return this.events;
  }

  /** Which characters of the next chunk need the full scanner, given the state reached. */
  /** A chunk that is one line feed, in prose or fence content: the common slow case, kept short. */
  private lineFeedAlone(): boolean {
    const state = this.state;
    if (state !== State.Text && state !== State.FenceContent) return false;
    const offset = this.total++;
    if (state === State.FenceContent) {
      if (this.closer !== Closer.Off) this.peekCloser("\n", 0);
      if (this.newline(offset, "", 0)) this.closeFence();
    } else this.textLineFeed(offset);
    this.chooseFastPath();
    return true;
  }

  /** What a chunk that took the fast path still changes: captured text, a name, a fence line, a line start. */
  protected followUpFastPass(chunk: string): void {
    if (this.capturing) {
      this.captureText += chunk;
      if (this.state === State.Machine && this.machine.passedThrough(chunk)) this.chooseFastPath();
    }
    if (this.closer !== Closer.Off) {
      this.peekCloser(chunk, 0);
      if ((this.closer as Closer) === Closer.Off) this.chooseFastPath();
    }
    if (this.state === State.LineStart) {
      if (this.recovering) {
        this.state = State.Recover;
        this.chooseFastPath();
      } else {
        // The first character of a line of prose (a line start never captures and is never in a fence).
        this.state = State.Text;
        this.fastMask = Stops.text | this.layerStops;
        this.fastFollowUp = FollowUp.None;
      }
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
          mask = this.recovering ? Stops.lineStart : 0;
          break;
        case State.Prefix:
        case State.HoldPrefix:
          mask = this.prefixNeed === Need.Decider ? Stops.prefix : this.prefixNeed === Need.LineOrBacktick ? Stops.codeHold : Stops.lineFeed;
          break;
        case State.InertLine:
          // Reasoning's closer is searched as it streams (reasoning-close.ts): a chunk with no `<` or line feed is passed by while no closer's beginning is kept.
          mask = this.lineRegion !== "reasoning" ? Stops.lineFeed : this.reasoningCloser.pending ? 0 : Stops.recover;
          break;
        case State.FenceContent:
          mask = Stops.fence;
          break;
        case State.Recover:
          mask = Stops.recover;
          break;
        case State.FenceInfo:
        case State.FenceSkipLine:
        case State.RecoverBodyLine:
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
    // A held `\r` is decided by the next character, which the fast paths would not look at.
    this.fastMask = this.returns.pending || mask === 0 ? 0 : mask | this.layerStops;
  }

  protected override scan(input: string, index: number, base: number): void {
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
            i = this.textLineFeed(base + i) - base;
            continue;
          } else if (code === BACKSLASH) this.noteBackslash(base + i);
          else if (code === BACKTICK) {
            if (this.escaped(base + i)) {
              i++;
              continue;
            }
            this.state = State.Ticks;
            this.runStart = base + i;
            this.runLength = 0;
            this.startCapture(i);
            continue;
          } else if (code === LESS_THAN) {
            if (!this.escaped(base + i)) this.beginTag(i, base);
          } else if (this.backslashEnd !== base + i) {
            this.startMachine(i, base);
          }
          i++;
          continue;
        }
        case State.Prefix: {
          i = prefixEnd(input, i, this.prefixNeed);
          if (i === end) break;
          i = this.classifyLine(input, i, base, false);
          if (i < 0) return;
          continue;
        }
        case State.HoldPrefix: {
          i = prefixEnd(input, i, this.prefixNeed);
          if (i === end) break;
          i = this.classifyHeldLine(input, i, base, false);
          if (i < 0) return;
          continue;
        }
        case State.InertLine:
          i = this.readInertLine(input, i, base);
          if (i < 0) return;
          continue;
        case State.TagHold:
          i = this.feedTag(input, i, base);
          if (i < 0) return;
          continue;
        case State.AfterLineTag:
          if (!this.afterLineTag(input.charCodeAt(i))) i++;
          continue;
        case State.LineStart: {
          if (!this.recovering) {
            const first = input.charCodeAt(i);
            if (this.tracker.plainLine(first)) this.plainLine();
            else if (first === LINE_FEED && this.tracker.blankAtTop()) {
              i = this.textLineFeed(base + i) - base;
              continue;
            } else this.beginLine(i);
            continue;
          }
          const code = input.charCodeAt(i);
          if (code === SPACE) this.indentSpaces++;
          else if (code === TAB) this.indentTab = true;
          else if ((code === BACKTICK || code === TILDE) && this.indentSpaces <= 3 && !this.indentTab) {
            this.state = State.FenceRun;
            this.runCharacter = code;
            this.runLength = 0;
            this.runStart = base + i;
            this.startCapture(i);
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
          if (this.maybeFence || this.lineHeading) {
            if (this.resolveHeldCode(input, i, base)) return;
            continue;
          }
          this.holdLineFeed(i, base);
          i++;
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
          this.endFenceInfo(lineFeed, base + lineFeed);
          this.countLine(base + lineFeed);
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
          if (outcome !== Outcome.Running && this.settleMachine(outcome, i)) return;
          continue;
        }
        case State.Recover: {
          i = skipTo(input, i, RECOVER_SPECIAL);
          if (i === end) break;
          const code = input.charCodeAt(i);
          if (code === CLOSE_BRACKET) {
            this.recovering = false;
            this.markRegion(base + i + 1, undefined);
            this.state = State.Text;
          } else if (code === LINE_FEED) {
            this.newline(base + i, input, i + 1);
            this.enterLineStart();
          } else this.state = State.RecoverLess;
          i++;
          continue;
        }
        case State.RecoverLess:
        case State.RecoverTag:
        case State.RecoverHeader:
          i = this.recoverHeredoc(input, i, base);
          continue;
        case State.RecoverBodyStart:
        case State.RecoverBodyLine:
          i = this.recoverBody(input, i, base);
          continue;
        case State.RecoverFenceCandidate: {
          i = skipTo(input, i, HOLD_SPECIAL);
          if (i === end) break;
          if (input.charCodeAt(i) === LINE_FEED) {
            this.openFence(BACKTICK, this.runLength, this.runStart + this.runLength);
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
          this.markRegion(this.runStart + bracket + 1, undefined);
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
          else if (this.backslashEnd !== base + i) this.startMachine(i, base);
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
}
