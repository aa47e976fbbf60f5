/**
 * What the dialect recognizer (recognizer.ts) is doing (its modes), what a line holds so far (its
 * fronts), the classes of characters its idle loop tells apart, and the characters it acts on.
 */

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
  /** After a registered name's `<NAME` and a blank or `/`: its attributes, up to the `>` (or `/>`, which ends it). */
  ElementAttributes,
  /** After a `[` alone at a line's end, where that line began: blanks and line breaks up to the `{` of a JSON array of calls. */
  ArrayOpen,
  /** After `<|` or `<｜`: a model token's name (`<|python_tag|>`, `<|action_start|>`, `<｜tool▁call▁begin｜>`; tokens.ts). */
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
  /** A Python list of calls on one line whose first call names nothing registered: `[foo(x=1), read_file(…)]` (near-miss.ts). */
  CallList,
  /** After Functionary's `>>>` in the middle of a line: a registered name, blanks, then `{` or the line's end (steps.ts). */
  GreaterName,
  /** On the line after a mid-line `>>>NAME`: blanks, then the `{` of its arguments. */
  GreaterInput,
  /** After a function call at a line's start: blanks and one `,` or `;`, then the name of another call on its line. */
  CallAfter,
  /** After a `{` in the middle of a line: blanks, then a JSON call's first key in double quotes (`"name"`, …), matched a character at a time. */
  InlineKey,
  /** A Python list on one line after other words came between its calls: on to its `]` on that line (near-miss.ts). */
  ListWords,
  /** After a registered name and `:` at a line's start: blanks, a parameter's key, blanks, then `=` (steps.ts, `FILE_OP:action=read`). */
  BareKey,
  /** A command written without its brackets on its line, after its first `KEY=`: on to the line's end (steps.ts). */
  BareLine,
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
export const CLOSE_PARENTHESIS = 0x29;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const FULLWIDTH_OPEN = 0xff3b;
export const FULLWIDTH_CLOSE = 0xff3d;
export const LINE_FEED = 0x0a;
export const SPACE = 0x20;
export const TAB = 0x09;
export const CARRIAGE_RETURN = 0x0d;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const SEMICOLON = 0x3b;
export const QUOTE = 0x22;
export const APOSTROPHE = 0x27;
export const SLASH = 0x2f;
export const BACKSLASH = 0x5c;
export const DOT = 0x2e;
export const UNDERSCORE = 0x5f;
export const PIPE = 0x7c;
/** DeepSeek's fullwidth `｜` in its tokens (`<｜tool▁call▁begin｜>`). */
export const FULLWIDTH_PIPE = 0xff5c;
/** The `✿` that opens Qwen-Agent's step at a line's start. */
export const FLOWER = 0x273f;

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
  for (const code of [LESS, GREATER, OPEN_BRACKET, OPEN_PARENTHESIS, OPEN_BRACE]) table[code] = Class.Trigger;
  return table;
})();

export function classOf(code: number): Class {
  return code < 128 ? (CLASSES[code]! as Class) : code === FULLWIDTH_OPEN ? Class.Trigger : Class.Other;
}

/**
 * Index of the first character from `from` on that a string closed by `quote` must read one at a
 * time (a backslash, the quote, a line feed): the others change nothing.
 */
export function stringRunEnd(input: string, from: number, quote: number): number {
  let i = from;
  for (; i < input.length; i++) {
    const code = input.charCodeAt(i);
    if (code === BACKSLASH || code === quote || code === LINE_FEED) return i;
  }
  return i;
}

/** A character `inside` acts on outside a string: a quote, a bracket, a brace, a parenthesis or a line feed. */
export function isStructural(code: number): boolean {
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
export function plainRunEnd(input: string, from: number): number {
  let i = from;
  while (i < input.length && !isStructural(input.charCodeAt(i))) i++;
  return i;
}

/** Whether `code`, right after `[NAME:`, may lead to a `{` (what NearColon waits for): a blank or the brace itself. */
export function mayOpenNearBody(code: number): boolean {
  return code === OPEN_BRACE || code === SPACE || code === TAB || code === CARRIAGE_RETURN || code === LINE_FEED;
}
