/**
 * Reading the calls of other dialects out of a candidate's complete text: JSON objects
 * (`{"name": …, "arguments": {…}}` and its kin), Qwen's `<function=NAME><parameter=KEY>` form,
 * XML elements with one child per parameter. Each reader returns the call, a problem to report,
 * or undefined when the text is not call-shaped (then it is plain text).
 */

/** A call as read, before mapping: the name as written, an action the form names, the arguments. */
export interface ReadCall {
  name: string;
  action?: string;
  args: [string, unknown][];
  /** Keys whose values were written bare. */
  bare?: string[];
}

export type ReadResult = ReadCall | { problem: string } | undefined;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

const NAME_KEYS = ["name", "tool", "tool_name", "function", "command"];
const ARGUMENT_KEYS = ["arguments", "parameters", "args", "input", "params"];

/** Deeper JSON is not a call, and the engine's parser would run out of stack on it. */
const MAX_DEPTH = 64;

function tooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > MAX_DEPTH) return true;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return false;
}

/** `text` parsed as JSON, or undefined (also when it nests deeper than any call does). */
export function parseJson(text: string): unknown {
  if (text.length > MAX_DEPTH && tooDeep(text)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A JSON value as a call: `{"name", "arguments"|"parameters"|…}`, OpenAI's
 * `{"function": {"name", "arguments": "<json text>"}}`, or a name with the arguments beside it.
 */
export function callFromJson(value: unknown): ReadResult {
  if (!isObject(value)) return undefined;
  let object = value;
  if (isObject(object.function)) object = object.function;
  const nameKey = NAME_KEYS.find((key) => typeof object[key] === "string");
  if (nameKey === undefined) return undefined;
  const name = object[nameKey] as string;
  const argumentKey = ARGUMENT_KEYS.find((key) => Object.hasOwn(object, key));
  let args: unknown;
  if (argumentKey === undefined) args = Object.fromEntries(Object.entries(object).filter(([key]) => key !== nameKey && key !== "type" && key !== "id"));
  else args = object[argumentKey];
  if (typeof args === "string") {
    const parsed = parseJson(args);
    if (!isObject(parsed)) return { problem: `its ${argumentKey} is a string that is not a JSON object` };
    args = parsed;
  }
  if (!isObject(args)) return { problem: `its ${argumentKey ?? "arguments"} must be a JSON object, not ${jsonType(args)}` };
  return { name, args: Object.entries(args) };
}

/** A parameter value written between tags: one line trimmed, several lines without the line breaks next to the tags. */
function tagValue(text: string): string {
  if (!text.includes("\n")) return text.trim();
  let value = text.replace(/^[ \t]*\r?\n/, "");
  value = value.replace(/\r?\n[ \t]*$/, "");
  return value;
}

/** The body of `<function=NAME>` (after its `>`, up to `</function>`): `<parameter=KEY>value</parameter>` each. */
export function callFromFunctionTags(name: string, body: string): ReadResult {
  const args: [string, unknown][] = [];
  const pattern = /<parameter=([^>\s]+)\s*>([\s\S]*?)<\/parameter\s*>/g;
  for (let match = pattern.exec(body); match; match = pattern.exec(body)) args.push([match[1]!, tagValue(match[2]!)]);
  return { name: name.trim(), args };
}

/** An element's body: one child element per parameter (`<path>a.ts</path>`). */
export function callFromElement(name: string, body: string): ReadResult {
  const args: [string, unknown][] = [];
  const pattern = /<([A-Za-z_][A-Za-z0-9_.-]*)\s*>([\s\S]*?)<\/\1\s*>/g;
  for (let match = pattern.exec(body); match; match = pattern.exec(body)) args.push([match[1]!, tagValue(match[2]!)]);
  if (args.length === 0 && body.trim() !== "") return { problem: "its parameters must each be an element of their own, e.g. <path>src/a.ts</path>" };
  return { name, args };
}

/** The body of a `<tool_call>` block: a JSON call, or Qwen's `<function=NAME>` form. */
export function callFromToolCall(body: string): ReadResult {
  const trimmed = body.trim();
  const functionTag = /^<function=([^>]+)>([\s\S]*?)(?:<\/function\s*>\s*)?$/.exec(trimmed);
  if (functionTag) return callFromFunctionTags(functionTag[1]!, functionTag[2]!);
  if (!trimmed.startsWith("{")) return { problem: 'its body must be a JSON object such as {"name": "…", "arguments": {…}}' };
  const value = parseJson(trimmed);
  if (value === undefined) return { problem: "its body is not valid JSON" };
  return callFromJson(value) ?? { problem: 'its JSON must have "name" and "arguments"' };
}
