/**
 * Reading the calls of other dialects out of a candidate's complete text: JSON objects
 * (`{"name": …, "arguments": {…}}` and its kin), Qwen's `<function=NAME><parameter=KEY>` form,
 * GLM's `NAME<arg_key>KEY</arg_key><arg_value>…` form, `<invoke name="NAME">` with
 * `<parameter name="KEY">` children, XML elements with one child per parameter. Each reader
 * returns the call, a problem to report, or undefined when the text is not call-shaped (then it
 * is plain text).
 */
import { parseJson } from "./relaxed-json.js";

/** A call as read, before mapping: the name as written, an action the form names, the arguments. */
export interface ReadCall {
  name: string;
  action?: string;
  args: [string, unknown][];
  /** Keys whose values were written bare. */
  bare?: string[];
  /** The one argument was written without its name (`read_file("a.ts")`): its key is "". */
  positional?: boolean;
}

/**
 * Why a call-shaped text could not be read; for a near-miss (readNearMiss) also what could be
 * read before that (`partial`: its name and the parameters up to the first it could not read)
 * and the text it stopped at (`unread`).
 */
export interface ReadProblem {
  problem: string;
  partial?: ReadCall;
  unread?: string;
}

export type ReadResult = ReadCall | ReadProblem | undefined;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** The keys that name the tool in a JSON call (also what a JSON call in prose may open with, inline-json.ts). */
export const NAME_KEYS = ["name", "tool", "tool_name", "function", "command"];
const ARGUMENT_KEYS = ["arguments", "parameters", "args", "input", "params", "tool_input"];

/**
 * A JSON value as a call: `{"name", "arguments"|"parameters"|…}`, OpenAI's
 * `{"function": {"name", "arguments": "<json text>"}}`, or a name with the arguments beside it;
 * undefined for a tool's definition (its parameters a JSON Schema) and other objects.
 */
export function callFromJson(value: unknown): ReadResult {
  if (!isObject(value)) return undefined;
  let object = value;
  // OpenAI's shapes: `{"function": {…}}` and the older `{"function_call": {…}}`; AutoGPT's `{"thoughts": {…}, "command": {"name": …, "args": {…}}}`.
  if (isObject(object.function)) object = object.function;
  else if (isObject(object.function_call)) object = object.function_call;
  else if (isObject(object.command) && typeof object.command.name === "string") object = object.command;
  const nameKey = NAME_KEYS.find((key) => typeof object[key] === "string");
  if (nameKey === undefined) return actionCallFromJson(object);
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
  // A tool's definition (as in Hermes' `<tools>`), its parameters a JSON Schema: no call.
  if (isToolDefinition(object)) return undefined;
  return { name, args: Object.entries(args) };
}

/** LangChain's agent action, `{"action": NAME, "action_input": {…}}`; undefined for any other object. */
function actionCallFromJson(object: JsonObject): ReadResult {
  if (typeof object.action !== "string" || !Object.hasOwn(object, "action_input")) return undefined;
  const args = object.action_input;
  // A string is LangChain's answer or a one-input tool's input: no parameter can be named from it.
  if (!isObject(args)) return undefined;
  return { name: object.action, args: Object.entries(args) };
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
  const trimmed = body.trim();
  // Llama 3.1's custom form writes the arguments as one JSON object: `<function=NAME>{…}</function>`.
  if (trimmed.startsWith("{")) {
    const value = parseJson(trimmed);
    if (!isObject(value)) return { problem: "its body is not a JSON object of arguments" };
    return { name: name.trim(), args: Object.entries(value) };
  }
  const args: [string, unknown][] = [];
  const pattern = /<parameter=([^>\s]+)\s*>([\s\S]*?)<\/parameter\s*>/g;
  for (let match = pattern.exec(body); match; match = pattern.exec(body)) args.push([match[1]!, tagValue(match[2]!)]);
  return { name: name.trim(), args };
}

/** `name="…"` or `name='…'` in a tag's attributes, or undefined; each character is looked at a bounded number of times. */
function nameAttribute(attributes: string): string | undefined {
  for (let at = attributes.indexOf("name"); at >= 0; at = attributes.indexOf("name", at + 4)) {
    if (at > 0 && !/\s/.test(attributes[at - 1]!)) continue;
    const equals = afterBlanks(attributes, at + 4);
    if (attributes[equals] !== "=") continue;
    const open = afterBlanks(attributes, equals + 1);
    const quote = attributes[open];
    if (quote !== '"' && quote !== "'") continue;
    const close = attributes.indexOf(quote, open + 1);
    return close < 0 ? undefined : attributes.slice(open + 1, close);
  }
  return undefined;
}

