/**
 * Fences at the top level, as the scanner reads them character by character: the opener run
 * and its info string, the content lines, and each line that may close the fence (decided ahead
 * of the content scan, so a command on it is never started).
 */
import { CARRIAGE_RETURN, LINE_FEED, SPACE, TAB, TILDE } from "./chars.js";
import { ScannerCore } from "./scanner-core.js";
import { Closer, Region, State } from "./scanner-states.js";

/** The fence paths of StreamingScanner (see scanner.ts). */
export abstract class FenceScanner extends ScannerCore {
  protected fenceCharacter = 0;
  protected fenceLength = 0;
  /** Absolute offset of a fence opener's info string (just after its run). */
  protected fenceInfoStart = 0;
  protected closerIndent = 0;
  protected closerRun = 0;

  /** MachineHost: a line feed at `offset` was consumed; true when it closes the current fence. */
  newline(offset: number, input: string, next: number): boolean {
    this.countLine(offset);
    if (this.region !== Region.Fence) return false;
    if (this.closer === Closer.Matched) return true;
    this.closer = Closer.Indent;
    this.closerIndent = 0;
    this.closerRun = 0;
    this.peekCloser(input, next);
    return false;
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
}
