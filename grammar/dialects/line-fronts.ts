/**
 * The part of the dialect recognizer (recognizer.ts) that reads a line's beginning, where `{`
 * and `NAME(` may open a call, and the words after a `[`: what a name there may be, and the
 * front (what the line holds so far) read back from a trigger or carried to the next chunk.
 */

import {
  Class,
  CLASSES,
  classOf,
  COLON,
  FLOWER,
  GREATER,
  Front,
  Mode,
  mayOpenNearBody,
  DOT,
  UNDERSCORE,
  LINE_FEED,
  OPEN_BRACE,
  OPEN_BRACKET,
  OPEN_PARENTHESIS,
  SPACE,
  TAB,
} from "./states.js";
import { mayBeColonAction } from "./colon-action.js";
import { Shape } from "./finding.js";
import { REACT_LABEL, StepReader } from "./steps.js";
import { beginsCallName, beginsToolCallsMarker, isNameCharacter } from "./near-name.js";
import { EMPTY_NAME_HASH, FUNCTOOLS, hashName, isNamespaceWord, PRINT_WRAPPER, REACT_ACTION, type CallVocabulary } from "./vocabulary.js";

/** What a character decides at a line's beginning, after its indentation. */
const enum LineOpener {
  /** Not a call: anything but the below. */
  Dead,
  /** A space or tab: the indentation goes on. */
  Indent,
  /** `{`: a JSON object may open. */
  Open,
  /** A letter a call name may begin with: the next character decides. */
  Letter,
}

export abstract class FrontReader extends StepReader {
  /** For a name front: its characters (the first `nameLength`), and its absolute start. */
  protected readonly nameBuffer: Uint16Array;
  protected nameLength = 0;
  protected nameStart = 0;
  /** Set by `frontAt` for a name: where its part in this chunk starts, and how many came before. */
  protected nameFrom = 0;
  protected nameCarried = 0;

  /**
   * For each ASCII character, what it decides at a line's beginning after its indentation
   * (`LineOpener`), as `lineFront` would find it.
   */
  private readonly lineOpeners: Uint8Array;

  constructor(vocabulary: CallVocabulary) {
    super(vocabulary);
    this.nameBuffer = new Uint16Array(this.nameLimit + 1);
    this.lineOpeners = new Uint8Array(128);
    for (let code = 0; code < 128; code++) {
      if (code === SPACE || code === TAB) this.lineOpeners[code] = LineOpener.Indent;
      else if (code === OPEN_BRACE || code === GREATER) this.lineOpeners[code] = LineOpener.Open;
      else if (classOf(code) === Class.Letter && vocabulary.mayBeginCallName(code)) this.lineOpeners[code] = LineOpener.Letter;
    }
  }

  /** Whether a line whose name begins with `first`, then `second`, may go on to a call (as `lineFront`'s two-character check). */
  private mayContinueLine(first: number, second: number): boolean {
    const kind = classOf(second);
    return (kind !== Class.Letter && kind !== Class.NameRest) || this.vocabulary.mayContinueCallName(first, second);
  }

  /** Where the name that begins at index `from` ends: at its first character that is not a name's, or after `nameLimit + 1` characters. */
  private nameEnd(input: string, from: number): number {
    const limit = Math.min(input.length, from + this.nameLimit + 1);
    let i = from;
    for (; i < limit; i++) {
      const code = input.charCodeAt(i);
      if (code >= 128 || (CLASSES[code] !== Class.Letter && CLASSES[code] !== Class.NameRest)) break;
    }
    return i;
  }

