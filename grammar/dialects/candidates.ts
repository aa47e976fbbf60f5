/**
 * The part of the dialect recognizer (recognizer.ts) that reads an open candidate to its end:
 * a tag's name and body, a near-miss's words and body, a function call's arguments, a JSON
 * object; and, once it ends, reads and maps it (finding.ts) into a finding.
 */
import type { Position } from "../ast.js";
import { findingsOf, Shape, type DialectFinding } from "./finding.js";
import { isNameCharacter, NearNameReader } from "./near-name.js";
import type { CallVocabulary } from "./vocabulary.js";

export const enum Mode {
  Idle,
  Less,
  NearName,
  NearColon,
  NearBody,
  FunctionArgs,
  JsonObject,
  JsonAfter,
  TagBody,
  /** After `<invoke` and a blank: its attributes, up to the `>`. */
  TagAttributes,
  /** After a `[` alone at a line's end, where that line began: blanks and line breaks up to the `{` of a JSON array of calls. */
  ArrayOpen,
  /** After `<|` at a line's start: a model's tool-call marker token (`<|python_tag|>`, `<|tool_call|>`). */
  Marker,
  /** After `✿` at a line's start: the rest of Qwen-Agent's `✿FUNCTION✿:`, matched a character at a time. */
  ReactOpen,
  /** After `Action:` (or `✿FUNCTION✿:`) at a line's start: the rest of that line (the tool's name). */
  ReactAction,
  /** At the start of the line after a ReAct `Action:` line: `Action Input:` (or `✿ARGS✿:`, `closer`), matched a character at a time. */
  ReactLabel,
  /** After `Action Input:`: blanks, then a JSON object or the rest of the line. */
  ReactInput,
  /** A ReAct input that is not a JSON object: to the end of its line. */
  ReactText,
  /** After gpt-oss's `<|start|>` or `<|channel|>`: its header, up to `<|message|>` (harmony's tool call names its recipient, `to=functions.NAME`). */
  HarmonyHeader,
  /** After Mistral's `[TOOL_CALLS]`: a tool's name, `[ARGS]` (or `[CALL_ID]…[ARGS]`), up to the `{` of its arguments. */
  MistralName,
}

/** What the current line holds before the place being read, while no candidate is open. */
export const enum Front {
  /** Anything that is no indentation followed by at most a name. */
  Dead,
  /** Spaces and tabs only (or nothing). */
  Indent,
  /** An indentation, then a name `[A-Za-z][A-Za-z0-9_.]*` no longer than the limit. */
  Name,
}

export const enum Class {
  Other,
  Space,
  Letter,
  NameRest,
  LineFeed,
  Trigger,
}

export const LESS = 0x3c;
export const GREATER = 0x3e;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_PARENTHESIS = 0x28;
const CLOSE_PARENTHESIS = 0x29;
export const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
export const FULLWIDTH_OPEN = 0xff3b;
const FULLWIDTH_CLOSE = 0xff3d;
export const LINE_FEED = 0x0a;
export const SPACE = 0x20;
export const TAB = 0x09;
const CARRIAGE_RETURN = 0x0d;
export const COLON = 0x3a;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;
export const BACKSLASH = 0x5c;
export const DOT = 0x2e;
export const UNDERSCORE = 0x5f;
const MAX_JSON_DEPTH = 64;
/** An `<invoke …>` tag's attributes longer than this are not a call's. */
const MAX_ATTRIBUTES = 512;
/**
 * The tags whose body is a call as `<tool_call>`'s is (Hermes, Qwen): `<function_call>`, `<tools>`,
 * Apriel's `<tool_calls>` and Nemotron's `<TOOLCALL>` wrap JSON calls or arrays of them.
 */
