/**
 * Finds the calls of other dialects (§4a) in text that arrives in chunks of any size: a
 * resumable state machine that reads each character once, beside the scanner. It only finds
 * where a candidate starts and ends; read-call.ts and read-arguments.ts read the finished
 * candidate, mapping.ts maps it, and call-scanner.ts decides by the region log whether it is
 * live (a call) or inert (a mention).
 *
 * Candidates: `<tool_call>…</tool_call>`, `<function=NAME>…</function>`, `<NAME>…</NAME>` for a
 * registered name; at a line start, a JSON object (`{"…`) on lines of its own and `NAME(…)`;
 * and `[`/`［` followed by a registered name in a shape that is not this language's own.
 */
import type { Position } from "../ast.js";
import { mapCall, type MappedCall, type RawCall } from "./mapping.js";
import { readFunctionArguments, readNearMiss } from "./read-arguments.js";
import { callFromElement, callFromFunctionTags, callFromJson, callFromToolCall, parseJson, type ReadResult } from "./read-call.js";
import type { CallVocabulary } from "./vocabulary.js";

const enum Mode {
  Idle,
  LineStart,
  Less,
  NearName,
  NearColon,
  NearBody,
  LineName,
  FunctionArgs,
  JsonObject,
  JsonAfter,
  TagBody,
}

const enum Shape {
  ToolCall,
  FunctionTags,
  Element,
  NearMiss,
  Function,
  Json,
}

/** A finished candidate: where it is, its text's start (for a mention), and what it maps to. */
export interface DialectFinding {
  start: Position;
  end: Position;
  /** The first line of the candidate (at most 200 characters), for a mention. */
  preview: string;
  /** Written as markup: raw HTML to CommonMark, so an `html` region at its start is itself. */
  markup: boolean;
  mapped: Exclude<MappedCall, { type: "text" }>;
  /**
   * The line feed that ends the finding's last line (-1 once the text ended; undefined until
   * then): the scanner's findings on that line are all out by the time it is settled.
   */
  lineEnd?: number;
}

const LESS = 0x3c;
const GREATER = 0x3e;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const FULLWIDTH_OPEN = 0xff3b;
const FULLWIDTH_CLOSE = 0xff3d;
const LINE_FEED = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;
const CARRIAGE_RETURN = 0x0d;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const BACKSLASH = 0x5c;
const MAX_JSON_DEPTH = 64;

function isNameCharacter(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || code === 0x5f;
}

export class DialectRecognizer {
  /** Findings completed by the last `feed` or `finish`, in source order. */
  readonly found: DialectFinding[] = [];
  /** Findings whose last line has not ended yet. */
  private readonly lineOpen: DialectFinding[] = [];
  private total = 0;
  private line = 1;
  private lineStart = 0;
  private mode = Mode.LineStart;
  private shape = Shape.Json;
  private startOffset = 0;
  private startLine = 1;
  private startColumn = 1;
  private capture = "";
  private name = "";
  private spaces = 0;
  private depth = 0;
  private inString = 0;
  private escaped = false;
  private blank = false;
  private closer = "";
  private matched = 0;
  private leadingSpace = false;

  constructor(private readonly vocabulary: CallVocabulary) {}

  /** Whether a candidate is open, and where it started. */
  get openStart(): number {
    return this.mode >= Mode.Less && this.mode !== Mode.LineStart ? this.startOffset : -1;
  }

  /** True when a 1-character chunk `code` can only be counted (no candidate open, not special). */
  quiet(code: number): boolean {
    return this.mode === Mode.Idle && code !== LESS && code !== OPEN_BRACKET && code !== LINE_FEED && code !== FULLWIDTH_OPEN;
  }

  /** Counts a character that `quiet` let through. */
  skipOne(): void {
    this.total++;
  }