  /**
   * From the line feed at `feeds[next]` (absolute offsets, this chunk's), with nothing waiting
   * for a line's end: passes over the lines whose beginning rules out a call, as `mayOpenLine`
   * and `lineFront` would decide it (no indentation, `{` or letter a call name may begin with;
   * two characters no such name begins with; a name not followed by `(`, or one that cannot be
   * registered), and counts them. It stops at a line feed at or after index `limit` (the next
   * trigger), at a line it cannot settle by itself (one that may open a call, reaches the chunk's
   * last character, or holds a character past ASCII where it is read), and at the list's end.
   * Returns the index in `feeds` where it stopped; the line after that feed is read as before.
   */
  protected passDeadLines(input: string, feeds: Int32Array, next: number, base: number, limit: number): number {
    const openers = this.lineOpeners;
    const end = input.length - 1;
    const first = next;
    while (next < feeds.length) {
      const at = feeds[next]! - base;
      if (at >= limit) break;
      let j = at + 1;
      let code = j < end ? input.charCodeAt(j) : 0;
      while (code === SPACE || code === TAB) code = ++j < end ? input.charCodeAt(j) : 0;
      // The chunk's end, or a character the tables do not hold: the caller reads that line.
      if (j >= end || code >= 128) break;
      const opener = openers[code]!;
      if (opener === LineOpener.Open) break;
      // `[{`, a `[` before blanks or `[TOOL_CALLS]` may lead to a JSON array of calls: the line is read as before, so its `[` knows it begins the line.
      if (code === OPEN_BRACKET && mayFollowLineStartBracket(input.charCodeAt(j + 1))) break;
      if (opener === LineOpener.Letter && this.mayContinueLine(code, input.charCodeAt(j + 1))) {
        // A name, then `(`, opens a call when the name may be registered; anything else ends the line's chance.
        const nameEnd = this.nameEnd(input, j);
        const after = input.charCodeAt(nameEnd);
        if (
          nameEnd === input.length ||
          (after === OPEN_PARENTHESIS && (this.nameMay(0, input, j, nameEnd) || isWord(input, j, nameEnd, PRINT_WRAPPER))) ||
          (after === COLON && (isWord(input, j, nameEnd, REACT_ACTION) || this.nameMay(0, input, j, nameEnd))) ||
          (after === OPEN_BRACKET && isWord(input, j, nameEnd, FUNCTOOLS))
        ) {
          break;
        }
      }
      next++;
    }
    if (next > first) {
      const last = feeds[next - 1]! - base;
      this.line += next - first;
      this.lineStart = base + last + 1;
      this.idleFrom = last + 1;
      // A line that begins with `[` after its indentation: the `[` must know it (a Python list there may run over lines).
      let j = last + 1;
      while (input.charCodeAt(j) === SPACE || input.charCodeAt(j) === TAB) j++;
      this.front = input.charCodeAt(j) === OPEN_BRACKET ? Front.Indent : Front.Dead;
    }
    return next;
  }

  /** Whether the name in `nameBuffer` may be registered (vocabulary.mayResolve). */
  protected bufferedNameMay(): boolean {
    return this.nameMay(this.nameLength, "", 0, 0);
  }

  /** Whether the name made of `carried` characters of `nameBuffer`, then `input` from `from` to `to`, may be registered. */
  protected nameMay(carried: number, input: string, from: number, to: number): boolean {
    let hash = EMPTY_NAME_HASH;
    let head = EMPTY_NAME_HASH;
    for (let k = 0; k < carried + to - from; k++) {
      const code = k < carried ? this.nameBuffer[k]! : input.charCodeAt(from + k - carried);
      if (code === DOT || code === UNDERSCORE) head = hash;
      hash = hashName(hash, code);
    }
    return this.vocabulary.mayResolve(hash, head);
  }

  /**
   * Whether the name made of the first `carried` characters of `nameBuffer`, then `input` from
   * `from` to `to`, is `word`.
   */
  protected nameIs(word: string, carried: number, input: string, from: number, to: number): boolean {
    if (carried + to - from !== word.length) return false;
    for (let k = 0; k < word.length; k++) {
      const code = k < carried ? this.nameBuffer[k]! : input.charCodeAt(from + k - carried);
      if (code !== word.charCodeAt(k)) return false;
    }
    return true;
  }

  /**
   * FireFunction's `functools` ended its line's name at the `[` at index `i`: a marker, so the
   * `[` opens as at a line's start, and a JSON array of calls there ends with its `]`.
   */
  protected markFunctools(i: number): number {
    this.markedLine = this.line;
    this.front = Front.Indent;
    this.idleFrom = i;
    return i;
  }

  /**
   * The line being read began with the name `text` holds from index `from` to `to` (at absolute
   * `start`; a dropped Python list read it): the front becomes what `frontStep` makes of that name
   * after an indentation, a name or dead.
   */
  protected resumeLineName(text: string, from: number, to: number, start: number): void {
    const first = text.charCodeAt(from);
    this.front = Front.Dead;
    if (to - from > this.nameLimit || classOf(first) !== Class.Letter || !this.vocabulary.mayBeginCallName(first)) return;
    if (to - from > 1 && !this.vocabulary.mayContinueCallName(first, text.charCodeAt(from + 1))) return;
    for (let k = from; k < to; k++) this.nameBuffer[k - from] = text.charCodeAt(k);
    this.nameLength = to - from;
    this.nameStart = start;
    this.front = Front.Name;
  }

  /** Whether a line beginning with `code` may begin a call: an indentation, `{`, `✿`, `>`, or a letter a call name may begin with. */
  protected mayOpenLine(code: number): boolean {
    return (
      code === SPACE || code === TAB || code === OPEN_BRACE || code === FLOWER || code === GREATER || (classOf(code) === Class.Letter && this.vocabulary.mayBeginCallName(code))
    );
  }

