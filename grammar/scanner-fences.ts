/**
 * Fences at the top level, as the scanner reads them character by character: the opener run
 * and its info string, the content lines, and each line that may close the fence (decided ahead
 * of the content scan, so a command on it is never started).
 *
 * One addition to CommonMark: DeepSeek V3 writes a call's arguments in a ```` ```json ```` fence
 * whose closing run its end token follows on the same line (```` ```<｜tool▁call▁end｜> ````), which
 * CommonMark does not take as a closing fence. A fence whose info string is `json` and whose
 * first line begins with `{` also closes at such a line: its closing run, then DeepSeek end tokens
 * (`<｜tool▁call▁end｜>`, `<｜tool▁calls▁end｜>`, `|` for `｜` and `_` for `▁` too) and blanks only.
 */
import { CARRIAGE_RETURN, LINE_FEED, SPACE, TAB, TILDE } from "./chars.js";
import { ScannerCore } from "./scanner-core.js";
import { Closer, Region, State } from "./scanner-states.js";

/** DeepSeek's end tokens, with `｜` read as `|` and `▁` as `_`, lower case; the plural's `s` comes at `PLURAL_AT`. */
const END_TOKEN = "<|tool_call_end|>";
const END_TOKENS = "<|tool_calls_end|>";
const PLURAL_AT = "<|tool_call".length;
const LESS_THAN = 0x3c;
const OPEN_BRACE = 0x7b;

/** Whether a fence may close at a DeepSeek end token (see above): not, yet to be seen on its first line, or so. */
const enum JsonFence {
  No,
  FirstLine,
  Yes,
}

/** `code` as END_TOKEN spells it: the fullwidth `｜` as `|`, `▁` as `_`, letters lower case. */
function tokenCharacter(code: number): number {
  if (code === 0xff5c) return 0x7c;
  if (code === 0x2581) return 0x5f;
  return code >= 0x41 && code <= 0x5a ? code + 32 : code;
}

/** The fence paths of StreamingScanner (see scanner.ts). */
export abstract class FenceScanner extends ScannerCore {
  protected fenceCharacter = 0;
  protected fenceLength = 0;
  /** Absolute offset of a fence opener's info string (just after its run). */
  protected fenceInfoStart = 0;
  protected closerIndent = 0;
  protected closerRun = 0;
  private jsonFence = JsonFence.No;
  /** In `Closer.Token`: how much of the end token matched, and whether it is the plural one. */
  private tokenAt = 0;
  private tokenPlural = false;

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
    this.jsonFence = JsonFence.No;
    this.state = State.FenceInfo;
  }

  /** The opener line ended at `index` (absolute `offset`): command-shaped text in its info string is a fence mention. */
  protected endFenceInfo(index: number, offset: number): void {
    const line = this.captured(index);
    this.stopCapture();
    let info = line.slice(line.length - (offset - this.fenceInfoStart));
    if (info.charCodeAt(info.length - 1) === CARRIAGE_RETURN) info = info.slice(0, -1);
    this.jsonFence = info.trim().toLowerCase() === "json" ? JsonFence.FirstLine : JsonFence.No;
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
      if (this.closer >= Closer.Token) this.endTokenStep(code);
      else if (this.closer === Closer.Indent) {
        if (this.jsonFence === JsonFence.FirstLine && code !== SPACE) this.jsonFence = code === OPEN_BRACE ? JsonFence.Yes : JsonFence.No;
        if (code === SPACE && this.closerIndent < 3) this.closerIndent++;
        else if (code === this.fenceCharacter) {
          this.closer = Closer.Run;
          this.closerRun = 1;
        } else this.closer = Closer.Off;
      } else if (this.closer === Closer.Run && code === this.fenceCharacter) this.closerRun++;
      else if (this.closer === Closer.Run && this.closerRun < this.fenceLength) this.closer = Closer.Off;
      else if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) this.closer = Closer.Trail;
      else if (code === LESS_THAN && this.jsonFence === JsonFence.Yes) this.beginEndToken();
      else this.closer = code === LINE_FEED ? Closer.Matched : Closer.Off;
      if (this.closer === Closer.Off || this.closer === Closer.Matched) return;
    }
  }

  private beginEndToken(): void {
    this.closer = Closer.Token;
    this.tokenAt = 1;
    this.tokenPlural = false;
  }

  /** A character of a DeepSeek end token after a closing run, or of what follows one on its line. */
  private endTokenStep(code: number): void {
    if (this.closer === Closer.AfterToken) {
      if (code === LESS_THAN) this.beginEndToken();
      else if (code === LINE_FEED) this.closer = Closer.Matched;
      else if (code !== SPACE && code !== TAB && code !== CARRIAGE_RETURN) this.closer = Closer.Off;
      return;
    }
    const character = tokenCharacter(code);
    if (this.tokenAt === PLURAL_AT && character === END_TOKENS.charCodeAt(PLURAL_AT)) this.tokenPlural = true;
    const token = this.tokenPlural ? END_TOKENS : END_TOKEN;
    if (character !== token.charCodeAt(this.tokenAt)) this.closer = Closer.Off;
    else if (++this.tokenAt === token.length) this.closer = Closer.AfterToken;
  }
}
