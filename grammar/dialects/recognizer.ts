/**
 * Finds the calls of other dialects (§4a) in text that arrives in chunks of any size: a
 * resumable state machine beside the scanner. It only finds where a candidate starts and ends;
 * finding.ts reads and maps the finished candidate, and call-scanner.ts decides by the region
 * log whether it is live (a call) or inert (a mention).
 *
 * Candidates: `<tool_call>…</tool_call>` (and the other wrappers of JSON calls), `<function=NAME>…</function>`,
 * `<NAME>…</NAME>` for a registered name, model tokens (`<|…|>`, `<｜…｜>`, `[TOOL_CALLS]`: tokens.ts);
 * at a line start, a JSON object (`{"…`) on lines of its own, `NAME(…)` (after Gemini's `print(` too),
 * `Action:` and `✿FUNCTION✿:` steps (steps.ts) and `functools[`; Functionary's `>>>NAME` anywhere
 * (steps.ts); and `[`/`［` followed by a registered name in a shape that is not this language's own,
 * or by a Python list of calls (near-miss.ts); in the middle of a line, a `{` whose first key is a
 * JSON call's (inline-json.ts) and a registered name right before a `(` (inline-call.ts).
 *
 * Between candidates it jumps from one trigger character (`<`, `>`, `[`, `［`, `{`, `(`, line feed)
 * to the next with `indexOf`. Each line's beginning (the "front": an indentation, or an indentation
 * and a name) is read up to what decides it; a `(` in the middle of a line reads back the name
 * before it; a name is checked by its hash before any string is made. One-character chunks take
 * `quiet` (quiet.ts).
 */
import { Class, classOf, Front, Mode, COLON, LESS, OPEN_BRACE, OPEN_BRACKET, OPEN_PARENTHESIS, FULLWIDTH_OPEN, FLOWER, GREATER, SPACE, TAB } from "./states.js";
import { readsUnclosed, Shape } from "./finding.js";
import { QuietReader } from "./quiet.js";
import { FUNCTOOLS, PRINT_WRAPPER, REACT_ACTION } from "./vocabulary.js";

export type { DialectFinding } from "./finding.js";

/** Chunks up to this length are read a character at a time, as `quiet` reads them. */
export const SMALL_CHUNK = 16;

export class DialectRecognizer extends QuietReader {
  /** Where the next of each trigger is in the chunk being read (-2: not searched, -1: none). */
  private nextLess = -2;
  private nextGreater = -2;
  private nextBracket = -2;
  private nextWide = -2;
  private nextBrace = -2;
  private nextParenthesis = -2;
  private nextLine = -2;
  /**
   * Every line feed of the chunk being read before absolute offset `lineFeedsUntil` (absolute
   * offsets), when the scanner handed them over; the next to look at.
   */
  private lineFeeds: Int32Array | undefined;
  private lineFeedsNext = 0;
  private lineFeedsUntil = 0;

  /**
   * Reads a chunk as `feed` does, given every line feed in it before absolute offset `until`
   * (absolute offsets, increasing), as the scanner passed them: it need not search for those.
   */
  feedWithLineFeeds(input: string, lineFeeds: Int32Array, until: number): void {
    this.lineFeeds = lineFeeds;
    this.lineFeedsNext = 0;
    this.lineFeedsUntil = until;
    this.feed(input);
    this.lineFeeds = undefined;
  }

  feed(input: string): void {
    const base = this.total;
    this.base = base;
    this.total += input.length;
    this.idleFrom = 0;
    this.nextFeed = -2;
    const end = input.length;
    const small = end <= SMALL_CHUNK;
    if (!small) {
      this.nextLess = this.nextGreater = this.nextBracket = this.nextWide = this.nextBrace = this.nextParenthesis = this.nextLine = -2;
    }
    let i = 0;
    while (i < end) {
      if (this.mode !== Mode.Idle) i = this.step(input, i, base, input.charCodeAt(i));
      else if (small) i = this.idleSmall(input, i, base);
      else i = this.idle(input, i, base);
    }
    if (this.mode === Mode.Idle) this.carryFront(input, base);
    else if (this.mode !== Mode.NearName) this.capture += input.slice(this.captureFrom, end);
    this.captureFrom = 0;
    this.keepRecent(input, base);
  }