  /**
   * After a `[` at `from - 1`: false when the near-miss reader is sure to drop the words after it
   * (up to three spaces, then a name): they name nothing by their first character (`[x]`,
   * `[NOTE]`, `[ ]`) or their first two (`[docs]`), and are no word right before a `(` (which may
   * open a Python list of calls, `wordCalls`); or they are this language's own start
   * (`[FILE_OP:action=…`, as `nearName` decides it). The words hold no trigger, so what the
   * reader would have read is searched as text.
   */
  protected wordsMayName(input: string, from: number): boolean {
    const end = input.length;
    let j = from;
    let code = 0;
    while (j < end && j < from + 3 && ((code = input.charCodeAt(j)) === SPACE || code === TAB)) j++;
    if (j >= end) return true;
    code = input.charCodeAt(j);
    // `[{`, or a `[` ending its line, may open a JSON array of calls at a line's start, as `nearName` decides.
    if (code === OPEN_BRACE || code === LINE_FEED || code === CARRIAGE_RETURN) return true;
    if (code === SPACE || code === TAB) return false;
    if (!this.vocabulary.mayBeginName(code) && !beginsToolCallsMarker(code)) return j === from && this.wordCalls(input, j, 1);
    if (j + 1 >= end) return true;
    const second = input.charCodeAt(j + 1);
    if (!isNameCharacter(second)) return true;
    if (!this.vocabulary.mayContinueName(code, second) && !beginsToolCallsMarker(code, second)) return j === from && this.wordCalls(input, j, 2);
    if (j > from) return true;
    let k = j + 2;
    while (k < end && k - j <= this.nameLimit && isNameCharacter(input.charCodeAt(k))) k++;
    const colon = k + 1 < end && k - j <= this.nameLimit && input.charCodeAt(k) === COLON;
    return !(colon && !mayOpenNearBody(input.charCodeAt(k + 1)) && !mayBeColonAction(input, k + 1, this.nameLimit));
  }

  /**
   * Whether the word at index `from`, right after a `[`, is followed by `(` (or reaches the chunk's
   * end first), as the near-miss reader takes it: one that begins with a letter or `_`, of at most
   * `nameLimit + 1` name characters, its first `known` already seen to be name characters, or is
   * a tool namespace's word before its `.`. Such a `[foo(` or `[functions.` may open a Python
   * list of calls (near-miss.ts).
   */
  private wordCalls(input: string, from: number, known: number): boolean {
    const end = input.length;
    if (!beginsCallName(input.charCodeAt(from))) return false;
    const limit = from + this.nameLimit + 1;
    let k = from + known;
    while (k < end && k < limit && isNameCharacter(input.charCodeAt(k))) k++;
    return k === end || input.charCodeAt(k) === OPEN_PARENTHESIS || (input.charCodeAt(k) === DOT && isNamespaceWord(input, from, k));
  }

  /**
   * The front at index `i` of this chunk, read back to `idleFrom` (where `front` holds). For a
   * name, sets `nameFrom` (where its part in this chunk starts) and `nameCarried` (how many of
   * its characters came before, in `nameBuffer`).
   */
  protected frontAt(input: string, i: number): Front {
    const floor = this.idleFrom;
    let j = i;
    while (j > floor && classOf(input.charCodeAt(j - 1)) >= Class.Letter && classOf(input.charCodeAt(j - 1)) <= Class.NameRest) {
      j--;
      if (i - j > this.nameLimit) return Front.Dead;
    }
    const nameFrom = j;
    while (j > floor && (input.charCodeAt(j - 1) === SPACE || input.charCodeAt(j - 1) === TAB)) j--;
    let before = this.front;
    if (j > floor) {
      if (input.charCodeAt(j - 1) !== LINE_FEED) return Front.Dead;
      before = Front.Indent;
    }
    this.nameFrom = nameFrom;
    if (nameFrom === i) {
      // No name characters since the floor: spaces end a name, and keep an indentation.
      if (j === i && before === Front.Name) this.nameCarried = this.nameLength;
      return j === i || before === Front.Indent ? before : Front.Dead;
    }
    if (j < nameFrom || before === Front.Indent) {
      if (before !== Front.Indent || classOf(input.charCodeAt(nameFrom)) !== Class.Letter) return Front.Dead;
      this.nameCarried = 0;
      return Front.Name;
    }
    if (before !== Front.Name || this.nameLength + (i - nameFrom) > this.nameLimit) return Front.Dead;
    this.nameCarried = this.nameLength;
    return Front.Name;
  }

