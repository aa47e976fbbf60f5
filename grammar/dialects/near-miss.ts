/**
 * The part of the dialect recognizer (recognizer.ts) that reads what follows a `[` (or `［`) that is
 * not this language's own start: the words of a near-miss (`[FILE_OP action=read …]`), Mistral's
 * `[TOOL_CALLS]`, the opening of a JSON array of calls at a line's start (`[{…}, …]`), and a
 * Python list of calls on one line whose first call names nothing (`[foo(x=1), read_file(…)]`).
 */
import { CandidateReader, MAX_JSON_DEPTH } from "./candidates.js";
import { Shape } from "./finding.js";
import { beginsCallName, isNameCharacter } from "./near-name.js";
import {
  APOSTROPHE,
  BACKSLASH,
  CARRIAGE_RETURN,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  CLOSE_PARENTHESIS,
  COLON,
  COMMA,
  DOT,
  FULLWIDTH_CLOSE,
  LESS,
  LINE_FEED,
  Mode,
  mayOpenNearBody,
  OPEN_BRACE,
  OPEN_BRACKET,
  OPEN_PARENTHESIS,
  QUOTE,
  SPACE,
  stringRunEnd,
  TAB,
} from "./states.js";

/** Where a Python list whose first call names nothing stands, outside its calls' parentheses. */
const enum ListPart {
  /** A call's name: its characters, then `(`. */
  Name,
  /** After a call's `)`: blanks, then `,` or the list's `]`. */
  Between,
  /** After `,`: blanks, then the next call's name. */
  Next,
}

export abstract class NearMissReader extends CandidateReader {
  private listPart = ListPart.Name;

  /** A `[` (or `［`, `code`) at absolute `offset` while idle: the words after it are read (`nearName`). */
  protected openNearName(offset: number, code: number, atLineStart: boolean): void {
    this.mode = Mode.NearName;
    this.nearAtLineStart = atLineStart;
    this.startOffset = offset;
    this.startLine = this.line;
    this.startColumn = offset - this.lineStart + 1;
    this.capture = "";
    this.name = "";
    this.bracket = String.fromCharCode(code);
    this.near.reset();
  }

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
    if (!near.mayName() || (code === COLON && near.plain() && i + 1 < end && !mayOpenNearBody(input.charCodeAt(i + 1)))) return this.openList(input, i, code);
    // The words lie in this chunk when their `[` does: taken from it, not rebuilt from the reader's buffer.
    const wordsFrom = this.startOffset + 1 - this.base;
    const verdict = near.verdict(wordsFrom >= 0 ? input.slice(wordsFrom, i) : undefined);
    if (!verdict.named) return this.openList(input, i, code);
    if (code === CLOSE_BRACKET || code === FULLWIDTH_CLOSE) return this.abandon(i);
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
   * Words that name nothing ended at index `i`: a `(` after one word right after `[` may open a
   * Python list of calls, read to its `]` on this line (`callList`); anything else drops them.
   */
  private openList(input: string, i: number, code: number): number {
    if (code !== OPEN_PARENTHESIS || this.bracket !== "[" || !this.near.mayCall()) return this.abandon(i);
    const wordsFrom = this.startOffset + 1 - this.base;
    this.capture = this.bracket + this.near.text(wordsFrom >= 0 ? input.slice(wordsFrom, i) : undefined);
    this.captureFrom = i;
    this.mode = Mode.CallList;
    this.shape = Shape.NearMiss;
    this.listPart = ListPart.Name;
    this.depth = 0;
    this.inString = 0;
    this.escaped = false;
    return i;
  }

  /**
   * In a Python list whose first call names nothing: calls (a name, its parenthesised arguments)
   * separated by commas, up to the `]`, on one line. A line break, a `<` outside a string, or
   * anything else between the calls drops it there, and that character is read as text: only
   * what lay inside complete names and parentheses was passed over.
   */
  protected callList(input: string, i: number, base: number, code: number): number {
    if (code === LINE_FEED) return this.abandon(i);
    if (this.inString !== 0) {
      if (this.escaped) this.escaped = false;
      else if (code === BACKSLASH) this.escaped = true;
      else if (code === this.inString) this.inString = 0;
      else return stringRunEnd(input, i + 1, this.inString);
      return i + 1;
    }
    if (code === LESS) return this.abandon(i);
    if (this.depth > 0) {
      if (code === QUOTE || code === APOSTROPHE) this.inString = code;
      else if (code === OPEN_PARENTHESIS || code === OPEN_BRACKET || code === OPEN_BRACE) {
        if (++this.depth > MAX_JSON_DEPTH) return this.abandon(i);
      } else if ((code === CLOSE_PARENTHESIS || code === CLOSE_BRACKET || code === CLOSE_BRACE) && --this.depth === 0) this.listPart = ListPart.Between;
      return i + 1;
    }
    switch (this.listPart) {
      case ListPart.Name:
        if (code === OPEN_PARENTHESIS) this.depth = 1;
        else if (!isNameCharacter(code) && code !== DOT) return this.abandon(i);
        return i + 1;
      case ListPart.Between:
        if (code === COMMA) this.listPart = ListPart.Next;
        else if (code === CLOSE_BRACKET) this.completeAt(input, i + 1, base);
        else if (code !== SPACE && code !== TAB) return this.abandon(i);
        return i + 1;
      default:
        if (beginsCallName(code)) this.listPart = ListPart.Name;
        else if (code !== SPACE && code !== TAB) return this.abandon(i);
        return i + 1;
    }
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
