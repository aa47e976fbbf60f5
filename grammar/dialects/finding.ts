/**
 * A dialect candidate's finished text, read and mapped (read-call.ts, read-arguments.ts,
 * mapping.ts) into what the call scanner reports: a command, or an error whose hint is the clio
 * command. The recognizer (recognizer.ts) only finds where a candidate starts and ends.
 */
import type { Position } from "../ast.js";
import { print } from "../printer.js";
import { objectsOfArray, PositionWalk } from "./call-array.js";
import { mapCall, type MappedCall, type RawCall, rawCallOf } from "./mapping.js";
import { callListItems, firstCallEnd, readFunctionArguments, readNearMiss } from "./read-arguments.js";
import {
  callFromElement,
  callFromFunctionTags,
  callFromInvoke,
  callFromJson,
  callFromReact,
  callFromToolCall,
  GLM_NAME,
  GLM_OPENING,
  type ReadResult,
  startTagEnd,
} from "./read-call.js";
import { parseJson } from "./relaxed-json.js";
import { inlineCallOutcome, inlineError } from "./prose-calls.js";
import { callFromNamedToolCall, namedToolCallError } from "./tool-call-tag.js";
import { ACTION_WITHOUT_KEY, notRunError, salvagedNearMiss, WITHOUT_BRACKETS, withActionKey } from "./salvage.js";
import { callFromDeepSeek, callFromHarmony, callFromMistral, callFromPlugin, deepSeekCallsOf } from "./read-tokens.js";
import type { CallVocabulary } from "./vocabulary.js";

/** The form a candidate was opened in. */
export const enum Shape {
  ToolCall,
  FunctionTags,
  Element,
  NearMiss,
  Function,
  Json,
  Invoke,
  /** `[{…}, …]` at a line's start: each object a call of its own (findingsOf). */
  JsonArray,
  /** One object of a `<tool_call>` holding a JSON array of calls. */
  ToolCallItem,
  /** A ReAct step: `Action: NAME`, then `Action Input: …` on the next line. */
  React,
  /** One object of a JSON object's `"tool_calls"` array (xLAM, OpenAI's message shape). */
  JsonItem,
  /** One call of a Python list of calls, `[NAME(…), NAME(…)]`. */
  FunctionItem,
  /** DeepSeek's `<｜tool▁calls▁begin｜>` block: each `<｜tool▁call▁begin｜>` in it a call of its own (findingsOf). */
  DeepSeekCalls,
  /** One DeepSeek `<｜tool▁call▁begin｜>` … `<｜tool▁call▁end｜>`. */
  DeepSeekCall,
  /** InternLM's `<|action_start|>` … `<|action_end|>`. */
  Plugin,
  /** Mistral's `[TOOL_CALLS]NAME[ARGS]{…}`. */
  Mistral,
  /** gpt-oss's harmony call: a header naming its recipient, `<|message|>{…}<|call|>`. */
  Harmony,
  /** A JSON call in the middle of a line of prose, `… {"name": …, "arguments": {…}} …`: never run. */
  InlineJson,
  /** A Python list on one line with other words among its calls, `[foo(x=1) and read_file(…)]`: never run (salvage.ts). */
  ListWords,
  /** A command whose action is written without `action=`, `[GIT:status]` (colon-action.ts): never run. */
  ColonAction,
  /** A command written without its brackets on a line of its own, `FILE_OP:action=read:path="a.ts"` (steps.ts): never run. */
  BareLine,
  /** A function call in the middle of a line, `Let me call read_file(path="a.ts") to see it.` (inline-call.ts): never run. */
  InlineFunction,
}

/** A finished candidate: where it is, its text's start (for a mention), and what it maps to. */
export interface DialectFinding {
  start: Position;
  end: Position;
  /** The first line of the candidate (at most 200 characters), for a mention. */
  preview: string;
  /** Written as markup: raw HTML to CommonMark, so an `html` region at its start is itself. */
  markup: boolean;
  /**
   * Where the region that decides it (live or inert) is looked up: its start, or the start of the
   * block it was written in (a DeepSeek block, whose ```json fences open inside it).
   */
  regionAt: number;
  mapped: Exclude<MappedCall, { type: "text" }>;
  /**
   * The line feed that ends the finding's last line (-1 once the text ended; undefined until
   * then): the scanner's findings on that line are all out by then.
   */
  lineEnd?: number;
}

