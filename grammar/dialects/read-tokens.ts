/**
 * Reading the calls models write between special tokens, out of a candidate's complete text
 * (tokens.ts finds them): DeepSeek's `<｜tool▁call▁begin｜>…<｜tool▁sep｜>…<｜tool▁call▁end｜>`,
 * Kimi K2's `functions.NAME:0<|tool_call_argument_begin|>{…}`, InternLM's
 * `<|action_start|><|plugin|>{…}<|action_end|>`, gpt-oss's harmony `… to=functions.NAME …<|message|>{…}<|call|>`
 * and Mistral's `[TOOL_CALLS]NAME[ARGS]{…}`. Forward searches over a finished string only.
 */
import { callFromJson, type ReadResult } from "./read-call.js";
import { parseJson } from "./relaxed-json.js";

/** A DeepSeek token named `words` (`tool_call_begin`) in any of its spellings: `｜` or `|`, `▁` or `_`. */
function deepSeekToken(words: string): RegExp {
  return new RegExp(`<[|｜]${words.replaceAll("_", "[▁_]")}[|｜]>`, "gi");
}

const CALL_BEGIN = deepSeekToken("tool_call_begin");
const CALL_END = deepSeekToken("tool_call_end");
/** DeepSeek's `<｜tool▁sep｜>`, or Kimi K2's `<|tool_call_argument_begin|>`. */
const SEPARATOR = new RegExp(`${deepSeekToken("tool_sep").source}|${deepSeekToken("tool_call_argument_begin").source}`, "gi");

/** The first match of `token` in `text` at or after `from`: its index and length, or undefined. */
function find(token: RegExp, text: string, from: number): { at: number; length: number } | undefined {
  token.lastIndex = from;
  const match = token.exec(text);
  return match === null ? undefined : { at: match.index, length: match[0].length };
}

/**
 * The [start, end) index pairs of the calls in a DeepSeek block (`<｜tool▁calls▁begin｜>` …): each
 * from its `<｜tool▁call▁begin｜>` to the end of its `<｜tool▁call▁end｜>` (or to the next call, or the
 * block's end, when that token is missing).
 */
export function deepSeekCallsOf(text: string): [number, number][] {
  const calls: [number, number][] = [];
  let begin = find(CALL_BEGIN, text, 0);
  // Each search goes on from where the last one of its token stopped: linear in the text.
  let end = begin === undefined ? undefined : find(CALL_END, text, begin.at);
  while (begin !== undefined) {
    const next = find(CALL_BEGIN, text, begin.at + begin.length);
    if (end !== undefined && end.at < begin.at) end = find(CALL_END, text, begin.at);
    const callEnd = end !== undefined && (next === undefined || end.at < next.at) ? end.at + end.length : (next?.at ?? text.length);
    calls.push([begin.at, callEnd]);
    begin = next;
  }
  return calls;
}

/**
 * One DeepSeek call, from its `<｜tool▁call▁begin｜>`: V3 and R1's `function<｜tool▁sep｜>NAME` with
 * the arguments in a ```json fence on the lines after, V3.1's `NAME<｜tool▁sep｜>{…}`, or Kimi K2's
 * `functions.NAME:0<|tool_call_argument_begin|>{…}`. Undefined
 * when it has no `<｜tool▁sep｜>` (prose about the token).
 */
export function callFromDeepSeek(text: string): ReadResult {
  const begin = find(CALL_BEGIN, text, 0);
  const separator = find(SEPARATOR, text, 0);
  if (begin === undefined || separator === undefined) return undefined;
  const end = find(CALL_END, text, separator.at);
  const before = text.slice(begin.at + begin.length, separator.at).trim();
  let after = text.slice(separator.at + separator.length, end?.at ?? text.length).trim();
  // Kimi K2 names the tool `functions.NAME:INDEX`.
  let name = before.replace(/^functions\./, "").replace(/:\d+$/, "");
  if (!after.startsWith("{")) {
    // V3: the separator follows the type (`function`); the name is the rest of its line.
    const lineEnd = after.indexOf("\n");
    name = (lineEnd < 0 ? after : after.slice(0, lineEnd)).trim();
    after = lineEnd < 0 ? "" : after.slice(lineEnd + 1);
  }
  return { name, ...argumentsOf(after) };
}

/** The JSON object of arguments in `text`, inside a ```json fence or not; a problem when there is none. */
function argumentsOf(text: string): { args: [string, unknown][] } | { problem: string; args?: undefined } {
  const open = text.indexOf("{");
  const close = text.lastIndexOf("}");
  if (open < 0) return text.replaceAll("`", "").replace(/^json/, "").trim() === "" ? { args: [] } : { problem: "its arguments are not a JSON object" };
  const value = parseJson(text.slice(open, close + 1));
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { problem: "its arguments are not a JSON object" };
  return { args: Object.entries(value) };
}

/** InternLM's body of `<|action_start|>` … `<|action_end|>`: `<|plugin|>`, then a JSON call. */
export function callFromPlugin(body: string): ReadResult {
  const trimmed = body.trim();
  const plugin = /^<[|｜]plugin[|｜]>/i.exec(trimmed);
  if (plugin === null) return { problem: "only a <|plugin|> call, a JSON object with name and parameters, is read after <|action_start|>" };
  const value = parseJson(trimmed.slice(plugin[0].length).trim());
  if (value === undefined) return { problem: "its call is not valid JSON" };
  return callFromJson(value) ?? { problem: 'its JSON must have "name" and "parameters"' };
}

/** Mistral's newer form, `[TOOL_CALLS]NAME[ARGS]{…}` (also without `[ARGS]`, or with `[CALL_ID]…` before it). */
export function callFromMistral(text: string): ReadResult {
  const call = /^\[TOOL_CALLS\][ \t]*([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*(?:\[CALL_ID\][ \t]*[A-Za-z0-9_]*[ \t]*)?(?:\[ARGS\][ \t]*)?(\{[\s\S]*\})$/.exec(text);
  if (call === null) return { problem: "its call must be written [TOOL_CALLS]NAME[ARGS]{…}" };
  const value = parseJson(call[2]!);
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { problem: "its arguments are not a JSON object" };
  return { name: call[1]!, args: Object.entries(value) };
}

/**
 * gpt-oss's harmony call, from its `<|start|>` or `<|channel|>`: the header names the recipient
 * (`to=functions.NAME`), the message after `<|message|>` (to `<|call|>`) is its JSON arguments.
 */
export function callFromHarmony(text: string): ReadResult {
  const message = text.indexOf("<|message|>");
  const recipient = /(?:^|\s)to=([^\s<]+)/.exec(text.slice(0, message));
  if (message < 0 || recipient === null) return undefined;
  const end = text.lastIndexOf("<|call|>");
  const name = recipient[1]!.replace(/^functions\./, "");
  return { name, ...argumentsOf(text.slice(message + "<|message|>".length, end > message ? end : text.length)) };
}
