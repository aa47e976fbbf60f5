/**
 * The part of the dialect recognizer (recognizer.ts) that reads the special tokens models print
 * around their tool calls when the server does not parse them: `<|NAME|>` markers (Llama 3's
 * `<|python_tag|>`, Phi-4's `<|tool_call|>`), InternLM's `<|action_start|><|plugin|>` … `<|action_end|>`,
 * DeepSeek's `<｜tool▁calls▁begin｜>` … (fullwidth bars, `▁` between the words), Kimi K2's
 * `<|tool_calls_section_begin|>` …, Cohere's `<|START_ACTION|>` … `<|END_ACTION|>`, gpt-oss's harmony
 * `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`, and Mistral's
 * `[TOOL_CALLS]`, before a JSON array or before a tool's name and its `[ARGS]{…}`.
 */
import { NearMissReader } from "./near-miss.js";
import { CLOSE_BRACKET, DOT, GREATER, Mode, OPEN_BRACE, OPEN_BRACKET, PIPE, SPACE, TAB } from "./states.js";
import { Shape } from "./finding.js";
import { isNameCharacter } from "./near-name.js";

/**
 * The marker tokens models print before a JSON call or array when the server does not parse them
 * (Llama 3's `<|python_tag|>`, Phi-4's and Granite's `<|tool_call|>`): at a line's start, the JSON
 * after one may open a call as at a line's start, and ends the call with its closing brace or bracket.
 */
const MARKERS = new Set(["python_tag", "tool_call", "tool_calls"]);
/**
 * The tokens that open a body running to a closing token, by their names (`▁` read as `_`, lower
 * case): the shape it is read as, and the closing token's name (undefined: the name with its
 * `begin` made `end`).
 */
const OPENING_TOKENS = new Map<string, { shape: Shape; closer?: string }>([
  // DeepSeek V3, R1, V3.1: a block of calls, or one call without it.
  ["tool_calls_begin", { shape: Shape.DeepSeekCalls }],
  ["tool_call_begin", { shape: Shape.DeepSeekCall }],
  // Kimi K2: the same form, its separator `<|tool_call_argument_begin|>`.
  ["tool_calls_section_begin", { shape: Shape.DeepSeekCalls }],
  // InternLM 2: `<|action_start|><|plugin|>` and a JSON call.
  ["action_start", { shape: Shape.Plugin, closer: "action_end" }],
  // Cohere's Command R7B and A: a JSON array of calls.
  ["start_action", { shape: Shape.ToolCall, closer: "end_action" }],
]);
/** A token's name longer than this is no token of these. */
const MAX_MARKER = 24;
/** DeepSeek's `▁` between the words of its tokens (`tool▁call▁begin`), read as `_`. */
const WORD_SEPARATOR = 0x2581;
/** What may stand between a Mistral tool's name and the `{` of its arguments (`[ARGS]`, `[CALL_ID]abc123def[ARGS]`), at most. */
const MAX_MISTRAL_TAIL = 64;
const HYPHEN = 0x2d;
const LESS = 0x3c;
const LINE_FEED = 0x0a;
/** The token that ends a harmony header. */
const HARMONY_MESSAGE = "<|message|>";
/** A harmony header longer than this (on one line) is none. */
const MAX_HARMONY_HEADER = 256;
/** A harmony header that sends the message to a tool: `to=functions.NAME`. */
const HARMONY_RECIPIENT = /(?:^|\s)to=/;

export abstract class TokenReader extends NearMissReader {
  /** In `Mode.Marker` (after `<|` or `<｜`), `Mode.HarmonyHeader` or `Mode.MistralName` (after `[TOOL_CALLS]`). */
  protected token(input: string, i: number, code: number): number {
    if (this.mode === Mode.Marker) return this.marker(input, i, code);
    return this.mode === Mode.HarmonyHeader ? this.harmonyHeader(input, i, code) : this.mistralName(i, code);
  }