/**
 * `<invoke name="NAME">` (the text between `<invoke` and its `>` is `attributes`) and its body:
 * `<parameter name="KEY">value</parameter>` each, as Anthropic's prompt format and MiniMax write it.
 * Read with forward searches only, so a body of many unclosed parameters costs linear time.
 */
export function callFromInvoke(attributes: string, body: string): ReadResult {
  const name = nameAttribute(attributes);
  if (name === undefined) return { problem: 'its <invoke> tag must name the tool, as in <invoke name="read_file">' };
  const args: [string, unknown][] = [];
  for (let at = body.indexOf("<parameter"); at >= 0; at = body.indexOf("<parameter", at)) {
    const headerEnd = body.indexOf(">", at);
    if (headerEnd < 0) break;
    const close = body.indexOf("</parameter", headerEnd);
    const key = nameAttribute(body.slice(at + "<parameter".length, headerEnd));
    if (close < 0 || key === undefined) break;
    args.push([key, tagValue(body.slice(headerEnd + 1, close))]);
    at = close + "</parameter".length;
  }
  if (args.length === 0 && body.trim() !== "") return { problem: 'its parameters must each be written <parameter name="KEY">value</parameter>' };
  return { name: name.trim(), args };
}

/** The index of the first character at or after `from` that is not a blank or line break. */
function afterBlanks(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

const ARG_KEY = "<arg_key>";
const ARG_KEY_END = "</arg_key>";
const ARG_VALUE = "<arg_value>";
const ARG_VALUE_END = "</arg_value>";

/**
 * GLM's body of a `<tool_call>` after the name: `<arg_key>KEY</arg_key><arg_value>value</arg_value>`
 * pairs, blanks between them and nothing else. Read with forward searches only (linear time).
 */
function callFromArgumentKeys(name: string, rest: string): ReadResult {
  const args: [string, unknown][] = [];
  const malformed = { problem: "its arguments must each be <arg_key>KEY</arg_key> then <arg_value>value</arg_value>" };
  for (let at = afterBlanks(rest, 0); at < rest.length; at = afterBlanks(rest, at)) {
    if (!rest.startsWith(ARG_KEY, at)) return malformed;
    const keyEnd = rest.indexOf(ARG_KEY_END, at + ARG_KEY.length);
    if (keyEnd < 0) return malformed;
    const valueAt = afterBlanks(rest, keyEnd + ARG_KEY_END.length);
    if (!rest.startsWith(ARG_VALUE, valueAt)) return malformed;
    const valueEnd = rest.indexOf(ARG_VALUE_END, valueAt + ARG_VALUE.length);
    if (valueEnd < 0) return malformed;
    args.push([rest.slice(at + ARG_KEY.length, keyEnd).trim(), tagValue(rest.slice(valueAt + ARG_VALUE.length, valueEnd))]);
    at = valueEnd + ARG_VALUE_END.length;
  }
  return { name, args };
}

/**
 * A ReAct step, `Action: NAME` then `Action Input: INPUT` on the next line (LangChain's agents), or
 * Qwen-Agent's `✿FUNCTION✿: NAME` then `✿ARGS✿: INPUT`, or Functionary's `>>>NAME` then INPUT (on the next line, or a JSON object on the same one):
 * a JSON object's entries are the arguments; any other input is one argument named `input`, which
 * the mapping gives to the action's first parameter (mapping.ts).
 */
export function callFromReact(text: string): ReadResult {
  // Functionary's arguments may also follow its name on the same line (`>>>read_file {"path": "a.ts"}`).
  const step =
    /^(?:(?:Action|✿FUNCTION✿):[ \t]*|>>>)([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*\r?\n(?:(?:Action Input|✿ARGS✿):)?[ \t]*([\s\S]*)$/.exec(text) ??
    /^>>>([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*(\{[\s\S]*)$/.exec(text);
  if (!step) return undefined;
  const input = step[2]!.trim();
  if (input === "") return { name: step[1]!, args: [] };
  if (input.startsWith("[")) return { problem: 'its Action Input is not a JSON object; write the arguments as {"path": "a.ts"}' };
  if (!input.startsWith("{")) return { name: step[1]!, args: [["input", input]] };
  const value = parseJson(input);
  if (!isObject(value)) return { problem: 'its Action Input is not a JSON object; write the arguments as {"path": "a.ts"}' };
  return { name: step[1]!, args: Object.entries(value) };
}

/** An element's body: one child element per parameter (`<path>a.ts</path>`). */
export function callFromElement(name: string, text: string, closer: string): ReadResult {
  const headerEnd = startTagEnd(text);
  const args = readAttributes(text.slice(name.length + 1, closer === "" ? headerEnd - 1 : headerEnd));
  if (args === undefined) return { problem: 'its attributes must each be written key="value"' };
  const body = closer === "" ? "" : text.slice(headerEnd + 1, text.length - closer.length);
  const element = /<([A-Za-z_][A-Za-z0-9_.-]*)\s*>([\s\S]*?)<\/\1\s*>/g;
  let elements = 0;
  for (let match = element.exec(body); match; match = element.exec(body), elements++) args.push([match[1]!, tagValue(match[2]!)]);
  if (elements === 0 && body.trim() !== "") return { problem: 'its parameters must each be an element of their own, e.g. <path>src/a.ts</path>, or an attribute, path="src/a.ts"' };
  return { name, args };
}

/** A start tag's attributes, `key="value"` each (`'value'` or unquoted too, XML's references read); undefined when one is not. */
export function readAttributes(attributes: string): [string, unknown][] | undefined {
  const args: [string, unknown][] = [];
  const attribute = /([A-Za-z_][A-Za-z0-9_.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/gy;
  for (let at = 0; ; at = attribute.lastIndex) {
    while (at < attributes.length && /\s/.test(attributes[at]!)) at++;
    if (at === attributes.length) return args;
    attribute.lastIndex = at;
    const match = attribute.exec(attributes);
    if (match === null) return undefined;
    args.push([match[1]!, unescapeXml(match[2] ?? match[3] ?? match[4]!)]);
  }
}

/** Where an element's start tag ends: its `>` outside quoted attribute values. */
export function startTagEnd(text: string): number {
  let quote = "";
  for (let index = 0; index < text.length; index++) {
    const character = text[index]!;
    if (quote !== "") {
      if (character === quote) quote = "";
    } else if (character === '"' || character === "'") quote = character;
    else if (character === ">") return index;
  }
  return text.length;
}

const XML_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** An attribute value with XML's five named entities and numeric references read. */
function unescapeXml(value: string): string {
  if (!value.includes("&")) return value;
  return value.replace(/&(amp|lt|gt|quot|apos|#\d{1,7}|#x[0-9A-Fa-f]{1,6});/g, (whole, entity: string) => {
    if (entity[0] !== "#") return XML_ENTITIES[entity]!;
    const code = entity[1] === "x" ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** A tool's name opening a `<tool_call>`'s body, alone or before its first `<arg_key>` (GLM). */
export const GLM_NAME = /^([A-Za-z_][A-Za-z0-9_.:-]*)(?=\s*(?:<arg_key>|$))/;
/** GLM's name and first `<arg_key>`: enough of an unclosed `<tool_call>`'s body to read it as a call. */
export const GLM_OPENING = /^[A-Za-z_][A-Za-z0-9_.:-]*\s*<arg_key>/;

/** The body of a `<tool_call>` block: a JSON call, Qwen's `<function=NAME>` form or GLM's `NAME<arg_key>…` form. */
export function callFromToolCall(body: string, closed: boolean): ReadResult {
  const trimmed = withoutFence(body.trim());
  const functionTag = /^<function=([^>]+)>([\s\S]*?)(?:<\/function\s*>\s*)?$/.exec(trimmed);
  if (functionTag) return callFromFunctionTags(functionTag[1]!, functionTag[2]!);
  const named = GLM_NAME.exec(trimmed);
  if (named) return callFromArgumentKeys(named[1]!, trimmed.slice(named[0].length));
  if (!trimmed.startsWith("{")) return { problem: 'its body must be a JSON object such as {"name": "…", "arguments": {…}}' };
  // A body its closing tag ends may lack a closing brace (the model ended the call); one the reply cut short may not.
  const value = parseJson(trimmed, closed);
  if (value === undefined) return { problem: "its body is not valid JSON" };
  return (
    callFromJson(value) ?? {
      problem: isToolDefinition(value) ? "it holds a tool's definition (its parameters a JSON Schema), not a call" : 'its JSON must have "name" and "arguments"',
    }
  );
}

/** A body written as a fenced code block (```` ```json ````, then the call, then ```` ``` ````): the call inside it; else `body` itself. */
function withoutFence(body: string): string {
  if (!body.startsWith("```") || !body.endsWith("```") || body.length < 7) return body;
  const lineEnd = body.indexOf("\n");
  return lineEnd < 0 ? body : body.slice(lineEnd + 1, body.length - 3).trim();
}

/** Whether `value` is a tool's definition: a name, and parameters that are a JSON Schema (`{"type": "object", "properties": {…}}`). */
function isToolDefinition(value: unknown): boolean {
  if (!isObject(value)) return false;
  const definition = isObject(value.function) ? value.function : value;
  const parameters = definition.parameters;
  return isObject(parameters) && parameters.type === "object" && isObject(parameters.properties);
}