const JSON_CALL_TAGS = new Set(["tool_call", "function_call", "tools", "tool_calls", "toolcall"]);
export const PIPE = 0x7c;
/** DeepSeek's fullwidth `｜` in its tokens (`<｜tool▁call▁begin｜>`). */
export const FULLWIDTH_PIPE = 0xff5c;
/** The label of a ReAct step's second line. */
export const REACT_LABEL = "Action Input:";
/** Qwen-Agent's ReAct-like step (its `fncall_prompt_type` "qwen"): `✿FUNCTION✿: NAME`, then `✿ARGS✿: {…}` on the next line. */
const QWEN_AGENT_FUNCTION = "✿FUNCTION✿:";
const QWEN_AGENT_ARGS = "✿ARGS✿:";
/** The `✿` that opens Qwen-Agent's step at a line's start. */
export const FLOWER = 0x273f;
/** A ReAct `Action:` line longer than this (after the colon) names no tool. */
const MAX_REACT_ACTION = 200;

export const CLASSES = (() => {
  const table = new Uint8Array(128);
  for (let code = 0x41; code <= 0x5a; code++) table[code] = Class.Letter;
  for (let code = 0x61; code <= 0x7a; code++) table[code] = Class.Letter;
  for (let code = 0x30; code <= 0x39; code++) table[code] = Class.NameRest;
  table[UNDERSCORE] = Class.NameRest;
  table[DOT] = Class.NameRest;
  table[SPACE] = Class.Space;
  table[TAB] = Class.Space;
  table[LINE_FEED] = Class.LineFeed;
  for (const code of [LESS, OPEN_BRACKET, OPEN_PARENTHESIS, OPEN_BRACE]) table[code] = Class.Trigger;
  return table;
})();

export function classOf(code: number): Class {
  return code < 128 ? (CLASSES[code]! as Class) : code === FULLWIDTH_OPEN ? Class.Trigger : Class.Other;
}

export abstract class CandidateReader {
  /** Findings completed by the last `feed` or `finish`, in source order. */
  readonly found: DialectFinding[] = [];
  /**
   * Findings whose last line has not ended yet: the first `lineOpenCount` (the list is not
   * emptied by setting its length, which would give it a new store at the next finding).
   */
  protected readonly lineOpen: DialectFinding[] = [];
  protected lineOpenCount = 0;
  protected total = 0;
  protected line = 1;
  protected lineStart = 0;
  protected mode = Mode.Idle;
  protected shape = Shape.Json;
  protected startOffset = 0;
  protected startLine = 1;
  protected startColumn = 1;
  protected capture = "";
  protected captureFrom = 0;
  protected name = "";
  protected depth = 0;
  protected inString = 0;
  protected escaped = false;
  protected blank = false;
  protected closer = "";
  protected matched = 0;
  /** A JSON object's first key is still to come. */
  protected jsonOpening = false;
  /** Characters read so far of a stretch that has a bound: an `<invoke …>` tag's attributes, a ReAct `Action:` line. */
  protected boundedLength = 0;
  /** The line of the last marker token read (`MARKERS`), -1 before any. */
  protected markedLine = -1;
  /** The JSON candidate being read opened right after a marker token: it ends with its closing brace or bracket. */
  protected jsonMarked = false;
  /** Whether the near-miss's `[` began its line (after an indentation): a `{` right after it opens a JSON array of calls. */
  protected nearAtLineStart = false;
  /** The bracket a near-miss opened with. */
  protected bracket = "[";
  /** The pipe a model token opened with after its `<`: `|`, or DeepSeek's fullwidth `｜`. */
  protected markerPipe = PIPE;
  protected readonly near: NearNameReader;

  /** The front where `idleFrom` (an index into the chunk being read) stands. */
  protected front = Front.Indent;
  protected idleFrom = 0;
  protected readonly nameLimit: number;
  /** In a tag's body: the next line feed at or after where the search stands in this chunk (-1: none). */
  protected nextFeed = -2;
  protected base = 0;

  constructor(protected readonly vocabulary: CallVocabulary) {
    this.nameLimit = vocabulary.longestName + 12;
    this.near = new NearNameReader(vocabulary, this.nameLimit);
  }

