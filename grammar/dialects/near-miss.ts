/**
 * The part of the dialect recognizer (recognizer.ts) that reads what follows a `[` (or `［`) that is
 * not this language's own start: the words of a near-miss (`[FILE_OP action=read …]`), Mistral's
 * `[TOOL_CALLS]`, and the opening of a JSON array of calls at a line's start (`[{…}, …]`).
 */
import { CandidateReader } from "./candidates.js";
import { Shape } from "./finding.js";
import { CARRIAGE_RETURN, CLOSE_BRACKET, COLON, FULLWIDTH_CLOSE, LINE_FEED, Mode, mayOpenNearBody, OPEN_BRACE, SPACE, TAB } from "./states.js";

export abstract class NearMissReader extends CandidateReader {
  /** After `[`: up to three spaces and two words that must name something registered. */
  protected nearName(input: string, i: number, code: number): number {
    const end = input.length;
    const near = this.near;
    while (near.take(code)) {
      if (++i === end) return end;
      code = input.charCodeAt(i);
    }
    if (this.mayOpenArray(code)) {
      const wordsFrom = this.startOffset + 1 - this.base;
      this.capture = this.bracket + near.verdict(wordsFrom >= 0 ? input.slice(wordsFrom, i) : undefined).raw;
      this.captureFrom = i;
      if (code === OPEN_BRACE) return this.openArray(i);
      this.mode = Mode.ArrayOpen;
      this.blank = false;
      return i;
    }
    if (code === CLOSE_BRACKET && this.opensMarker()) return this.openToolCalls(i + 1);
    // Words whose hashes name nothing; and `[NAME:` not followed by a blank or `{`, this language's own start.
    if (!near.mayName() || (code === COLON && near.plain() && i + 1 < end && !mayOpenNearBody(input.charCodeAt(i + 1)))) return this.abandon(i);
    // The words lie in this chunk when their `[` does: taken from it, not rebuilt from the reader's buffer.
    const wordsFrom = this.startOffset + 1 - this.base;
    const verdict = near.verdict(wordsFrom >= 0 ? input.slice(wordsFrom, i) : undefined);
    if (!verdict.named || code === CLOSE_BRACKET || code === FULLWIDTH_CLOSE) return this.abandon(i);
    this.shape = Shape.NearMiss;
    this.inString = 0;
    this.depth = 0;
    this.blank = false;
    this.capture = this.bracket + verdict.raw;
    this.captureFrom = i;
    if (code === COLON && verdict.plain) {
      // `[NAME:` is this language's own start: only `[NAME:{…}]` is a near-miss.
      this.mode = Mode.NearColon;
      return i + 1;
    }
    this.mode = Mode.NearBody;
    return i;
  }

  /**
   * Whether `code`, right after a near-miss's `[` and any blanks the name reader took, may lead to a
   * JSON array of calls: the `[` began its line and no word came, and `code` is `{` or a line break.
   */
  protected mayOpenArray(code: number): boolean {
    return this.nearAtLineStart && this.bracket === "[" && this.near.wordless() && (code === OPEN_BRACE || code === LINE_FEED || code === CARRIAGE_RETURN);
  }

  /** The `{` at `i` opens a JSON array of calls, read as a JSON object is (its objects are the calls); the capture holds what came before. */
  protected openArray(i: number): number {
    this.readJson(Shape.JsonArray, 2);
    return i + 1;
  }

  /** Whether a near-miss's words, at their `]`, are Mistral's `[TOOL_CALLS]` token (wherever it stands). */
  protected opensMarker(): boolean {
    return this.bracket === "[" && this.near.isToolCallsMarker();
  }

  /** Mistral's `[TOOL_CALLS]` ended just before index `i`: tokens.ts. */
  protected abstract openToolCalls(i: number): number;

  /** Between a `[` that ends its line and the `{` of the array's first call: blanks and single line breaks. */
  protected arrayOpen(i: number, base: number, code: number): number {
    if (code === OPEN_BRACE) return this.openArray(i);
    if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) return i + 1;
    if (code !== LINE_FEED) return this.abandon(i);
    this.newline(base + i);
    if (this.blank) return this.abandon(i + 1);
    this.blank = true;
    return i + 1;
  }
}