  /**
   * In a gpt-oss harmony header (`<|start|>assistant<|channel|>commentary to=functions.NAME
   * <|constrain|>json`): at its `<|message|>`, a header naming a recipient opens a call whose
   * body runs to `<|call|>`; any other (a message to the user, its reasoning) is text.
   */
  private harmonyHeader(input: string, i: number, code: number): number {
    if (code === LINE_FEED || ++this.boundedLength > MAX_HARMONY_HEADER) return this.abandon(i);
    if (code !== HARMONY_MESSAGE.charCodeAt(this.matched)) {
      this.matched = code === LESS ? 1 : 0;
      return i + 1;
    }
    if (++this.matched < HARMONY_MESSAGE.length) return i + 1;
    const header = this.capture + input.slice(this.captureFrom, i);
    if (!HARMONY_RECIPIENT.test(header)) return this.abandon(i + 1);
    this.openTag(Shape.Harmony, "<|call|>");
    return i + 1;
  }

  /**
   * In `<|NAME|>` or `<｜NAME｜>`: a marker in `MARKERS` at a line's start leaves the line's front an
   * indentation, so JSON after it may open a call; DeepSeek's and InternLM's opening tokens open
   * a body that runs to their closing token.
   */
  private marker(input: string, i: number, code: number): number {
    if (this.matched === 1) return code === GREATER ? this.endMarker(i) : this.abandon(i);
    if (code === this.markerPipe) {
      this.matched = 1;
      return i + 1;
    }
    if ((!isNameCharacter(code) && code !== WORD_SEPARATOR) || this.name.length >= MAX_MARKER) return this.abandon(i);
    this.name += input[i];
    return i + 1;
  }

  /** At the `>` (index `i`) that ends a token `<|NAME|>`. */
  private endMarker(i: number): number {
    const name = this.name.toLowerCase();
    const word = name.replaceAll("▁", "_");
    const pipe = String.fromCharCode(this.markerPipe);
    if (MARKERS.has(word) && this.markerPipe === PIPE && this.startOffset === this.lineStart) return this.markAt(i + 1);
    if (word === "start" || word === "channel") {
      this.mode = Mode.HarmonyHeader;
      this.boundedLength = 0;
      this.matched = 0;
      return i + 1;
    }
    const opened = OPENING_TOKENS.get(word);
    if (opened === undefined) return this.abandon(i);
    // The closing token is spelt as the opening one was (`｜` or `|`, `▁` or `_`).
    const closer = opened.closer ?? `${name.slice(0, -"begin".length)}end`;
    this.openTag(opened.shape, `<${pipe}${closer}${pipe}>`);
    return i + 1;
  }

  /**
   * Mistral's `[TOOL_CALLS]` ended just before index `i`: a tool's name may follow (its newer
   * form, `[TOOL_CALLS]read_file[ARGS]{…}`); else it is a marker, and a JSON array or object
   * after it may open calls as at a line's start.
   */
  protected openToolCalls(i: number): number {
    this.mode = Mode.MistralName;
    this.shape = Shape.Mistral;
    this.capture = `${this.bracket}TOOL_CALLS]`;
    this.captureFrom = i;
    this.boundedLength = 0;
    this.matched = 0;
    return i;
  }

  /**
   * After `[TOOL_CALLS]`: blanks, a name, then `[ARGS]` or the like (blanks between), up to the
   * `{` that opens the arguments. `matched` is 1 once a character of the name was read.
   */
  private mistralName(i: number, code: number): number {
    if (this.matched === 0) {
      if ((code === SPACE || code === TAB) && ++this.boundedLength <= MAX_MISTRAL_TAIL) return i + 1;
      if (!isNameCharacter(code)) {
        // No name: the marker before a JSON array or object (or before prose).
        this.capture = "";
        return this.markAt(i);
      }
      this.matched = 1;
    }
    if (code === OPEN_BRACE) {
      this.readJson(Shape.Mistral, 1, true);
      return i + 1;
    }
    const goesOn = isNameCharacter(code) || code === DOT || code === HYPHEN || code === OPEN_BRACKET || code === CLOSE_BRACKET || code === SPACE || code === TAB;
    if (!goesOn || ++this.boundedLength > this.nameLimit + MAX_MISTRAL_TAIL) return this.abandon(i);
    return i + 1;
  }
}