  /** Whether a candidate is open, and where it started. */
  get openStart(): number {
    return this.mode !== Mode.Idle ? this.startOffset : -1;
  }

  protected begin(mode: Mode, i: number, base: number): void {
    this.mode = mode;
    this.startOffset = base + i;
    this.startLine = this.line;
    this.startColumn = base + i - this.lineStart + 1;
    this.capture = "";
    this.captureFrom = i;
    this.name = "";
  }

  protected newline(offset: number): void {
    this.line++;
    this.lineStart = offset + 1;
    if (this.lineOpenCount > 0) this.endLineOpen(offset);
  }

  /** The findings waiting for their line's end get `lineEnd`. */
  protected endLineOpen(lineEnd: number): void {
    for (let k = 0; k < this.lineOpenCount; k++) this.lineOpen[k]!.lineEnd = lineEnd;
    this.lineOpenCount = 0;
  }

  /** Back to idle at index `i` of this chunk: an indentation there when it starts a line. */
  protected idleAt(i: number): void {
    this.mode = Mode.Idle;
    this.capture = "";
    this.idleFrom = i;
    this.front = this.base + i === this.lineStart ? Front.Indent : Front.Dead;
  }

  /** Drops the open candidate; the character at `i` is looked at again as text. */
  protected abandon(i: number): number {
    this.idleAt(i);
    return i;
  }