  /** The text is complete: a candidate still open is finished or dropped. */
  finish(): void {
    if (this.mode === Mode.JsonAfter || this.mode === Mode.ReactInput || this.mode === Mode.ReactText || this.mode === Mode.BareLine) this.complete(this.total);
    else if (this.mode === Mode.TagBody && this.shape !== Shape.Element) {
      // An unclosed <tool_call> is read only when a call follows its opener; else it is prose about one.
      const body = this.capture.slice(this.capture.indexOf(">") + 1).trimStart();
      if (readsUnclosed(this.shape, body)) this.complete(this.total);
    } else if (this.mode === Mode.CallList) this.endList();
    else if (this.mode === Mode.NearBody || this.mode === Mode.JsonObject) this.endUnclosed(this.capture);
    this.mode = Mode.Idle;
    this.capture = "";
    this.endLineOpen(-1);
  }

  /**
   * One character while idle, at absolute `offset` (in `input`, which starts at absolute `base`):
   * the front follows it, and a `[` opens a near-miss's name. False (nothing changed) for a
   * character that may open more: `<`, `{`, `(` after a name that may be registered.
   */
  protected frontStep(code: number, offset: number, input: string, base: number): boolean {
    const kind = classOf(code);
    switch (kind) {
      case Class.Trigger:
        if (code === GREATER) {
          // After an indentation, Functionary's step at a line's start; elsewhere, the third `>` of a run may open one.
          if (this.front === Front.Indent) return false;
          this.front = Front.Dead;
          return !this.greaterOpens(offset);
        }
        if (code === OPEN_PARENTHESIS && this.front === Front.Name && this.nameIs(PRINT_WRAPPER, this.nameLength, "", 0, 0)) {
          // Gemini's `print(` at a line's start: the call inside it opens as at the line's start.
          this.front = Front.Indent;
          return true;
        }
        if (code === LESS || code === OPEN_BRACE || (code === OPEN_PARENTHESIS && this.front === Front.Name && this.bufferedNameMay())) {
          return false;
        }
        // In the middle of a line, a call whose name may be registered (inline-call.ts).
        if (code === OPEN_PARENTHESIS && this.front === Front.Dead && this.inlineNameLength(input, base, offset) > 0) return false;
        if (code === OPEN_BRACKET && this.front === Front.Name && this.nameIs(FUNCTOOLS, this.nameLength, "", 0, 0)) {
          this.markedLine = this.line;
          this.openNearName(offset, code, true);
        } else if (code === OPEN_BRACKET || code === FULLWIDTH_OPEN) this.openNearName(offset, code, this.front === Front.Indent);
        this.front = Front.Dead;
        return true;
      case Class.Other:
        // `Action:` at a line's start opens a ReAct step, `FILE_OP:` a command without its brackets (line-fronts.ts, openReact), `✿` Qwen-Agent's (trigger).
        if (code === COLON && this.front === Front.Name && (this.nameIs(REACT_ACTION, this.nameLength, "", 0, 0) || this.bufferedNameMay())) return false;
        if (code === FLOWER && this.front === Front.Indent) return false;
        this.front = Front.Dead;
        return true;
      case Class.LineFeed:
        this.newline(offset);
        this.front = Front.Indent;
        return true;
      case Class.Space:
        if (this.front === Front.Name) this.front = Front.Dead;
        return true;
    }
    if (this.front === Front.Indent) {
      if (kind !== Class.Letter || !this.vocabulary.mayBeginCallName(code)) {
        this.front = Front.Dead;
        return true;
      }
      this.front = Front.Name;
      this.nameStart = offset;
      this.nameLength = 0;
    }
    if (this.front === Front.Name) {
      if (this.nameLength >= this.nameLimit || (this.nameLength === 1 && !this.vocabulary.mayContinueCallName(this.nameBuffer[0]!, code))) this.front = Front.Dead;
      else this.nameBuffer[this.nameLength++] = code;
    }
    return true;
  }

  /** Idle in a small chunk: a character at a time. */
  private idleSmall(input: string, i: number, base: number): number {
    const end = input.length;
    while (i < end) {
      const code = input.charCodeAt(i);
      if (!this.frontStep(code, base + i, input, base)) {
        this.idleFrom = i;
        return this.trigger(input, i, base, code);
      }
      i++;
      if (this.mode !== Mode.Idle) return i;
    }
    this.idleFrom = end;
    return end;
  }

