/**
 * The part of the dialect recognizer (recognizer.ts) that reads a 1-character chunk without the
 * whole of `feed` when that character cannot open, end or decide a candidate, and that sleeps
 * while nothing can (the call scanner's fast path then passes characters by it).
 */
import { BACKSLASH, Class, CLASSES, CLOSE_BRACKET, Front, LESS, LINE_FEED, Mode } from "./states.js";
import { InlineCallReader } from "./inline-call.js";

export abstract class QuietReader extends InlineCallReader {
  /** Nothing open and the line's beginning decided: only `<`, `>`, `[`, `［`, `{`, `(` and line feeds change anything (`Stops.dialect`). */
  get asleep(): boolean {
    return this.mode === Mode.Idle && this.front === Front.Dead;
  }

  /** `count` characters went by while asleep, none of them one of those. */
  skip(count: number): void {
    this.total += count;
  }

  /**
   * Reads a 1-character chunk when that cannot open, end or decide a candidate (most
   * characters: prose, a name being read, the inside of a string or a tag's body); false when
   * it must go to `feed`.
   */
  quiet(chunk: string): boolean {
    const code = chunk.charCodeAt(0);
    this.recent[this.total & this.recentMask] = code;
    // The commonest case, kept small enough to inline: prose on a line that can hold no call.
    if (code < 128 && CLASSES[code]! < Class.LineFeed && this.front === Front.Dead && this.mode === Mode.Idle) {
      this.total++;
      return true;
    }
    return this.quietStep(code, chunk);
  }

  private quietStep(code: number, chunk: string): boolean {
    switch (this.mode) {
      case Mode.NearName:
        if (this.near.take(code)) {
          // Words that already name nothing are text from here: the recognizer may sleep again.
          if (this.near.namesNothing(code)) {
            this.mode = Mode.Idle;
            this.front = Front.Dead;
          }
          break;
        }
        if (this.near.mayName() || this.mayOpenArray(code) || (code === CLOSE_BRACKET && this.opensMarker()) || this.mayOpenList(code)) return false;
        // The words name nothing: the character after them is read as text.
        this.mode = Mode.Idle;
        this.front = this.total === this.lineStart ? Front.Indent : Front.Dead;
        return this.quietStep(code, chunk);
      case Mode.Idle:
        if (!this.frontStep(code, this.total, chunk, this.total)) return false;
        break;
      case Mode.Less:
        if (!this.tagNameGoesOn(code)) return false;
        this.name += chunk;
        this.capture += chunk;
        break;
      case Mode.TagBody:
        // A character of a tag's body that cannot begin its closing tag or end a line.
        if (this.matched !== 0 || code === LESS || code === LINE_FEED) return false;
        this.capture += chunk;
        break;
      case Mode.JsonObject:
      case Mode.FunctionArgs:
      case Mode.NearBody:
        // The commonest: a character inside a string that neither escapes, ends it, nor ends a line.
        if (this.inString === 0 || this.escaped || code === BACKSLASH || code === this.inString || code === LINE_FEED) {
          if (!this.insideGoesOn(code)) return false;
          this.inside(chunk, 0, this.total, code);
        }
        this.capture += chunk;
        break;
      default:
        return false;
    }
    this.total++;
    return true;
  }

  /**
   * One character while idle, at absolute `offset` (in `input`, which starts at absolute `base`):
   * the front follows it; false (nothing changed) for a character that may open more (recognizer.ts).
   */
  protected abstract frontStep(code: number, offset: number, input: string, base: number): boolean;
}