  /** One step in a candidate; returns the next index. */
  protected step(input: string, i: number, base: number, code: number): number {
    switch (this.mode) {
      case Mode.Less: {
        if (this.tagNameGoesOn(code)) {
          this.name += input[i];
          return i + 1;
        }
        return this.name.length >= this.nameLimit && isTagNameCharacter(code) ? this.abandon(i) : this.endTagName(i, code);
      }
      case Mode.NearName:
        return this.nearName(input, i, code);
      case Mode.NearColon:
        if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) return i + 1;
        if (code === LINE_FEED) {
          this.newline(base + i);
          return i + 1;
        }
        if (code !== OPEN_BRACE) return this.abandon(i);
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
      case Mode.ArrayOpen:
        return this.arrayOpen(i, base, code);
      case Mode.Marker:
      case Mode.HarmonyHeader:
      case Mode.MistralName:
        return this.token(input, i, code);
      case Mode.ReactOpen:
      case Mode.ReactAction:
      case Mode.ReactLabel:
      case Mode.ReactInput:
      case Mode.ReactText:
        return this.react(input, i, base, code);
      case Mode.TagAttributes:
        if (code === GREATER) {
          this.openTag(Shape.Invoke, "</invoke>");
          return i + 1;
        }
        if (code === LINE_FEED || code === LESS || ++this.boundedLength > MAX_ATTRIBUTES) return this.abandon(i);
        return i + 1;
      default:
        return this.abandon(i);
    }
  }

  protected endTagName(i: number, code: number): number {
    const name = this.name;
    const lower = name.toLowerCase();
    if ((code === SPACE || code === TAB) && lower === "invoke") {
      this.mode = Mode.TagAttributes;
      this.boundedLength = 0;
      return i + 1;
    }
    if (name === "" && (code === PIPE || code === FULLWIDTH_PIPE)) {
      this.mode = Mode.Marker;
      this.matched = 0;
      this.markerPipe = code;
      return i + 1;
    }
    if (code !== GREATER || name === "") return this.abandon(i);
    if (JSON_CALL_TAGS.has(lower)) this.openTag(Shape.ToolCall, `</${lower}>`);
    else if (lower.startsWith("function=") && name.length > 9) this.openTag(Shape.FunctionTags, "</function>");
    else if (this.vocabulary.resolve(name, true)) this.openTag(Shape.Element, `</${lower}>`);
    else return this.abandon(i);
    return i + 1;
  }

  protected openTag(shape: Shape, closer: string): void {
    this.mode = Mode.TagBody;
    this.shape = shape;
    this.closer = closer;
    this.matched = 0;
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

  /**
   * Reads on as a JSON object whose first key is still to come, `depth` brackets and braces deep.
   * `endsAtClose`: the call ends with its closing brace or bracket (after a marker token on its line,
   * or as a ReAct input), not with a blank rest of its line.
   */
  protected readJson(shape: Shape, depth: number, endsAtClose = this.markedLine === this.line): void {
    this.jsonMarked = endsAtClose;
    this.mode = Mode.JsonObject;
    this.shape = shape;
    this.depth = depth;
    this.inString = 0;
    this.escaped = false;
    this.blank = false;
    this.jsonOpening = true;
  }

  /** Whether a near-miss's words, at their `]`, are Mistral's `[TOOL_CALLS]` token at a line's start. */
  protected opensMarker(): boolean {
    return this.bracket === "[" && this.near.isToolCallsMarker();
  }

  /** Reads on in one of the modes of model tokens (`Mode.Marker`, `Mode.HarmonyHeader`, `Mode.MistralName`): tokens.ts. */
  protected abstract token(input: string, i: number, code: number): number;

  /** Mistral's `[TOOL_CALLS]` ended just before index `i`: tokens.ts. */
  protected abstract openToolCalls(i: number): number;

  /** A marker token ended just before index `i`: idle there, the line's front an indentation, so JSON after it may open a call. */
  protected markAt(i: number): number {
    this.idleAt(i);
    this.front = Front.Indent;
    this.markedLine = this.line;
    return i;
  }

  /**
   * A ReAct step after its `Action:` (or Qwen-Agent's, from its `✿`): the action's line, the
   * `Action Input:` (`✿ARGS✿:`) label, then the input.
   */
  protected react(input: string, i: number, base: number, code: number): number {
    switch (this.mode) {
      case Mode.ReactOpen:
        if (code !== QWEN_AGENT_FUNCTION.charCodeAt(this.matched)) return this.abandon(i);
        if (++this.matched === QWEN_AGENT_FUNCTION.length) {
          this.mode = Mode.ReactAction;
          this.boundedLength = 0;
          this.closer = QWEN_AGENT_ARGS;
        }
        return i + 1;
      case Mode.ReactAction:
        if (code === LINE_FEED) {
          this.newline(base + i);
          this.mode = Mode.ReactLabel;
          this.matched = 0;
        } else if (++this.boundedLength > MAX_REACT_ACTION) return this.abandon(i);
        return i + 1;
      case Mode.ReactLabel:
        // No `Action Input:` line: the step is text, and this line is read again from here.
        if (code !== this.closer.charCodeAt(this.matched)) return this.abandon(i);
        if (++this.matched === this.closer.length) this.mode = Mode.ReactInput;
        return i + 1;
      case Mode.ReactInput:
        if (code === SPACE || code === TAB) return i + 1;
        if (code === OPEN_BRACE) {
          // The object ends the step: what follows on its line is not read.
          this.readJson(Shape.React, 1, true);
          return i + 1;
        }
        this.mode = Mode.ReactText;
        return i;
      default:
        if (code === LINE_FEED) {
          this.completeAt(input, i, base);
          return i;
        }
        return i + 1;
    }
  }

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

  /** After `<`: whether `code` adds to the tag's name (not past the name limit). */
  protected tagNameGoesOn(code: number): boolean {
    return isTagNameCharacter(code) && this.name.length < this.nameLimit;
  }

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
        return this.depth > 1 || code !== CLOSE_PARENTHESIS;
      default:
        // The brace or bracket that ends a call after a marker token ends the candidate: `inside` must read it.
        if (this.jsonMarked && this.depth === 1 && (code === CLOSE_BRACE || code === CLOSE_BRACKET)) return false;
        return !this.jsonOpening || code === QUOTE || code === CLOSE_BRACE || code === SPACE || code === TAB || code === CARRIAGE_RETURN;
    }
  }

  /** Inside a near-miss, a function call's parentheses or a JSON object: strings, nesting, blank lines. */
  protected inside(input: string, i: number, base: number, code: number): number {
    if (this.inString !== 0) {
      if (this.escaped) this.escaped = false;
      else if (code === BACKSLASH) this.escaped = true;
      else if (code === this.inString) this.inString = 0;
      else if (code === LINE_FEED) this.newline(base + i);
      else return stringRunEnd(input, i + 1, this.inString);
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
    if (this.mode === Mode.JsonObject && this.jsonOpening) {
      // A JSON object opens with its first key: anything else is prose in braces.
      if (code !== QUOTE && code !== CLOSE_BRACE) return this.abandon(i);
      this.jsonOpening = false;
    }
    if (!isStructural(code)) return plainRunEnd(input, i + 1);
    if (code === QUOTE || (code === APOSTROPHE && this.mode === Mode.FunctionArgs)) {
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
        else if (json) this.mode = Mode.JsonAfter;
        else this.completeAt(input, i + 1, base);
      }
    }
    return i + 1;
  }

  /** Inside a tag's body, looking for its closing tag (any case). */
  protected tagBody(input: string, i: number, base: number, code: number): number {
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

  protected completeAt(input: string, index: number, base: number): void {
    this.capture += input.slice(this.captureFrom, index);
    this.captureFrom = index;
    this.complete(base + index);
    this.idleAt(index);
  }

  /** The candidate `this.capture` ended at absolute `endOffset`: read, map and record it (a JSON array of calls gives one finding per call). */
  protected complete(endOffset: number): void {
    const text = this.capture;
    this.mode = Mode.Idle;
    this.capture = "";
    const start: Position = { offset: this.startOffset, line: this.startLine, column: this.startColumn };
    const end: Position = { offset: endOffset, line: this.line, column: endOffset - this.lineStart + 1 };
    for (const finding of findingsOf({ shape: this.shape, text, name: this.name, closer: this.closer, start, end }, this.vocabulary)) {
      this.found.push(finding);
      this.lineOpen[this.lineOpenCount++] = finding;
    }
  }
}