  /**
   * Idle in a long chunk: to the next `<`, `[`, `［`, `{` or line feed. A line's beginning is read
   * once (`lineFront`), so `(`, which only opens a call there, is never searched for.
   */
  private idle(input: string, i: number, base: number): number {
    const end = input.length;
    if (this.front !== Front.Dead) {
      i = this.lineFront(input, i, base);
      if (i >= end || this.mode !== Mode.Idle) return i;
    }
    for (;;) {
      const next = this.nextTrigger(input, i, base);
      if (next < 0) return -next - 1;
      if (next === end) return end;
      const code = input.charCodeAt(next);
      if (code === GREATER || code === OPEN_PARENTHESIS) {
        // In the middle of a line: a line's beginning was read above.
        i = code === GREATER ? this.midLineGreater(next, base) : this.openInlineCall(input, next, base);
        if (this.mode !== Mode.Idle) return i;
        continue;
      }
      // A `[` whose words are sure to be dropped is passed over here, without a return to `feed`.
      if ((code !== OPEN_BRACKET && code !== FULLWIDTH_OPEN) || this.wordsMayName(input, next + 1)) return this.trigger(input, next, base, code);
      this.front = Front.Dead;
      i = next + 1;
      this.idleFrom = i;
    }
  }

  /**
   * From index `i` while idle, with the front dead: the line feeds before the next `<`, `[`, `［`
   * or `{` (the chunk's end when there is none) are read, with each line's beginning. Returns that
   * trigger's index, or -(where to go on) - 1 when a line's beginning opened a candidate or the
   * chunk ended on one.
   */
  private nextTrigger(input: string, i: number, base: number): number {
    const end = input.length;
    let next = end;
    if (this.nextLess !== -1 && this.nextLess < i) this.nextLess = input.indexOf("<", i);
    if (this.nextLess >= 0) next = this.nextLess;
    if (this.nextGreater !== -1 && this.nextGreater < i) this.nextGreater = input.indexOf(">", i);
    if (this.nextGreater >= 0 && this.nextGreater < next) next = this.nextGreater;
    if (this.nextBracket !== -1 && this.nextBracket < i) this.nextBracket = input.indexOf("[", i);
    if (this.nextBracket >= 0 && this.nextBracket < next) next = this.nextBracket;
    if (this.nextWide !== -1 && this.nextWide < i) this.nextWide = input.indexOf("［", i);
    if (this.nextWide >= 0 && this.nextWide < next) next = this.nextWide;
    if (this.nextBrace !== -1 && this.nextBrace < i) this.nextBrace = input.indexOf("{", i);
    if (this.nextBrace >= 0 && this.nextBrace < next) next = this.nextBrace;
    const other = next;
    if (this.nextParenthesis !== -1 && this.nextParenthesis < i) this.nextParenthesis = this.callParenthesisAfter(input, i, base);
    if (this.nextParenthesis >= 0 && this.nextParenthesis < next) next = this.nextParenthesis;
    let lineFeed = this.nextLine;
    if (lineFeed !== -1 && lineFeed < i) lineFeed = this.lineFeedAfter(input, i, base);
    while (lineFeed >= 0 && lineFeed < next) {
      const feeds = this.lineFeeds;
      if (feeds !== undefined && this.lineOpenCount === 0 && this.lineFeedsNext < feeds.length) {
        // The scanner's line feeds: the lines that cannot open a call are passed over in one loop.
        const passed = this.lineFeedsNext;
        this.lineFeedsNext = this.passDeadLines(input, feeds, passed, base, next);
        if (this.lineFeedsNext > passed) {
          lineFeed = this.lineFeedAfter(input, this.idleFrom, base);
          if (lineFeed < 0 || lineFeed >= next) break;
        }
      }
      // Findings wait for the end of their line: the first line feed settles them.
      if (this.lineOpenCount > 0) this.newline(base + lineFeed);
      else {
        this.line++;
        this.lineStart = base + lineFeed + 1;
      }
      i = lineFeed + 1;
      this.idleFrom = i;
      if (i === end) {
        this.nextLine = lineFeed;
        this.front = Front.Indent;
        return -i - 1;
      }
      const first = input.charCodeAt(i);
      if (first === OPEN_BRACKET) {
        // The next trigger begins the line: its front is an indentation, for a `[{` (see nearName).
        this.front = Front.Indent;
      } else if (this.mayOpenLine(first)) {
        // Its beginning is read here; it holds no `<` or `[`, so `next` still stands, unless it was a `(` the line's beginning read past.
        this.front = Front.Indent;
        i = this.lineFront(input, i, base);
        if (i >= end || this.mode !== Mode.Idle) {
          this.nextLine = lineFeed;
          return -i - 1;
        }
        if (next < i) {
          this.nextParenthesis = this.callParenthesisAfter(input, i, base);
          next = this.nextParenthesis >= 0 && this.nextParenthesis < other ? this.nextParenthesis : other;
        }
      } else {
        // The line's first character rules out a call at its beginning (as lineFront would find): on to its end.
        this.front = Front.Dead;
      }
      lineFeed = this.lineFeedAfter(input, i, base);
    }
    this.nextLine = lineFeed;
    return next;
  }

