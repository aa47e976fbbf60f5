/**
 * The part of the dialect recognizer (recognizer.ts) that reads an open candidate to its end:
 * a tag's name and body, a near-miss's body, a function call's arguments, a JSON object (what is
 * inside the last three: inside.ts, the part right above it); and,
 * once it ends, reads and maps it (finding.ts) into a finding. The words after a `[`
 * (near-miss.ts), model tokens (tokens.ts) and labelled steps (steps.ts) are read by the parts
 * that extend it, in that order, below the line fronts (line-fronts.ts) and the recognizer.
 */
import type { Position } from "../ast.js";
import { findingsOf, Shape, type DialectFinding } from "./finding.js";
import { FirstKeyReader, KeyStep } from "./inline-json.js";
import { NearNameReader } from "./near-name.js";
import { CARRIAGE_RETURN, Front, LINE_FEED, Mode, PIPE, SPACE, TAB } from "./states.js";
import type { CallVocabulary } from "./vocabulary.js";

/** JSON (or a Python call's arguments) nested deeper than this is text. */
export const MAX_JSON_DEPTH = 64;
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
  /** The JSON object's first key was written in Python's single quotes: `'` opens a string in it as `"` does. */
  protected jsonSingle = false;
  /** In an element's attributes: the last character outside a quoted value was `/` (a `>` next ends the element). */
  protected selfClosing = false;
  /** Characters read so far of a stretch that has a bound: an `<invoke …>` tag's attributes, a ReAct `Action:` line. */
  protected boundedLength = 0;
  /** After a function call at a line's start (`Mode.CallAfter`): its `,` or `;` came. */
  protected separated = false;
  /** The line of the last marker token read (`MARKERS`), -1 before any. */
  protected markedLine = -1;
  /** The JSON candidate being read opened right after a marker token: it ends with its closing brace or bracket. */
  protected jsonMarked = false;
  /** Where the JSON object at a line's start closed (`Mode.JsonAfter`). */
  protected jsonClosedAt = 0;
  /** The JSON call in the middle of a line (`Shape.InlineJson`) opened with a `{` that ended its line: it may run over lines. */
  protected inlineLines = false;
  /** Whether the near-miss's `[` began its line (after an indentation): a `{` right after it opens a JSON array of calls. */
  protected nearAtLineStart = false;
  /** The bracket a near-miss opened with. */
  protected bracket = "[";
  /** The pipe a model token opened with after its `<`: `|`, or DeepSeek's fullwidth `｜`. */
  protected markerPipe = PIPE;
  protected readonly near: NearNameReader;
  /** After a `{` in the middle of a line (`Mode.InlineKey`): its first key. */
  protected readonly firstKey = new FirstKeyReader();

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
      case Mode.Less:
      case Mode.TagAttributes:
      case Mode.ElementAttributes:
        return this.tagStart(input, i, base, code);
      case Mode.NearName:
        return this.nearName(input, i, code);
      case Mode.NearColon:
        return this.nearColon(i, base, code);
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
        // Prose after a JSON call (not a Python dict, as in the middle of a line) on its line: told but not run.
        if (this.shape !== Shape.Json || this.jsonSingle) return this.abandon(i);
        this.shape = Shape.InlineJson;
        this.capture += input.slice(this.captureFrom, i);
        this.complete(this.jsonClosedAt);
        this.idleAt(i);
        return i;
      case Mode.TagBody:
        return this.tagBody(input, i, base, code);
      case Mode.CallAfter:
        return this.callAfter(i, code);
      case Mode.ArrayOpen:
        return this.arrayOpen(i, base, code);
      case Mode.CallList:
        return this.callList(input, i, base, code);
      case Mode.ListWords:
        return this.listWords(input, i, base, code);
      case Mode.Marker:
      case Mode.HarmonyHeader:
      case Mode.MistralName:
        return this.token(input, i, code);
      case Mode.ReactOpen:
      case Mode.ReactAction:
      case Mode.ReactLabel:
      case Mode.ReactInput:
      case Mode.ReactText:
      case Mode.GreaterName:
      case Mode.GreaterInput:
      case Mode.BareKey:
      case Mode.BareLine:
        return this.react(input, i, base, code);
      case Mode.InlineKey: {
        const next = this.firstKey.take(code);
        if (next === KeyStep.Line) this.newline(base + i);
        else if (next === KeyStep.Fails) {
          // Blanks alone since the `{` ended its line: the character after them begins a line.
          const lineBegins = this.firstKey.blankSinceLine;
          this.abandon(i);
          if (lineBegins) this.front = Front.Indent;
          return i;
        } else if (next === KeyStep.Opens) {
          this.readJson(Shape.InlineJson, 1, true);
          this.jsonOpening = false;
          this.inlineLines = this.firstKey.onNextLine;
        }
        return i + 1;
      }
      default:
        return this.abandon(i);
    }
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
    this.jsonSingle = false;
  }

  /** After `<`: a tag's name, and the attributes of `<invoke` or of an element named after something registered (tags.ts). */
  protected abstract tagStart(input: string, i: number, base: number, code: number): number;

  /** Inside a tag's body, looking for its closing tag (tags.ts). */
  protected abstract tagBody(input: string, i: number, base: number, code: number): number;

  /** Reads on in one of the modes of model tokens (`Mode.Marker`, `Mode.HarmonyHeader`, `Mode.MistralName`): tokens.ts. */
  protected abstract token(input: string, i: number, code: number): number;

  /** After `[`: the words of a near-miss (near-miss.ts). */
  protected abstract nearName(input: string, i: number, code: number): number;

  /** After `[NAME:`: a `{`, or an action written without `action=` (colon-action.ts). */
  protected abstract nearColon(i: number, base: number, code: number): number;

  /** Between a `[` that ends its line and a JSON array's first `{` (near-miss.ts). */
  protected abstract arrayOpen(i: number, base: number, code: number): number;

  /** A near-miss, or a JSON array of calls, that never closed (near-miss.ts); anything else is left. */
  protected abstract endUnclosed(text: string): void;

  /** In a Python list whose first call names nothing (near-miss.ts). */
  protected abstract callList(input: string, i: number, base: number, code: number): number;

  /** In a Python list on one line after other words came between its calls (near-miss.ts). */
  protected abstract listWords(input: string, i: number, base: number, code: number): number;

  /** Reads on in a ReAct, Qwen-Agent or Functionary step (`Mode.ReactOpen` to `Mode.ReactText`, `Mode.GreaterName`, `Mode.GreaterInput`): steps.ts. */
  protected abstract react(input: string, i: number, base: number, code: number): number;

  /** A marker token ended just before index `i`: idle there, the line's front an indentation, so JSON after it may open a call. */
  protected markAt(i: number): number {
    this.idleAt(i);
    this.front = Front.Indent;
    this.markedLine = this.line;
    return i;
  }

  /** Inside a near-miss, a function call's parentheses or a JSON object (inside.ts). */
  protected abstract inside(input: string, i: number, base: number, code: number): number;

  /** After a function call at a line's start (inside.ts). */
  protected abstract callAfter(i: number, code: number): number;

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