/**
 * Whether the body of a tag whose closing tag never came, from its first character that is not a
 * blank, begins a call: JSON, `<function=…>`, or a name and its first `<arg_key>` after `<tool_call>`;
 * a `<parameter` after `<invoke …>`; `<|plugin|>` after InternLM's `<|action_start|>`; `<|message|>{`
 * in a harmony call. DeepSeek's calls and `<function=…>` are read whatever follows (their readers
 * tell prose from a call).
 */
export function readsUnclosed(shape: Shape, body: string): boolean {
  switch (shape) {
    case Shape.FunctionTags:
    case Shape.DeepSeekCalls:
    case Shape.DeepSeekCall:
      return true;
    case Shape.Invoke:
      return body.startsWith("<parameter");
    case Shape.Plugin:
      return /^<[|｜]plugin[|｜]>/i.test(body);
    case Shape.Harmony:
      return /<\|message\|>\s*\{/.test(body);
    default:
      return body.startsWith("{") || body.startsWith("[{") || body.startsWith("<function=") || GLM_OPENING.test(body);
  }
}

/** A candidate as the recognizer closed it. */
export interface Candidate {
  shape: Shape;
  /** Its whole text, from its first character to its last. */
  text: string;
  /** The name read at its start (a tag's name, `function=NAME`, a function's name). */
  name: string;
  /** A tag's closing tag, lower case. */
  closer: string;
  start: Position;
  end: Position;
  /** The start of the block it was written in, when that decides its region (DialectFinding.regionAt). */
  regionAt?: number;
}

/**
 * Reads and maps `candidate`: one finding, or one per call of a JSON array of calls (`[{…}, …]`
 * at a line's start, or in a `<tool_call>`), each with its own span; none when it is plain text.
 * Never throws.
 */
export function findingsOf(candidate: Candidate, vocabulary: CallVocabulary): DialectFinding[] {
  const { text, shape } = candidate;
  if (shape === Shape.DeepSeekCalls) return itemFindings(candidate, deepSeekCallsOf(text), Shape.DeepSeekCall, vocabulary);
  const list = shape === Shape.NearMiss ? callListItems(text) : undefined;
  // A Python list is calls once one of them names something registered; else it is code or prose (`[f(1), g(2)]`).
  if (list !== undefined)
    return list.some(([from]) => vocabulary.resolve(text.slice(from, text.indexOf("(", from))) !== undefined) ? itemFindings(candidate, list, Shape.FunctionItem, vocabulary) : [];
  const array = shape === Shape.JsonArray ? 0 : shape === Shape.ToolCall ? toolCallArrayAt(text) : shape === Shape.Json ? toolCallsKeyAt(text) : -1;
  if (array < 0) {
    const finding = findingOf(candidate, vocabulary);
    return finding === undefined ? [] : [finding];
  }
  const objects = objectsOfArray(text, array);
  if (objects === undefined) return [];
  return itemFindings(candidate, objects, shape === Shape.JsonArray ? Shape.Json : shape === Shape.Json ? Shape.JsonItem : Shape.ToolCallItem, vocabulary);
}

/**
 * The calls at the [start, end) index pairs `items` of `text` (a dropped Python list, from its `[`
 * at `start`), each of which began its line: read as calls at a line's start are (line-fronts.ts,
 * openFunction), each a command when its name is registered as written, else nothing.
 */
export function lineCallFindings(text: string, start: Position, items: [number, number][], vocabulary: CallVocabulary): DialectFinding[] {
  const named = items.filter(([from]) => vocabulary.callsByName(text.slice(from, text.indexOf("(", from))));
  return itemFindings({ shape: Shape.Function, text, name: "", closer: "", start, end: start }, named, Shape.Function, vocabulary);
}

/**
 * A near-miss (`Shape.NearMiss`) or a JSON array of calls (`Shape.JsonArray`, between its calls)
 * whose `]` (`closer`) never came, the reply or a blank line ending first: `text` from its `[` to
 * where it ended, at `start`. Each call it maps to, read as if closed there, is an error whose hint
 * is that call as a command (it runs only once written whole); anything else is text. A near-miss
 * that maps to nothing so is read again closed right after its first parentheses or braces, so
 * prose after its call (`[execute_command(command="ls") and then I will check`) is left out.
 */
export function unclosedFindings(text: string, closer: string, shape: Shape, start: Position, vocabulary: CallVocabulary): DialectFinding[] {
  const trimmed = text.trimEnd();
  // An action written without `action=` is never run: its own error, closed where it ended.
  if (shape === Shape.ColonAction) return closedFindings(trimmed, closer, shape, start, vocabulary, true);
  const findings = closedFindings(trimmed, closer, shape, start, vocabulary, false);
  if (findings.length > 0 || shape !== Shape.NearMiss) return findings;
  // Prose after a near-miss's call (`[execute_command(command="ls") and then …`): the call ends with its parentheses or braces.
  const cut = firstCallEnd(trimmed);
  const cutFindings = cut > 0 && cut < trimmed.length ? closedFindings(trimmed.slice(0, cut), closer, shape, start, vocabulary, false) : findings;
  return cutFindings.length > 0 ? cutFindings : closedFindings(trimmed, closer, shape, start, vocabulary, true);
}

/**
 * `unclosedFindings` for `trimmed`, closed with `closer` right after it: the commands it maps to,
 * or with `errors` the near-miss's own error when it has a hint (words that are no part of its
 * call, salvage.ts; an unknown action).
 */
function closedFindings(trimmed: string, closer: string, shape: Shape, start: Position, vocabulary: CallVocabulary, errors: boolean): DialectFinding[] {
  const end = new PositionWalk(trimmed, start).at(trimmed.length);
  const closed = trimmed + closer;
  const findings: DialectFinding[] = [];
  for (const finding of findingsOf({ shape, text: closed, name: "", closer: "", start, end }, vocabulary)) {
    const { mapped } = finding;
    if (errors) {
      // An action written without `action=` is told even when too long for its hint to repeat it.
      if (mapped.type === "error" && (mapped.error.hint !== undefined || shape === Shape.ColonAction) && finding.start.offset === start.offset) findings.push(finding);
      continue;
    }
    if (mapped.type !== "command") continue;
    const span = finding.end.offset > end.offset ? { start: finding.start, end } : { start: finding.start, end: finding.end };
    const hint = print(mapped.command);
    const message = `This looks like a tool call but the ${trimmed[0]} before it is never closed; write it as a clio command, ${hint}`;
    findings.push({ ...finding, end: span.end, mapped: { type: "error", error: { code: "unmapped_call", message, hint, protocol: mapped.command.protocol, span } } });
  }
  return findings;
}

/**
 * The calls at the [start, end) index pairs `items` of `candidate`'s text, each read as `itemShape`
 * with its own span; a DeepSeek block's calls are live or inert as the block's start is.
 */
function itemFindings(candidate: Candidate, items: [number, number][], itemShape: Shape, vocabulary: CallVocabulary): DialectFinding[] {
  const { text } = candidate;
  const regionAt = candidate.shape === Shape.DeepSeekCalls ? candidate.start.offset : undefined;
  const positions = new PositionWalk(text, candidate.start);
  const findings: DialectFinding[] = [];
  for (const [itemStart, itemEnd] of items) {
    const item = { shape: itemShape, text: text.slice(itemStart, itemEnd), name: "", closer: "", start: positions.at(itemStart), end: positions.at(itemEnd), regionAt };
    const finding = findingOf(item, vocabulary);
    if (finding !== undefined) findings.push(finding);
  }
  return findings;
}

/** Where the JSON array of calls a `<tool_call>`'s (or `<function_call>`'s, `<tools>`') body holds opens (its `[`), or -1 when the body is no array. */
function toolCallArrayAt(text: string): number {
  let i = text.indexOf(">") + 1;
  while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\r" || text[i] === "\n")) i++;
  return text[i] === "[" ? i : -1;
}

/** `{"tool_calls": [` opening a JSON object (xLAM, OpenAI's message shape): where its array opens, or -1. */
function toolCallsKeyAt(text: string): number {
  const opening = /^\s*\{\s*"tool_calls"\s*:\s*\[/.exec(text);
  return opening === null ? -1 : opening[0].length - 1;
}

/** Reads and maps `candidate`; undefined when it is plain text after all. Never throws. */
function findingOf(candidate: Candidate, vocabulary: CallVocabulary): DialectFinding | undefined {
  const { text, start, end } = candidate;
  const span = { start, end };
  let outcome;
  try {
    outcome = readCandidate(candidate, vocabulary);
  } catch {
    // Reading is plain code over a finished string; should it fail anyway, the candidate is text.
    return undefined;
  }
  const { read, dialect, markup, unknownIsError } = outcome;
  if (read === undefined) return undefined;
  const lineFeed = text.indexOf("\n");
  const preview = (lineFeed < 0 ? text : text.slice(0, lineFeed)).slice(0, 200);
  let mapped: MappedCall;
  if ("problem" in read) {
    const salvaged =
      candidate.shape === Shape.NearMiss || candidate.shape === Shape.ListWords
        ? salvagedNearMiss(text, read, span, vocabulary)
        : candidate.shape === Shape.ToolCall
          ? namedToolCallError(read, span, vocabulary)
          : undefined;
    // A list with other words among its calls, none of which maps to a command, is prose or code (`[f(x) for x in xs]`).
    if (salvaged === undefined && candidate.shape === Shape.ListWords) return undefined;
    const error = salvaged ?? {
      code: "unmapped_call" as const,
      message: `This looks like ${dialect === "hermes" ? "a <tool_call> block" : "a tool call"} but ${read.problem}; write it as a clio command, [PROTOCOL:action=…:key="value"].`,
      span,
    };
    mapped = { type: "error", error };
  } else {
    try {
      mapped = mapCall(rawCallOf(read, dialect, span), vocabulary, unknownIsError);
    } catch {
      return undefined;
    }
  }
  if ((candidate.shape === Shape.ColonAction || candidate.shape === Shape.BareLine) && (mapped.type !== "error" || "problem" in read)) {
    const written = candidate.shape === Shape.ColonAction ? withActionKey(text) : `[${text.trimEnd()}]`;
    mapped = notRunError(mapped.type === "command" ? mapped.command : undefined, written, span, candidate.shape === Shape.ColonAction ? ACTION_WITHOUT_KEY : WITHOUT_BRACKETS);
  }
  if (mapped.type === "text") return undefined;
  if (candidate.shape === Shape.InlineJson && mapped.type === "command") mapped = inlineError(mapped.command, span);
  if (candidate.shape === Shape.InlineFunction) {
    const told = inlineCallOutcome(read, mapped);
    if (told === undefined) return undefined;
    mapped = told;
  }
  // `lineEnd` is set later; made here, so that setting it does not change the object's shape.
  return { start, end, preview, markup, regionAt: candidate.regionAt ?? start.offset, mapped, lineEnd: undefined };
}

function readCandidate(candidate: Candidate, vocabulary: CallVocabulary): { read: ReadResult; dialect: RawCall["dialect"]; markup: boolean; unknownIsError: boolean } {
  const { text, name } = candidate;
  switch (candidate.shape) {
    case Shape.ToolCall: {
      const closer = candidate.closer;
      const closed = endsWithLowerCase(text, closer);
      // `<tool_call name="read_file">{"path": "a.ts"}</tool_call>`: the tool named by an attribute.
      const named = hasAttributes(text, name) ? callFromNamedToolCall(text, name, closer, closed) : undefined;
      if (named !== undefined) return { read: named, dialect: "hermes", markup: true, unknownIsError: true };
      const body = text.slice(startTagEnd(text) + 1, text.length - (closed ? closer.length : 0));
      const trimmed = body.trim();
      // The other wrappers (`<function_call>`, `<tools>`, Cohere's `<|START_ACTION|>`) hold JSON calls only: any other body is prose about them.
      if (closer !== "</tool_call>" && !trimmed.startsWith("{") && !trimmed.startsWith("[")) return { read: undefined, dialect: "hermes", markup: true, unknownIsError: true };
      const read = callFromToolCall(body, closed);
      const dialect = trimmed.startsWith("<function=") ? "qwen-xml" : GLM_NAME.test(trimmed) ? "glm-xml" : "hermes";
      return { read, dialect, markup: true, unknownIsError: true };
    }
    case Shape.FunctionTags: {
      const header = text.indexOf(">");
      const closed = endsWithLowerCase(text, "</function>");
      const body = text.slice(header + 1, closed ? text.length - "</function>".length : text.length);
      return { read: callFromFunctionTags(name.slice("function=".length), body), dialect: "qwen-xml", markup: true, unknownIsError: true };
    }
    case Shape.Invoke: {
      const header = text.indexOf(">");
      const closed = endsWithLowerCase(text, "</invoke>");
      const body = text.slice(header + 1, closed ? text.length - "</invoke>".length : text.length);
      return { read: callFromInvoke(text.slice("<invoke".length, header), body), dialect: "invoke-xml", markup: true, unknownIsError: true };
    }
    case Shape.Element:
      return { read: callFromElement(name, text, candidate.closer), dialect: "xml", markup: true, unknownIsError: false };
    case Shape.NearMiss: {
      // Its brackets are none of these, so the whole text is searched.
      const shaped = /[=({]/.test(text);
      return { read: shaped ? readNearMiss(text, vocabulary) : undefined, dialect: "clio-variant", markup: false, unknownIsError: false };
    }
    case Shape.Function:
    case Shape.FunctionItem:
    case Shape.InlineFunction: {
      const open = text.indexOf("(");
      // A list's calls are plainly calls, once one of them names something registered: one naming nothing is an error.
      const item = candidate.shape === Shape.FunctionItem;
      return {
        read: readFunctionArguments(name === "" ? text.slice(0, open) : name, undefined, text.slice(open + 1, -1)),
        dialect: "function",
        markup: false,
        unknownIsError: item,
      };
    }
    case Shape.Json:
    case Shape.InlineJson: {
      const value = parseJson(text.trim());
      return { read: callFromJson(value), dialect: "json", markup: false, unknownIsError: false };
    }
    case Shape.ToolCallItem:
      return { read: callFromJson(parseJson(text)) ?? { problem: 'its JSON must have "name" and "arguments"' }, dialect: "hermes", markup: true, unknownIsError: true };
    case Shape.React: {
      // Qwen-Agent's step is plainly a call; `Action:` may open a line of prose, `>>>` a quote (and Functionary's `>>>all` is its text).
      const qwenAgent = text.startsWith("✿");
      return { read: callFromReact(text), dialect: qwenAgent ? "qwen-agent" : text.startsWith(">") ? "functionary" : "react", markup: false, unknownIsError: qwenAgent };
    }
    case Shape.DeepSeekCalls:
    case Shape.DeepSeekCall:
    case Shape.Plugin:
    case Shape.Harmony:
    case Shape.Mistral:
      return readTokenCandidate(candidate);
    case Shape.JsonItem:
      return {
        read: callFromJson(parseJson(text)) ?? { problem: 'each of its "tool_calls" must have "name" and "arguments"' },
        dialect: "json",
        markup: false,
        unknownIsError: true,
      };
    case Shape.ColonAction:
      return { read: readNearMiss(withActionKey(text), vocabulary), dialect: "clio-variant", markup: false, unknownIsError: false };
    case Shape.BareLine:
      return { read: readNearMiss(`[${text.trimEnd()}]`, vocabulary), dialect: "clio-variant", markup: false, unknownIsError: false };
    case Shape.ListWords:
      return { read: { problem: "other words come among its calls" }, dialect: "function", markup: false, unknownIsError: false };
    case Shape.JsonArray:
      // Its objects are read one by one (findingsOf): the array itself is no call.
      return { read: undefined, dialect: "json", markup: false, unknownIsError: false };
  }
}

/** Reads a call written between model tokens (tokens.ts): DeepSeek's, Kimi's, InternLM's, harmony's, Mistral's. */
function readTokenCandidate(candidate: Candidate): { read: ReadResult; dialect: RawCall["dialect"]; markup: boolean; unknownIsError: boolean } {
  const { text } = candidate;
  switch (candidate.shape) {
    case Shape.DeepSeekCall:
      return { read: callFromDeepSeek(text), dialect: /argument_begin/i.test(text) ? "kimi" : "deepseek", markup: false, unknownIsError: true };
    case Shape.Plugin: {
      const header = text.indexOf(">");
      const body = text.slice(header + 1, endsWithLowerCase(text, candidate.closer) ? text.length - candidate.closer.length : text.length);
      return { read: callFromPlugin(body), dialect: "internlm", markup: false, unknownIsError: true };
    }
    case Shape.Harmony:
      return { read: callFromHarmony(text), dialect: "harmony", markup: false, unknownIsError: true };
    case Shape.Mistral:
      return { read: callFromMistral(text), dialect: "mistral", markup: false, unknownIsError: true };
    default:
      // A DeepSeek block: its calls are read one by one (findingsOf), the block itself is no call.
      return { read: undefined, dialect: "deepseek", markup: false, unknownIsError: true };
  }
}

/** Whether the tag `text`, named `name`, has attributes: a blank or `/` after its name. */
function hasAttributes(text: string, name: string): boolean {
  const code = text.charCodeAt(name.length + 1);
  return code === 0x20 || code === 0x09 || code === 0x2f;
}

/** Whether `text` ends with `suffix` (lower case) in any case, without lowering all of `text`. */
function endsWithLowerCase(text: string, suffix: string): boolean {
  return text.length >= suffix.length && text.slice(text.length - suffix.length).toLowerCase() === suffix;
}