  feed(input: string): void {
    this.nextFeed = -2;
    const base = this.total;
    this.total += input.length;
    const end = input.length;
    let i = 0;
    let nextLess = -2;
    let nextBracket = -2;
    let nextLine = -2;
    let nextWide = -2;
    while (i < end) {
      const code = input.charCodeAt(i);
      switch (this.mode) {
        case Mode.Idle: {
          if (nextLess !== -1 && nextLess < i) nextLess = input.indexOf("<", i);
          if (nextBracket !== -1 && nextBracket < i) nextBracket = input.indexOf("[", i);
          if (nextLine !== -1 && nextLine < i) nextLine = input.indexOf("\n", i);
          if (nextWide !== -1 && nextWide < i) nextWide = input.indexOf("［", i);
          let next = end;
          if (nextLess >= 0) next = nextLess;
          if (nextBracket >= 0 && nextBracket < next) next = nextBracket;
          if (nextLine >= 0 && nextLine < next) next = nextLine;
          if (nextWide >= 0 && nextWide < next) next = nextWide;
          if (next === end) {
            i = end;
            continue;
          }
          i = next;
          const found = input.charCodeAt(i);
          if (found === LINE_FEED) {
            this.newline(base + i);
            this.mode = Mode.LineStart;
          } else this.begin(found === LESS ? Mode.Less : Mode.NearName, i, base);
          i++;
          continue;
        }
        case Mode.LineStart:
          if (code === SPACE || code === TAB) {
            i++;
            continue;
          }
          if (code === 0x7b /* { */) {
            this.begin(Mode.JsonObject, i, base);
            this.shape = Shape.Json;
            this.depth = 1;
            this.inString = 0;
            this.escaped = false;
            this.blank = false;
            this.spaces = 0;
            i++;
            continue;
          }
          if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) {
            // Most lines start with a word of prose: when its end is in this chunk and no `(` or
            // `.` follows it, it is no call, and no candidate is opened.
            let j = i + 1;
            while (j < end && isNameCharacter(input.charCodeAt(j))) j++;
            const after = input.charCodeAt(j);
            if (j < end && after !== 0x28 && after !== 0x2e) {
              this.mode = Mode.Idle;
              i = j;
              continue;
            }
            this.begin(Mode.LineName, i, base);
            continue;
          }
          this.mode = Mode.Idle;
          continue;
        default:
          i = this.step(input, i, base, code);
      }
    }
    if (this.mode >= Mode.Less) this.capture += input.slice(this.captureFrom, end);
    this.captureFrom = 0;
  }

  /** The text is complete: a candidate still open is finished or dropped. */
  finish(): void {
    if (this.mode === Mode.JsonAfter) this.complete(this.total);
    else if (this.mode === Mode.TagBody && this.shape !== Shape.Element) {
      // An unclosed <tool_call> is read only when a call follows its opener; else it is prose about one.
      const body = this.capture.slice(this.capture.indexOf(">") + 1).trimStart();
      if (this.shape === Shape.FunctionTags || body.startsWith("{") || body.startsWith("<function=")) this.complete(this.total);
    }
    this.mode = Mode.Idle;
    this.capture = "";
    for (const finding of this.lineOpen) finding.lineEnd = -1;
    this.lineOpen.length = 0;
  }

  private captureFrom = 0;
  /** In a tag's body: the next line feed at or after where the search stands in this chunk (-1: none). */
  private nextFeed = -2;

  private begin(mode: Mode, i: number, base: number): void {
    this.mode = mode;
    this.startOffset = base + i;
    this.startLine = this.line;
    this.startColumn = base + i - this.lineStart + 1;
    this.capture = "";
    this.captureFrom = i;
    this.name = "";
    this.spaces = 0;
    this.leadingSpace = false;
  }

  private newline(offset: number): void {
    this.line++;
    this.lineStart = offset + 1;
    if (this.lineOpen.length > 0) {
      for (const finding of this.lineOpen) finding.lineEnd = offset;
      this.lineOpen.length = 0;
    }
  }

  /** Drops the open candidate; the character at `i` is looked at again as text. */
  private abandon(i: number): number {
    this.mode = Mode.Idle;
    this.capture = "";
    return i;
  }

  /** One step in a candidate; returns the next index. */
  private step(input: string, i: number, base: number, code: number): number {
    switch (this.mode) {
      case Mode.Less:
      case Mode.LineName: {
        const limit = this.vocabulary.longestName + 12;
        if (isNameCharacter(code) || code === 0x2e || (this.mode === Mode.Less && (code === 0x3d || code === 0x2d))) {
          if (this.name.length >= limit) return this.abandon(i);
          this.name += input[i];
          return i + 1;
        }
        return this.mode === Mode.Less ? this.endTagName(i, code) : this.endLineName(i, code);
      }
      case Mode.NearName:
        return this.nearName(input, i, code);
      case Mode.NearColon:
        if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) return i + 1;
        if (code === LINE_FEED) {
          this.newline(base + i);
          return i + 1;
        }
        if (code !== 0x7b) return this.abandon(i);
        this.mode = Mode.NearBody;
        this.inString = 0;
        this.depth = 0;
        this.blank = false;
        return i;
      case Mode.NearBody:
      case Mode.FunctionArgs:
      case Mode.JsonObject:
        return this.inside(input, i, base, code);
      case Mode.JsonAfter:
        if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) return i + 1;
        if (code === LINE_FEED) {
          this.completeAt(input, i, base);
          return i;
        }
        return this.abandon(i);
      case Mode.TagBody:
        return this.tagBody(input, i, base, code);
      default:
        return this.abandon(i);
    }
  }

  private endTagName(i: number, code: number): number {
    const name = this.name;
    const lower = name.toLowerCase();
    if (code !== GREATER || name === "") return this.abandon(i);
    if (lower === "tool_call") this.openTag(Shape.ToolCall, "</tool_call>");
    else if (lower.startsWith("function=") && name.length > 9) this.openTag(Shape.FunctionTags, "</function>");
    else if (this.vocabulary.resolve(name, true)) this.openTag(Shape.Element, `</${lower}>`);
    else return this.abandon(i);
    return i + 1;
  }

  private openTag(shape: Shape, closer: string): void {
    this.mode = Mode.TagBody;
    this.shape = shape;
    this.closer = closer;
    this.matched = 0;
  }

  private endLineName(i: number, code: number): number {
    if (code !== 0x28 /* ( */) return this.abandon(i);
    const target = this.vocabulary.resolve(this.name);
    if (!target) return this.abandon(i);
    // Function-call style needs the protocol name as it is registered (upper case), or another agent's tool name.
    if (target.type === "protocol" && !this.name.startsWith(target.protocol.name)) return this.abandon(i);
    this.mode = Mode.FunctionArgs;
    this.shape = Shape.Function;
    this.depth = 1;
    this.inString = 0;
    this.escaped = false;
    this.blank = false;
    return i + 1;
  }

  /** After `[`: spaces, then up to two words that must name something registered. */
  private nearName(input: string, i: number, code: number): number {
    if (isNameCharacter(code) && this.name.length <= this.vocabulary.longestName + 12) {
      this.name += input[i];
      return i + 1;
    }
    if ((code === SPACE || code === TAB) && this.spaces < 3) {
      if (this.name === "") this.leadingSpace = true;
      else if (!this.name.endsWith(" ")) this.name += " ";
      this.spaces++;
      return i + 1;
    }
    const words = this.name.trim().split(" ");
    const joined = words.length >= 2 ? this.vocabulary.resolve(`${words[0]}_${words[1]}`) : undefined;
    if (!joined && (words[0] === "" || !this.vocabulary.resolve(words[0]!))) return this.abandon(i);
    if (code === CLOSE_BRACKET || code === FULLWIDTH_CLOSE) return this.abandon(i);
    this.shape = Shape.NearMiss;
    this.inString = 0;
    this.depth = 0;
    this.blank = false;
    if (code === 0x3a && !this.leadingSpace && words.length === 1 && !this.name.endsWith(" ")) {
      // `[NAME:` is this language's own start: only `[NAME:{…}]` is a near-miss.
      this.mode = Mode.NearColon;
      return i + 1;
    }
    this.mode = Mode.NearBody;
    return i;
  }

  /** Inside a near-miss, a function call's parentheses or a JSON object: strings, nesting, blank lines. */
  private inside(input: string, i: number, base: number, code: number): number {
    if (this.inString !== 0) {
      if (this.escaped) this.escaped = false;
      else if (code === BACKSLASH) this.escaped = true;
      else if (code === this.inString) this.inString = 0;
      else if (code === LINE_FEED) this.newline(base + i);
      return i + 1;
    }
    if (code === LINE_FEED) {
      this.newline(base + i);
      if (this.blank) return this.abandon(i + 1);
      this.blank = true;
      return i + 1;
    }
    if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) return i + 1;
    this.blank = false;
    if (this.mode === Mode.JsonObject && this.spaces === 0) {
      // A JSON object opens with its first key: anything else is prose in braces.
      if (code !== QUOTE && code !== 0x7d) return this.abandon(i);
      this.spaces = 1;
    }
    if (code === QUOTE || (code === APOSTROPHE && this.mode === Mode.FunctionArgs)) {
      this.inString = code;
      return i + 1;
    }
    if (this.mode === Mode.NearBody) {
      if ((code === CLOSE_BRACKET || code === FULLWIDTH_CLOSE) && this.depth === 0) this.completeAt(input, i + 1, base);
      else if (code === 0x7b || code === OPEN_BRACKET || code === 0x28) this.depth++;
      else if (code === 0x7d || code === CLOSE_BRACKET || code === 0x29) this.depth = Math.max(0, this.depth - 1);
      return i + 1;
    }
    const open = this.mode === Mode.JsonObject ? 0x7b : 0x28;
    const close = this.mode === Mode.JsonObject ? 0x7d : 0x29;
    if (code === open || (this.mode === Mode.JsonObject && code === OPEN_BRACKET)) {
      if (++this.depth > MAX_JSON_DEPTH) return this.abandon(i + 1);
    } else if (code === close || (this.mode === Mode.JsonObject && code === CLOSE_BRACKET)) {
      if (--this.depth === 0) {
        if (this.mode === Mode.JsonObject) this.mode = Mode.JsonAfter;
        else this.completeAt(input, i + 1, base);
      }
    }
    return i + 1;
  }

  /** Inside a tag's body, looking for its closing tag (any case). */
  private tagBody(input: string, i: number, base: number, code: number): number {
    if (this.matched === 0) {
      const less = input.indexOf("<", i);
      const stop = less < 0 ? input.length : less;
      // The next line feed is remembered per chunk, so no stretch is searched twice.
      if (this.nextFeed !== -1 && this.nextFeed < i) this.nextFeed = input.indexOf("\n", i);
      while (this.nextFeed >= 0 && this.nextFeed < stop) {
        this.newline(base + this.nextFeed);
        this.nextFeed = input.indexOf("\n", this.nextFeed + 1);
      }
      if (less < 0) return input.length;
      this.matched = 1;
      return less + 1;
    }
    const expected = this.closer.charCodeAt(this.matched);
    const lower = code >= 0x41 && code <= 0x5a ? code + 32 : code;
    if (lower === expected) {
      if (++this.matched === this.closer.length) this.completeAt(input, i + 1, base);
      return i + 1;
    }
    this.matched = 0;
    if (code === LINE_FEED) this.newline(base + i);
    return code === LESS ? i : i + 1;
  }

  private completeAt(input: string, index: number, base: number): void {
    this.capture += input.slice(this.captureFrom, index);
    this.captureFrom = index;
    this.complete(base + index);
  }

  /** The candidate `this.capture` ended at absolute `endOffset`: read, map and record it. */
  private complete(endOffset: number): void {
    const text = this.capture;
    this.mode = Mode.Idle;
    this.capture = "";
    const start = { offset: this.startOffset, line: this.startLine, column: this.startColumn };
    const end = { offset: endOffset, line: this.line, column: endOffset - this.lineStart + 1 };
    const span = { start, end };
    let outcome;
    try {
      outcome = this.read(text);
    } catch {
      // Reading is plain code over a finished string; should it fail anyway, the candidate is text.
      return;
    }
    const { read, dialect, markup, unknownIsError } = outcome;
    if (read === undefined) return;
    const lineFeed = text.indexOf("\n");
    const preview = (lineFeed < 0 ? text : text.slice(0, lineFeed)).slice(0, 200);
    let mapped: MappedCall;
    if ("problem" in read) {
      const error = {
        code: "unmapped_call" as const,
        message: `This looks like ${dialect === "hermes" ? "a <tool_call> block" : "a tool call"} but ${read.problem}; write it as a clio command, [PROTOCOL:action=…:key="value"].`,
        span,
      };
      mapped = { type: "error", error };
    } else {
      const call: RawCall = { dialect, name: read.name, args: read.args, span };
      if (read.action !== undefined) call.action = read.action;
      if (read.bare !== undefined) call.bare = read.bare;
      try {
        mapped = mapCall(call, this.vocabulary, unknownIsError);
      } catch {
        return;
      }
    }
    if (mapped.type === "text") return;
    const finding: DialectFinding = { start, end, preview, markup, mapped };
    this.found.push(finding);
    this.lineOpen.push(finding);
  }

  private read(text: string): { read: ReadResult; dialect: RawCall["dialect"]; markup: boolean; unknownIsError: boolean } {
    switch (this.shape) {
      case Shape.ToolCall: {
        const body = text.slice("<tool_call>".length, text.length - (text.toLowerCase().endsWith("</tool_call>") ? "</tool_call>".length : 0));
        const read = callFromToolCall(body);
        const dialect = body.trim().startsWith("<function=") ? "qwen-xml" : "hermes";
        return { read, dialect, markup: true, unknownIsError: true };
      }
      case Shape.FunctionTags: {
        const header = text.indexOf(">");
        const closed = text.toLowerCase().endsWith("</function>");
        const body = text.slice(header + 1, closed ? text.length - "</function>".length : text.length);
        return { read: callFromFunctionTags(this.name.slice("function=".length), body), dialect: "qwen-xml", markup: true, unknownIsError: true };
      }
      case Shape.Element:
        return { read: callFromElement(this.name, text.slice(this.name.length + 2, text.length - this.closer.length)), dialect: "xml", markup: true, unknownIsError: false };
      case Shape.NearMiss: {
        const inner = text.slice(1, -1);
        const shaped = /[=({]/.test(inner);
        return { read: shaped ? readNearMiss(text, this.vocabulary) : undefined, dialect: "clio-variant", markup: false, unknownIsError: false };
      }
      case Shape.Function: {
        const open = text.indexOf("(");
        return { read: readFunctionArguments(this.name, undefined, text.slice(open + 1, -1)), dialect: "function", markup: false, unknownIsError: false };
      }
      case Shape.Json: {
        const value = parseJson(text.trim());
        return { read: callFromJson(value), dialect: "json", markup: false, unknownIsError: false };
      }
    }
  }
}