/**
 * Index of the first character from `from` on that a string closed by `quote` must read one at a
 * time (a backslash, the quote, a line feed): the others change nothing.
 */
function stringRunEnd(input: string, from: number, quote: number): number {
  let i = from;
  for (; i < input.length; i++) {
    const code = input.charCodeAt(i);
    if (code === BACKSLASH || code === quote || code === LINE_FEED) return i;
  }
  return i;
}

/** A character `inside` acts on outside a string: a quote, a bracket, a brace, a parenthesis or a line feed. */
function isStructural(code: number): boolean {
  switch (code) {
    case QUOTE:
    case APOSTROPHE:
    case OPEN_BRACKET:
    case CLOSE_BRACKET:
    case OPEN_BRACE:
    case CLOSE_BRACE:
    case OPEN_PARENTHESIS:
    case CLOSE_PARENTHESIS:
    case FULLWIDTH_CLOSE:
    case LINE_FEED:
      return true;
    default:
      return false;
  }
}

/**
 * Index of the first structural character from `from` on, outside a string, once a character
 * that is not a blank was read: the others (blanks included) change nothing.
 */
function plainRunEnd(input: string, from: number): number {
  let i = from;
  while (i < input.length && !isStructural(input.charCodeAt(i))) i++;
  return i;
}

/** A character of a tag's name after `<`: a name character, `.`, `=` (`<function=…`) or `-`. */
function isTagNameCharacter(code: number): boolean {
  return isNameCharacter(code) || code === DOT || code === 0x3d || code === 0x2d;
}

/** Whether `code`, right after `[NAME:`, may lead to a `{` (what NearColon waits for): a blank or the brace itself. */
export function mayOpenNearBody(code: number): boolean {
  return code === OPEN_BRACE || code === SPACE || code === TAB || code === CARRIAGE_RETURN || code === LINE_FEED;
}