  /** The index of the first line feed at or after index `i` of the chunk, -1: none. */
  private lineFeedAfter(input: string, i: number, base: number): number {
    const feeds = this.lineFeeds;
    if (feeds === undefined) return input.indexOf("\n", i);
    let next = this.lineFeedsNext;
    const at = base + i;
    while (next < feeds.length && feeds[next]! < at) next++;
    this.lineFeedsNext = next;
    if (next < feeds.length) return feeds[next]! - base;
    return input.indexOf("\n", Math.max(i, this.lineFeedsUntil - base));
  }

  /**
   * At index `i`, where the line so far is an indentation (or an indentation and a name): reads
   * on to what decides it. `{` after an indentation opens a JSON object, `(` right after a name a
   * function call (`print(` before it reads on to the call inside); anything else makes the line's
   * front dead. Returns where reading goes on.
   */
  private lineFront(input: string, i: number, base: number): number {
    const end = input.length;
    let code = 0;
    for (;;) {
      if (this.front === Front.Indent) {
        while (i < end && ((code = input.charCodeAt(i)) === SPACE || code === TAB)) i++;
        if (i === end) return end;
        if (code === OPEN_BRACE) return this.trigger(input, i, base, code);
        if (code === FLOWER || code === GREATER) return this.openStep(i, base, code);
        // A `[` is the next trigger: the front stays an indentation, so a `[{` there may open a JSON array of calls.
        if (code === OPEN_BRACKET) return i;
        if (classOf(code) !== Class.Letter || !this.vocabulary.mayBeginCallName(code)) {
          this.front = Front.Dead;
          return i;
        }
      }
      // A name that begins in this chunk is checked here by its hash; one carried over, by openFunction.
      const nameFrom = this.front === Front.Indent ? i : -1;
      const restFrom = i;
      if (nameFrom >= 0 && i + 1 < end) {
        const second = input.charCodeAt(i + 1);
        const kind = classOf(second);
        if ((kind === Class.Letter || kind === Class.NameRest) && !this.vocabulary.mayContinueCallName(input.charCodeAt(i), second)) {
          // No callable name begins with these two characters: the rest of the name holds no trigger.
          this.front = Front.Dead;
          return i + 1;
        }
      }
      const limit = i + this.nameLimit + 1;
      while (i < end && i < limit) {
        const kind = classOf((code = input.charCodeAt(i)));
        if (kind !== Class.Letter && kind !== Class.NameRest) break;
        i++;
      }
      if (i === end) return end;
      const carried = nameFrom < 0 ? this.nameLength : 0;
      const from = nameFrom < 0 ? restFrom : nameFrom;
      if (code === OPEN_PARENTHESIS && this.nameIs(PRINT_WRAPPER, carried, input, from, i)) {
        // Gemini's `print(` at a line's start: the call inside it opens as at the line's start.
        this.front = Front.Indent;
        this.idleFrom = ++i;
        continue;
      }
      if (code === OPEN_PARENTHESIS && (nameFrom < 0 || this.nameMay(0, input, nameFrom, i))) return this.openFunction(input, i, base);
      if (code === COLON) return this.openReact(input, i, base);
      if (code === OPEN_BRACKET && this.nameIs(FUNCTOOLS, carried, input, from, i)) return this.markFunctools(i);
      this.front = Front.Dead;
      return i;
    }
  }

  /** At a trigger character `code` (index `i`) while idle. */
  private trigger(input: string, i: number, base: number, code: number): number {
    if (code === GREATER && this.front !== Front.Indent) return this.openGreater(i, base);
    if (code === OPEN_PARENTHESIS) return this.front === Front.Name ? this.openFunction(input, i, base) : this.openInlineCall(input, i, base);
    if (code === COLON) return this.openReact(input, i, base);
    if (code === FLOWER || code === GREATER) return this.openStep(i, base, code);
    const front = code === OPEN_BRACE || code === OPEN_BRACKET ? this.frontAt(input, i) : Front.Dead;
    this.front = Front.Dead;
    this.idleFrom = i + 1;
    if (code === OPEN_BRACE) {
      this.begin(front === Front.Indent ? Mode.JsonObject : Mode.InlineKey, i, base);
      if (front === Front.Indent) this.readJson(Shape.Json, 1);
      else this.firstKey.reset();
    } else if (code === LESS) {
      this.begin(Mode.Less, i, base);
    } else if (this.wordsMayName(input, i + 1)) this.openNearName(base + i, code, front === Front.Indent);
    return i + 1;
  }
}
