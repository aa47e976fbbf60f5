/**
 * The part of the dialect recognizer (recognizer.ts) that reads what follows a `[` (or `［`) that is
 * not this language's own start: the words of a near-miss (`[FILE_OP action=read …]`), Mistral's
 * `[TOOL_CALLS]`, the opening of a JSON array of calls at a line's start (`[{…}, …]`), and a
 * Python list of calls whose first call names nothing (`[foo(x=1), read_file(…)]`), or whose `[`
 * stands alone on its line (`[`, then one call a line, then `]`).
 */
import type { Position } from "../ast.js";
import { MAX_JSON_DEPTH } from "./candidates.js";
import { ColonActionPart, mayBeColonAction } from "./colon-action.js";
import { lineCallFindings, Shape, unclosedFindings } from "./finding.js";
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
  Front,
  FULLWIDTH_CLOSE,
  FULLWIDTH_OPEN,
  GREATER,
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

export abstract class NearMissReader extends ColonActionPart {
  private listPart = ListPart.Name;
  /** The list may run over lines: its `[` began its line (after an indentation). */
  private listLines = false;
  /** Only blanks since the list's last line feed, outside its calls' strings (false on the `[`'s own line). */
  private listLineBlank = false;
  /** Where the call being read starts (absolute) when it began its line, -1 when it did not. */
  private callStart = -1;
  /**
   * The absolute [start, end) of each complete call of a list over lines that began its line: when
   * the list is dropped, they are read as the calls at a line's start they are (`dropList`).
   */
  private readonly lineCalls: number[] = [];

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
    if (!near.mayName() || (code === COLON && near.plain() && i + 1 < end && !mayOpenNearBody(input.charCodeAt(i + 1)) && !mayBeColonAction(input, i + 1, this.nameLimit))) {
      return this.openList(input, i, code);
    }
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
      // `[NAME:` is this language's own start: only `[NAME:{…}]` and `[NAME:ACTION]` (colon-action.ts) are near-misses.
      this.openColon(this.vocabulary.protocol(verdict.raw));
      return i + 1;
    }
    this.mode = Mode.NearBody;
    return i;
  }

  /**
   * Words that name nothing ended at index `i`: a `(` after one word right after `[` (or the `.` of
   * `[functions.`) may open a Python list of calls, read to its `]` (`callList`: on this line, or over lines when the `[`
   * began its line); anything else drops them.
   */
  private openList(input: string, i: number, code: number): number {
    if (!this.mayOpenList(code)) return this.abandon(i);
    const wordsFrom = this.startOffset + 1 - this.base;
    this.capture = this.bracket + this.near.text(wordsFrom >= 0 ? input.slice(wordsFrom, i) : undefined);
    this.captureFrom = i;
    this.beginList(this.nearAtLineStart, false, -1);
    return i;
  }

  /**
   * Whether `code`, after words that name nothing right after `[`, goes on to a Python list's first
   * call: a `(` after one word, or the `.` after the tool namespace's word (`[functions.read_file(`).
   */
  protected mayOpenList(code: number): boolean {
    return this.bracket === "[" && ((code === OPEN_PARENTHESIS && this.near.mayCall()) || (code === DOT && this.near.isNamespace()));
  }

  /** A Python list's first call, its name begun at absolute `callStart` (-1: not at its line's start), is read from here. */
  private beginList(overLines: boolean, lineBlank: boolean, callStart: number): void {
    this.mode = Mode.CallList;
    this.shape = Shape.NearMiss;
    this.listPart = ListPart.Name;
    this.listLines = overLines;
    this.listLineBlank = lineBlank;
    this.callStart = callStart;
    this.lineCalls.length = 0;
    this.depth = 0;
    this.inString = 0;
    this.escaped = false;
  }

  /**
   * In a Python list of calls: calls (a name, its parenthesised arguments) separated by commas, up
   * to the `]` (a comma may come before it). On one line, unless its `[` began its line; there, line
   * breaks may come between the calls and in their arguments, and a blank line ends it. A line
   * break on one line, a `<` outside a string (in a call that began its line, one outside its
   * parentheses), or anything else between the calls drops it there, and that character is read as
   * text (`dropList`): only what lay inside complete names and parentheses was passed over.
   */
  protected callList(input: string, i: number, base: number, code: number): number {
    if (code === LINE_FEED) {
      if (!this.listLines || (this.depth === 0 && this.listPart === ListPart.Name)) return this.dropList(input, i, base, this.listLineBlank, !this.listLines);
      this.newline(base + i);
      if (this.inString !== 0) return i + 1;
      // A second line break with only blanks since the first: the blank line ends the list.
      if (this.listLineBlank) return this.dropList(input, i + 1, base, true, true);
      this.listLineBlank = true;
      return i + 1;
    }
    if (this.inString !== 0) {
      if (this.escaped) this.escaped = false;
      else if (code === BACKSLASH) this.escaped = true;
      else if (code === this.inString) this.inString = 0;
      else return stringRunEnd(input, i + 1, this.inString);
      return i + 1;
    }
    const blank = code === SPACE || code === TAB || code === CARRIAGE_RETURN;
    // A call at its line's start reads `<` as such a call does (line-fronts.ts, openFunction).
    if (code === LESS && (this.depth === 0 || this.callStart < 0)) return this.dropList(input, i, base);
    const opensLine = this.listLineBlank;
    if (!blank) this.listLineBlank = false;
    if (this.depth > 0) {
      if (code === QUOTE || code === APOSTROPHE) this.inString = code;
      else if (code === OPEN_PARENTHESIS || code === OPEN_BRACKET || code === OPEN_BRACE) {
        if (++this.depth > MAX_JSON_DEPTH) return this.dropList(input, i, base);
      } else if ((code === CLOSE_PARENTHESIS || code === CLOSE_BRACKET || code === CLOSE_BRACE) && --this.depth === 0) {
        this.listPart = ListPart.Between;
        if (this.callStart >= 0) this.lineCalls.push(this.callStart, base + i + 1);
        this.callStart = -1;
      }
      return i + 1;
    }
    switch (this.listPart) {
      case ListPart.Name:
        if (code === OPEN_PARENTHESIS) this.depth = 1;
        else if (!isNameCharacter(code) && code !== DOT) return this.wordsAmongCalls(input, i, base, opensLine);
        return i + 1;
      case ListPart.Between:
        if (code === COMMA) this.listPart = ListPart.Next;
        else if (code === CLOSE_BRACKET) this.completeAt(input, i + 1, base);
        else if (!blank) return this.wordsAmongCalls(input, i, base, opensLine);
        return i + 1;
      default:
        if (beginsCallName(code)) {
          this.listPart = ListPart.Name;
          this.callStart = opensLine ? base + i : -1;
        } else if (code === CLOSE_BRACKET) this.completeAt(input, i + 1, base);
        else if (!blank) return this.wordsAmongCalls(input, i, base, opensLine);
        return i + 1;
    }
  }

  /**
   * Other words between the calls of a list (after one complete call at least): past the line of
   * its `[` it is dropped there (`dropList`); on that line it is read on to its `]` on the line
   * (`listWords`), for the calls among its words (salvage.ts).
   */
  private wordsAmongCalls(input: string, i: number, base: number, opensLine: boolean): number {
    if (this.line !== this.startLine) return this.dropList(input, i, base, opensLine);
    this.mode = Mode.ListWords;
    this.depth = 0;
    return i;
  }

  /**
   * In a list on one line after other words came among its calls: on to its `]` outside
   * parentheses. A line break, or a character that may open a call of its own (`<`, `>`, `{`,
   * `[`, `［`), drops it there, and that character is read as text.
   */
  protected listWords(input: string, i: number, base: number, code: number): number {
    if (code === LINE_FEED || code === LESS || code === GREATER || code === OPEN_BRACE || code === OPEN_BRACKET || code === FULLWIDTH_OPEN) return this.abandon(i);
    if (code === OPEN_PARENTHESIS) this.depth++;
    else if (code === CLOSE_PARENTHESIS) this.depth = Math.max(0, this.depth - 1);
    else if (code === CLOSE_BRACKET && this.depth === 0) {
      this.shape = Shape.ListWords;
      this.completeAt(input, i + 1, base);
    }
    return i + 1;
  }

  /**
   * Drops the Python list being read; the character at index `i` is read again as text. What the
   * list passed over is read as it would have been without it: its complete calls that began their
   * lines as calls at a line's start (`lineCallFindings`), and the line being read from its
   * indentation (`lineBlank`: only blanks before `i` on it) or from the name of a call begun at its
   * start. `ended`: the list ended unclosed (a line break on one line, a blank line), so its other
   * calls are errors (`endUnclosedList`).
   */
  private dropList(input: string, i: number, base: number, lineBlank = this.listLineBlank, ended = false): number {
    const calls = this.lineCalls;
    const nameStart = this.depth === 0 && this.listPart === ListPart.Name ? this.callStart : -1;
    const unclosed = ended && this.depth === 0 && this.listPart !== ListPart.Name;
    const text = calls.length > 0 || nameStart >= 0 || unclosed ? this.capture + input.slice(this.captureFrom, i) : "";
    const first = this.found.length;
    if (unclosed) this.endUnclosedList(text);
    if (calls.length > 0) this.addLineCalls(text);
    this.inSourceOrder(first);
    this.abandon(i);
    if (nameStart >= 0) this.resumeLineName(text, nameStart - this.startOffset, base + i - this.startOffset, nameStart);
    else if (lineBlank) this.front = Front.Indent;
    return i;
  }

  /**
   * The near-miss being read (`Mode.NearBody`), or the JSON array of calls between its calls, ends
   * unclosed with the text `text`, at a blank line or the reply's end: a call it maps to is an
   * error whose hint is the command (`unclosedFindings`).
   */
  protected endUnclosed(text: string): void {
    if (this.mode !== Mode.NearBody && (this.shape !== Shape.JsonArray || this.depth !== 1)) return;
    const start: Position = { offset: this.startOffset, line: this.startLine, column: this.startColumn };
    const array = this.mode !== Mode.NearBody;
    const closer = array || this.bracket === "[" ? "]" : "］";
    for (const finding of unclosedFindings(text, closer, array ? Shape.JsonArray : this.shape, start, this.vocabulary)) {
      this.found.push(finding);
      this.lineOpen[this.lineOpenCount++] = finding;
    }
  }

  /** The text ended inside a Python list: its complete calls that began their lines (over lines) are read as such calls, the others are errors. */
  protected endList(): void {
    const first = this.found.length;
    if (this.depth === 0 && this.listPart !== ListPart.Name) this.endUnclosedList(this.capture);
    if (this.listLines && this.lineCalls.length > 0) this.addLineCalls(this.capture);
    this.inSourceOrder(first);
  }

  /**
   * Puts the findings from index `first` on in source order: a list's errors (`endUnclosedList`)
   * are found before its calls that began their lines (`addLineCalls`, which must come after, as it
   * empties the list of them the errors leave out), though a call may come before an error.
   */
  private inSourceOrder(first: number): void {
    const found = this.found;
    if (found.length - first < 2) return;
    const added = found.splice(first).sort((left, right) => left.start.offset - right.start.offset);
    for (const finding of added) found.push(finding);
  }

  /**
   * The Python list whose text (from its `[`) is `text` ended unclosed after a complete call: each
   * of its calls that maps to a command, but for those that began their lines over lines (which
   * run as such calls, `addLineCalls`), is an error whose hint is the command (`unclosedFindings`).
   */
  private endUnclosedList(text: string): void {
    const start: Position = { offset: this.startOffset, line: this.startLine, column: this.startColumn };
    const calls = this.lineCalls;
    for (const finding of unclosedFindings(text, "]", Shape.NearMiss, start, this.vocabulary)) {
      let runs = false;
      if (this.listLines) for (let k = 0; k < calls.length && !runs; k += 2) runs = calls[k] === finding.start.offset;
      if (runs) continue;
      this.found.push(finding);
      this.lineOpen[this.lineOpenCount++] = finding;
    }
  }

  /** Records the calls in `lineCalls` of the list whose text (from its `[`) is `text` as findings (`lineCallFindings`). */
  private addLineCalls(text: string): void {
    const items: [number, number][] = [];
    const calls = this.lineCalls;
    for (let k = 0; k < calls.length; k += 2) items.push([calls[k]! - this.startOffset, calls[k + 1]! - this.startOffset]);
    calls.length = 0;
    const start: Position = { offset: this.startOffset, line: this.startLine, column: this.startColumn };
    for (const finding of lineCallFindings(text, start, items, this.vocabulary)) {
      this.found.push(finding);
      this.lineOpen[this.lineOpenCount++] = finding;
    }
  }

  /**
   * The line being read began with the name `text` holds from index `from` to `to` (at absolute
   * `start`), which no `(` followed: the line's front is that name, as if it had been read there.
   */
  protected abstract resumeLineName(text: string, from: number, to: number, start: number): void;

  /**
   * Whether `code`, right after a near-miss's `[` and any blanks the name reader took, may lead to a
   * JSON array of calls or a Python list over lines: no word came, and `code` is a line break (the
   * `[` ends its line), or `{` when the `[` began its line.
   */
  protected mayOpenArray(code: number): boolean {
    return this.bracket === "[" && this.near.wordless() && (code === LINE_FEED || code === CARRIAGE_RETURN || (code === OPEN_BRACE && this.nearAtLineStart));
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

  /**
   * Between a `[` that ends its line (wherever it began) and the `{` of the array's first call, or
   * the name of a Python list's first call (the list then runs over lines): blanks and single line
   * breaks. Anything else drops it, and its line is read again from its indentation.
   */
  protected arrayOpen(i: number, base: number, code: number): number {
    if (code === OPEN_BRACE) return this.openArray(i);
    if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) return i + 1;
    if (code !== LINE_FEED) {
      if (this.blank && beginsCallName(code)) {
        this.beginList(true, false, base + i);
        return i;
      }
      this.abandon(i);
      if (this.blank) this.front = Front.Indent;
      return i;
    }
    this.newline(base + i);
    if (this.blank) return this.abandon(i + 1);
    this.blank = true;
    return i + 1;
  }
}
