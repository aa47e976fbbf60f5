/**
 * The part of the dialect recognizer (recognizer.ts) that reads inside an open candidate: a
 * near-miss's body, a function call's parentheses or a JSON object (strings, nesting, blank lines,
 * where it ends), and what may follow a function call at a line's start on its line. The
 * candidate's start and end are candidates.ts's.
 */
import { CandidateReader, MAX_JSON_DEPTH } from "./candidates.js";
import { Shape } from "./finding.js";
import {
  APOSTROPHE,
  BACKSLASH,
  CARRIAGE_RETURN,
  Class,
  classOf,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  CLOSE_PARENTHESIS,
  COMMA,
  FULLWIDTH_CLOSE,
  Front,
  LESS,
  LINE_FEED,
  Mode,
  OPEN_BRACE,
  OPEN_BRACKET,
  OPEN_PARENTHESIS,
  QUOTE,
  SEMICOLON,
  SPACE,
  TAB,
  isStructural,
  plainRunEnd,
  stringRunEnd,
} from "./states.js";

export abstract class InsideReader extends CandidateReader {
  /**
   * Whether `inside` takes `code` without ending or dropping the candidate and without a line
   * feed: anything but a line break, the bracket or parenthesis that closes a near-miss or a
   * function call, what a JSON object may not open with, and nesting at the depth limit.
   */
  protected insideGoesOn(code: number): boolean {
    if (code === LINE_FEED) return false;
    if (this.inString !== 0) return true;
    if (this.depth >= MAX_JSON_DEPTH) return false;
    switch (this.mode) {
      case Mode.NearBody:
        return this.depth > 0 || (code !== CLOSE_BRACKET && code !== FULLWIDTH_CLOSE);
      case Mode.FunctionArgs:
        // A call in the middle of a line ends at a `<` outside its strings, as a JSON call there does.
        return (this.depth > 1 || code !== CLOSE_PARENTHESIS) && (code !== LESS || this.shape !== Shape.InlineFunction);
      default:
        // The brace or bracket that ends a call after a marker token ends the candidate: `inside` must read it.
        if (this.jsonMarked && this.depth === 1 && (code === CLOSE_BRACE || code === CLOSE_BRACKET)) return false;
        if (code === LESS && this.shape === Shape.InlineJson) return false;
        return !this.jsonOpening || code === QUOTE || code === CLOSE_BRACE || code === SPACE || code === TAB || code === CARRIAGE_RETURN || this.opensSingle(code);
    }
  }

  /** Inside a near-miss, a function call's parentheses or a JSON object: strings, nesting, blank lines. */
  protected inside(input: string, i: number, base: number, code: number): number {
    if (this.inString !== 0) {
      if (this.escaped) this.escaped = false;
      else if (code === BACKSLASH) this.escaped = true;
      else if (code === this.inString) this.inString = 0;
      else if (code === LINE_FEED) {
        // A JSON call in the middle of a line ends on that line, unless its `{` ended it; a function call there, always.
        if (this.endsOnLine()) return this.abandon(i);
        this.newline(base + i);
      } else return stringRunEnd(input, i + 1, this.inString);
      return i + 1;
    }
    if (code === LINE_FEED) {
      if (this.endsOnLine()) return this.abandon(i);
      this.newline(base + i);
      if (this.blank) {
        this.endUnclosed(this.capture + input.slice(this.captureFrom, i));
        return this.abandon(i + 1);
      }
      this.blank = true;
      return i + 1;
    }
    if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) return i + 1;
    this.blank = false;
    if (this.mode === Mode.JsonObject && this.jsonOpening) {
      // A JSON object opens with its first key (in Python's quotes too, as a dict): anything else is prose in braces.
      if (code !== QUOTE && code !== CLOSE_BRACE && !this.opensSingle(code)) return this.abandon(i);
      this.jsonOpening = false;
      this.jsonSingle = code === APOSTROPHE;
    }
    if (!isStructural(code)) {
      if (this.shape !== Shape.InlineJson && this.shape !== Shape.InlineFunction) return plainRunEnd(input, i + 1);
      // JSON has no `<` outside its strings: a tag after braces in prose (`{"type": is … <tool_call>`) is read as such.
      return code === LESS ? this.abandon(i) : i + 1;
    }
    if (code === QUOTE || (code === APOSTROPHE && (this.mode === Mode.FunctionArgs || this.jsonSingle))) {
      this.inString = code;
      return i + 1;
    }
    if (this.mode === Mode.NearBody) {
      if ((code === CLOSE_BRACKET || code === FULLWIDTH_CLOSE) && this.depth === 0) this.completeAt(input, i + 1, base);
      else if (code === OPEN_BRACE || code === OPEN_BRACKET || code === OPEN_PARENTHESIS) this.depth++;
      else if (code === CLOSE_BRACE || code === CLOSE_BRACKET || code === CLOSE_PARENTHESIS) this.depth = Math.max(0, this.depth - 1);
      return i + 1;
    }
    const json = this.mode === Mode.JsonObject;
    if (code === (json ? OPEN_BRACE : OPEN_PARENTHESIS) || (json && code === OPEN_BRACKET)) {
      if (++this.depth > MAX_JSON_DEPTH) return this.abandon(i + 1);
    } else if (code === (json ? CLOSE_BRACE : CLOSE_PARENTHESIS) || (json && code === CLOSE_BRACKET)) {
      if (--this.depth === 0) {
        // After a marker token the call ends here (a closing token may follow on its line); else its line must end blank.
        if (json && this.jsonMarked) this.completeAt(input, i + 1, base);
        else if (json) {
          this.mode = Mode.JsonAfter;
          this.jsonClosedAt = base + i + 1;
        } else {
          this.completeAt(input, i + 1, base);
          // After a call at a line's start another may follow on its line; after one in the middle of a line, prose goes on.
          if (this.shape !== Shape.InlineFunction) {
            this.mode = Mode.CallAfter;
            this.separated = false;
          }
        }
      }
    }
    return i + 1;
  }

  /** Whether the candidate in the middle of a line ends at a line feed: a function call there, or a JSON call whose `{` did not end its line. */
  private endsOnLine(): boolean {
    return this.shape === Shape.InlineFunction || (this.shape === Shape.InlineJson && !this.inlineLines);
  }

  /**
   * Whether `code` is a `'` opening a JSON object's first key as a Python dict's: not in a JSON
   * array of calls, whose objects call-array.ts finds by their double-quoted strings.
   */
  protected opensSingle(code: number): boolean {
    return code === APOSTROPHE && this.shape !== Shape.JsonArray;
  }

  /**
   * After a function call at a line's start: blanks, at most one `,` or `;`, then a letter a call's
   * name may begin with, read from there as a line's beginning is, so the next call on the line
   * (`read_file(path="a"), read_file(path="b")`) opens as the first did. Anything else is text,
   * read again from where it stands.
   */
  protected callAfter(i: number, code: number): number {
    if (code === SPACE || code === TAB) return i + 1;
    if ((code === COMMA || code === SEMICOLON) && !this.separated) {
      this.separated = true;
      return i + 1;
    }
    this.idleAt(i);
    if (classOf(code) === Class.Letter && this.vocabulary.mayBeginCallName(code)) this.front = Front.Indent;
    return i;
  }
}
