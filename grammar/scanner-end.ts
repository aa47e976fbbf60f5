/**
 * The end of the text: what the scanner held or half-read (a code span or tag held open, a
 * line's beginning, an inert line, a fence opener's info string, a command) is decided, since
 * nothing more can come, and what never finished is reported.
 */
import { BACKTICK } from "./chars.js";
import { Outcome } from "./command-machine.js";
import { firstLine } from "./mentions.js";
import { Region, State } from "./scanner-states.js";
import { LineScanner } from "./scanner-lines.js";

/** The end-of-text paths of StreamingScanner (see scanner.ts). */
export abstract class EndingScanner extends LineScanner {
  /** At the end of the text: what was held or half-read is decided (nothing more can come) and replayed. */
  protected settleAtEnd(): void {
    for (;;) {
      const input = this.input;
      const at = input.length;
      let next = at;
      switch (this.state) {
        case State.CodeHoldRun:
          if (this.holdRunLength === this.codeLength) {
            this.closeHeldCode(at);
            continue;
          }
          if (!this.resolveHeldCode(input, at, this.base)) return;
          break;
        case State.CodeHold:
          if (!this.resolveHeldCode(input, at, this.base)) return;
          break;
        case State.Prefix:
          next = this.classifyLine(input, at, this.base, true);
          break;
        case State.HoldPrefix:
          next = this.classifyHeldLine(input, at, this.base, true);
          break;
        case State.TagHold: {
          this.tag.noteParagraphEnd(this.base + at);
          const text = this.captured(at);
          this.stopCapture();
          this.replayHeld(text);
          next = -1;
          break;
        }
        case State.InertLine:
          if (this.endInertLine(at, this.base, true) >= 0) return;
          next = -1;
          break;
        default:
          return;
      }
      if (next >= 0 && this.stack.length === 0) {
        if (this.state === State.Prefix || this.state === State.HoldPrefix) return;
        continue;
      }
      this.drain();
    }
  }

  protected finishState(): void {
    if (this.state === State.RecoverFenceCandidate) this.openFence(BACKTICK, this.runLength, this.runStart + this.runLength);
    if (this.state === State.FenceInfo) {
      this.endFenceInfo(this.input.length, this.total);
      return;
    }
    if (this.state === State.FenceSkipLine && this.mentionPending) {
      this.emitPendingMention(this.input.length);
      return;
    }
    if (this.state !== State.Machine) return;
    const end = this.position(this.total);
    const outcome = this.machine.finish(end.offset, end.line, end.column);
    if (outcome !== Outcome.Failed) return;
    this.markRegion(this.machine.startOffset, this.region === Region.Fence ? "fence" : "command");
    if (this.region === Region.Fence) this.emitMention(firstLine(this.captured(this.input.length)), this.machineStart(), "fence");
    else this.emit({ type: "error", error: this.machine.failureWithHint(this.captured(this.input.length)) });
  }
}