  /** At the chunk's end while idle: the front there, kept for the next chunk. */
  protected carryFront(input: string, base: number): void {
    const end = input.length;
    const front = this.frontAt(input, end);
    if (front === Front.Name) {
      const carried = this.nameCarried;
      if (carried === 0) this.nameStart = base + this.nameFrom;
      for (let k = this.nameFrom; k < end; k++) this.nameBuffer[carried + k - this.nameFrom] = input.charCodeAt(k);
      this.nameLength = carried + end - this.nameFrom;
    }
    this.front = front;
  }

  /**
   * At `:` while idle: a ReAct step when `Action` stands alone before it at the line's start; a
   * command written without its brackets when a protocol's name as registered does (`FILE_OP:`, steps.ts).
   */
  protected openReact(input: string, i: number, base: number): number {
    if (!this.nameStandsBefore(input, i)) return i + 1;
    const name = this.nameBefore(input, i);
    if (name !== REACT_ACTION) {
      if (!this.namesProtocolAsRegistered(name)) return i + 1;
      this.beginAtName(Mode.BareKey, i, base, name);
      this.shape = Shape.BareLine;
      this.matched = 0;
      this.boundedLength = 0;
      return i + 1;
    }
    this.beginAtName(Mode.ReactAction, i, base, name);
    this.shape = Shape.React;
    this.closer = REACT_LABEL;
    this.boundedLength = 0;
    return i + 1;
  }

  /** `FILE_OP`, or `FILE_OP.read` (an action of it after a `.`), the protocol's name spelled as registered. */
  private namesProtocolAsRegistered(name: string): boolean {
    const dot = name.indexOf(".");
    const protocolName = dot < 0 ? name : name.slice(0, dot);
    const protocol = this.vocabulary.protocol(protocolName);
    return protocol?.name === protocolName && (dot < 0 || Object.hasOwn(protocol.actions, name.slice(dot + 1).toLowerCase()));
  }

  /** At `i` (a `(` or `:`) while idle: whether a name stands alone before it at the line's start; reading goes on after `i` either way. */
  private nameStandsBefore(input: string, i: number): boolean {
    const front = this.frontAt(input, i);
    this.front = Front.Dead;
    this.idleFrom = i + 1;
    return front === Front.Name;
  }

  /** The name `nameStandsBefore` found before index `i`: the characters carried from earlier chunks, then this chunk's. */
  private nameBefore(input: string, i: number): string {
    const carried = this.nameCarried;
    const before = carried > 0 ? String.fromCharCode.apply(null, this.nameBuffer.subarray(0, carried) as unknown as number[]) : "";
    return before + input.slice(this.nameFrom, i);
  }

  /** Opens a candidate in `mode` that starts where the name before index `i` starts, its capture that name. */
  private beginAtName(mode: Mode, i: number, base: number, name: string): void {
    const carried = this.nameCarried;
    this.begin(mode, i, base);
    this.startOffset = carried > 0 ? this.nameStart : base + this.nameFrom;
    this.startColumn = this.startOffset - this.lineStart + 1;
    this.capture = name;
  }

  /** At `(` while idle: a function call when a registered name stands alone before it at the line's start. */
  protected openFunction(input: string, i: number, base: number): number {
    if (!this.nameStandsBefore(input, i) || !this.nameMay(this.nameCarried, input, this.nameFrom, i)) return i + 1;
    const name = this.nameBefore(input, i);
    if (!this.vocabulary.callsByName(name)) return i + 1;
    this.beginAtName(Mode.FunctionArgs, i, base, name);
    this.readArguments(name, Shape.Function);
    return i + 1;
  }

  /** The candidate just begun is a call named `name` in `shape`: its arguments are read from after its `(`. */
  protected readArguments(name: string, shape: Shape): void {
    this.name = name;
    this.shape = shape;
    this.depth = 1;
    this.inString = 0;
    this.escaped = false;
    this.blank = false;
  }
}

const CARRIAGE_RETURN = 0x0d;

/** Whether `code`, right after a `[` that begins a line, may lead to a JSON array of calls: `{`, a blank, a line break, or the first letter of `[TOOL_CALLS]`. */
function mayFollowLineStartBracket(code: number): boolean {
  return code === OPEN_BRACE || code === SPACE || code === TAB || code === LINE_FEED || code === CARRIAGE_RETURN || beginsToolCallsMarker(code);
}

/** Whether `input` from `from` to `to` is `word` (`Action` before a ReAct step's `:`, `functools` before FireFunction's `[`). */
function isWord(input: string, from: number, to: number, word: string): boolean {
  if (to - from !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (input.charCodeAt(from + k) !== word.charCodeAt(k)) return false;
  return true;
}
