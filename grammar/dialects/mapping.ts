/**
 * Turning a call written in another dialect into a Command of this language — or, when the
 * mapping onto one protocol, action and parameters is not plain, into an error whose hint is
 * the equivalent command written in this language.
 */
import type { Command, Dialect, Parameter, Span, SyntaxError } from "../ast.js";
import { BACKSLASH, QUOTE } from "../chars.js";
import { decodeParameter, type ParameterKind } from "../kinds.js";
import { isBareSafe, print } from "../printer.js";
import { isArgumentSeparator, readPairs } from "./read-arguments.js";
import type { ReadCall } from "./read-call.js";
import type { CallVocabulary, VocabularyAction, VocabularyProtocol } from "./vocabulary.js";

/** A call as read from its dialect, before it is mapped. */
export interface RawCall {
  dialect: Exclude<Dialect, "clio">;
  /** The tool or protocol name as written. */
  name: string;
  /** An action the form itself names (`FILE_OP.read(…)`). */
  action?: string | undefined;
  /** Arguments in order: key and value (a JSON value, or text). */
  args: [string, unknown][];
  /** Keys whose values were written bare (near-misses of this language): kept bare when they decode. */
  bare?: string[] | undefined;
  /** The one argument was written without its name (read-call.ts, ReadCall). */
  positional?: boolean | undefined;
  span: Span;
}

/** The call a reading gives (read-call.ts, `ReadCall`), written in `dialect` at `span`: made with all its fields at once, so that every call has one shape. */
export function rawCallOf(read: ReadCall, dialect: RawCall["dialect"], span: Span): RawCall {
  return { dialect, name: read.name, args: read.args, span, action: read.action, bare: read.bare, positional: read.positional };
}

export type MappedCall =
  /** The command; its equivalent in this language is `print(command)`, made only where it is shown. */
  | { type: "command"; command: Command }
  | { type: "error"; error: SyntaxError }
  /** It names nothing registered: plain text. */
  | { type: "text" };

interface Resolved {
  protocol: VocabularyProtocol;
  action: string | undefined;
  rename: Readonly<Record<string, string>>;
  fixed: Readonly<Record<string, string>>;
  ignore?: string[] | undefined;
}

/** No renamed and no fixed parameters. */
const NONE: Readonly<Record<string, string>> = Object.freeze({});

const DIALECT_NAMES: Record<RawCall["dialect"], string> = {
  "clio-variant": "a near-miss of clio's command form",
  hermes: "a <tool_call> block",
  json: "a JSON tool call",
  "qwen-xml": "a <function=…> call",
  "glm-xml": "a <tool_call> with <arg_key> and <arg_value>",
  "invoke-xml": 'an <invoke name="…"> call',
  deepseek: "a DeepSeek <｜tool▁call▁begin｜> call",
  mistral: "a Mistral [TOOL_CALLS] call",
  internlm: "an InternLM <|action_start|><|plugin|> call",
  "qwen-agent": "a Qwen-Agent step (✿FUNCTION✿ / ✿ARGS✿)",
  kimi: "a Kimi K2 <|tool_call_begin|> call",
  functionary: "a Functionary step (>>>NAME, then its JSON arguments)",
  harmony: "a gpt-oss harmony call (<|channel|>commentary to=functions.NAME)",
  react: "a ReAct step (Action / Action Input)",
  xml: "an XML tool call",
  function: "a function-call",
};

/** How the dialect is named in messages to the model. */
export function describeDialect(dialect: RawCall["dialect"]): string {
  return DIALECT_NAMES[dialect];
}

/**
 * Maps `call`. `unknownIsError`: a name that is nothing registered is an error (a `<tool_call>`
 * is plainly meant as a call) rather than plain text.
 */
export function mapCall(written: RawCall, vocabulary: CallVocabulary, unknownIsError: boolean): MappedCall {
  const resolved = resolve(written, vocabulary);
  const call = typeof resolved === "object" ? withInputPairs(written, resolved) : written;
  if (resolved === undefined) {
    if (!unknownIsError) return { type: "text" };
    const known = vocabulary.names();
    return fail(
      call,
      `${describeDialect(call.dialect)} names "${call.name}", which is no clio command. clio's commands: ${known.join(", ")}.`,
      `Write a clio command, e.g. [${known[0] ?? "PROTOCOL"}:action=…:key="value"]`,
    );
  }
  if (typeof resolved === "string") return fail(call, resolved, undefined);
  const { protocol, fixed } = resolved;
  let action = resolved.action;
  const args = call.args;
  for (let k = 0; action === undefined && k < args.length; k++) {
    const [key, value] = args[k]!;
    if (isActionKey(key) && typeof value === "string" && !resolved.ignore?.includes(key)) action = value;
  }
  if (action === undefined) {
    const message = `${describeDialect(call.dialect)} names ${protocol.name} but no action (one of: ${actionList(protocol)}).`;
    return fail(call, message, draft(protocol, firstAction(protocol), givenValues(call, resolved)), protocol.name);
  }
  const definition = Object.hasOwn(protocol.actions, action) ? protocol.actions[action] : protocol.actions[action.toLowerCase()];
  if (!definition) {
    return fail(
      call,
      `${protocol.name} has no action "${action}" (its actions: ${actionList(protocol)}).`,
      draft(protocol, firstAction(protocol), givenValues(call, resolved)),
      protocol.name,
    );
  }
  action = action.toLowerCase();
  if (call.positional) {
    // Which parameter an unnamed argument is, the call does not say: told, with the first parameter as the guess, not run.
    const first = Object.keys(definition.parameters)[0] ?? "value";
    const message = `This looks like ${describeDialect(call.dialect)} whose one argument has no name, so nothing ran; the hint takes it for ${protocol.name}.${action}'s first parameter, ${first}.`;
    return fail(call, message, draft(protocol, action, [[first, call.args[0]![1]]]), protocol.name);
  }
  // The parameters are made from the arguments as given, with no list of them made first (an error's hint makes one).
  const parameters: Parameter[] = [parameter("action", "bare", action, call.span)];
  // A ReAct or Functionary step's plain input (read-call.ts, callFromReact) is the value of the action's first parameter.
  const plainInput = isPlainInput(call) && !Object.hasOwn(definition.parameters, "input") ? Object.keys(definition.parameters)[0] : undefined;
  for (let k = 0; k < args.length; k++) {
    const key = plainInput ?? args[k]![0];
    if (resolved.ignore?.includes(key) || isActionKey(key)) continue;
    const problem = addParameter(parameters, definition, renamed(resolved, key), args[k]![1], call);
    if (problem !== undefined) return fail(call, `${protocol.name}.${action}: ${problem}.`, draft(protocol, action, givenValues(call, resolved)), protocol.name);
  }
  if (fixed !== NONE) {
    for (const key in fixed) {
      if (argumentNamed(call, resolved, key)) continue;
      const problem = addParameter(parameters, definition, key, fixed[key], call);
      if (problem !== undefined) return fail(call, `${protocol.name}.${action}: ${problem}.`, draft(protocol, action, givenValues(call, resolved)), protocol.name);
    }
  }
  const command: Command = { protocol: protocol.name, name: call.name, parameters, span: call.span, dialect: call.dialect };
  return { type: "command", command };
}

/** Whether `call` is a ReAct or Functionary step whose input was plain text (read-call.ts, callFromReact: one `input` argument). */
function isPlainInput(call: RawCall): boolean {
  const { args } = call;
  return (call.dialect === "react" || call.dialect === "functionary") && args.length === 1 && args[0]![0] === "input" && typeof args[0]![1] === "string";
}

/**
 * A step's plain input written as `key=value` pairs (`action=read path=a.ts`, `path="a.ts"`) is
 * those arguments when every key is the action's (named there or by the call) or one of the
 * action's parameters; otherwise `call` as it is, its input one value.
 */
function withInputPairs(call: RawCall, resolved: Resolved): RawCall {
  if (!isPlainInput(call)) return call;
  const input = call.args[0]![1] as string;
  const pairs = readPairs(input, isArgumentSeparator);
  if ("problem" in pairs || pairs.args.length === 0) return call;
  let action = resolved.action;
  for (const [key, value] of pairs.args) if (action === undefined && isActionKey(key) && typeof value === "string") action = value;
  if (action === undefined) return call;
  const { actions } = resolved.protocol;
  const definition = Object.hasOwn(actions, action) ? actions[action] : actions[action.toLowerCase()];
  if (definition === undefined) return call;
  const names = Object.keys(definition.parameters).map((name) => name.toLowerCase());
  for (const [key] of pairs.args) {
    if (!isActionKey(key) && !resolved.ignore?.includes(key) && !names.includes(renamed(resolved, key).toLowerCase())) return call;
  }
  return { ...call, args: pairs.args, bare: pairs.bare };
}

/** Adds the parameter `writtenKey` (as renamed) with `value` to `parameters`; what is wrong with it, if anything. */
function addParameter(parameters: Parameter[], definition: VocabularyAction, writtenKey: string, value: unknown, call: RawCall): string | undefined {
  if (value === null || value === undefined) return undefined;
  const key = Object.hasOwn(definition.parameters, writtenKey)
    ? writtenKey
    : (Object.keys(definition.parameters).find((name) => name.toLowerCase() === writtenKey.toLowerCase()) ?? writtenKey);
  const kind: ParameterKind = definition.parameters[key] ?? "text";
  const made = valueParameter(key, kind, value, call.bare?.includes(writtenKey) === true, call.span);
  if (typeof made === "string") return made;
  for (let k = 0; k < parameters.length; k++) if (parameters[k]!.key === key) return `${key} is given twice`;
  parameters.push(made);
  return undefined;
}

/** `action` in any case, compared without lower-casing (which makes a new string). */
function isActionKey(key: string): boolean {
  if (key.length !== 6) return false;
  for (let k = 0; k < 6; k++) if ((key.charCodeAt(k) | 0x20) !== ACTION_CODES[k]) return false;
  return true;
}

const ACTION_CODES = [0x61, 0x63, 0x74, 0x69, 0x6f, 0x6e];

/** `key` as the alias renames it. */
function renamed(resolved: Resolved, key: string): string {
  const rename = resolved.rename;
  return rename === NONE ? key : (rename[key] ?? rename[key.toLowerCase()] ?? key);
}

/** Whether an argument, renamed, is called `key`. */
function argumentNamed(call: RawCall, resolved: Resolved, key: string): boolean {
  for (const [written] of call.args) if (!resolved.ignore?.includes(written) && !isActionKey(written) && renamed(resolved, written) === key) return true;
  return false;
}

/** The arguments as given, but the action: keys renamed, then the fixed parameters no argument gives. */
function givenValues(call: RawCall, resolved: Resolved): [string, unknown][] {
  return aliasedArguments(call.args, { parameters: resolved.rename, fixed: resolved.fixed, ignore: resolved.ignore });
}

/** How another agent's tool name maps its arguments onto an action's (a protocol's `ToolAlias`, the vocabulary's alias). */
export interface ArgumentRenaming {
  parameters?: Readonly<Record<string, string>> | undefined;
  fixed?: Readonly<Record<string, string>> | undefined;
  ignore?: readonly string[] | undefined;
}

/**
 * The arguments of a call made under another agent's tool name, as the action's: the action's key
 * and the ignored ones left out, the others renamed (in any case), then the fixed arguments none
 * of them gives. Also what the checks' corrected command is made of (src/manager/corrections.ts).
 */
export function aliasedArguments<Value>(args: readonly (readonly [string, Value])[], renaming: ArgumentRenaming): [string, Value | string][] {
  const rename = renaming.parameters ?? NONE;
  const values: [string, Value | string][] = [];
  for (const [key, value] of args) {
    if (renaming.ignore?.includes(key) || isActionKey(key)) continue;
    values.push([rename === NONE ? key : (rename[key] ?? rename[key.toLowerCase()] ?? key), value]);
  }
  const fixed = renaming.fixed ?? NONE;
  for (const key in fixed) if (!values.some(([existing]) => existing === key)) values.push([key, fixed[key]!]);
  return values;
}

function actionList(protocol: VocabularyProtocol): string {
  return Object.keys(protocol.actions).join(", ");
}

function firstAction(protocol: VocabularyProtocol): string {
  return Object.keys(protocol.actions)[0] ?? "ACTION";
}

/** The equivalent command in this language, for an error's hint: every value quoted. */
function draft(protocol: VocabularyProtocol, action: string, values: [string, unknown][]): string {
  return print({
    protocol: protocol.name,
    parameters: [{ key: "action", form: "bare", text: action }, ...values.map(([key, value]) => ({ key, form: "quoted" as const, text: asText(value) }))],
  });
}

function resolve(call: RawCall, vocabulary: CallVocabulary): Resolved | string | undefined {
  const target = vocabulary.resolve(call.name, call.dialect === "xml" || call.dialect === "hermes" || call.dialect === "json");
  if (!target) return undefined;
  switch (target.type) {
    case "protocol":
      return { protocol: target.protocol, action: target.action ?? call.action, rename: NONE, fixed: NONE };
    case "alias":
      return { protocol: target.protocol, action: target.alias.action, rename: target.alias.parameters ?? NONE, fixed: target.alias.fixed ?? NONE, ignore: target.alias.ignore };
    case "action":
      return { protocol: target.protocol, action: target.action, rename: NONE, fixed: NONE };
    case "ambiguous-action": {
      const owners = target.protocols.map((protocol) => `[${protocol.name}:action=${target.action}:…]`);
      return `"${call.name}" is an action of ${target.protocols.map((protocol) => protocol.name).join(", ")}; write the command with its protocol: ${owners.join(" or ")}`;
    }
  }
}

function valueParameter(key: string, kind: ParameterKind, value: unknown, writtenBare: boolean, span: Span): Parameter | string {
  const structured = typeof value === "object";
  if (structured && kind !== "json") return `${key} must be ${kind === "word" ? "a single word or number" : "text"}, not a JSON ${Array.isArray(value) ? "array" : "object"}`;
  const text = asText(value);
  if (kind === "bytes") return isBareSafe(text) ? parameter(key, "bare", text, span) : `${key} must be base64 bytes`;
  if (kind === "word") return parameter(key, isBareSafe(text) ? "bare" : "quoted", text, span);
  if (writtenBare && isBareSafe(text) && decodeParameter(parameter(key, "bare", text, span), kind).ok) return parameter(key, "bare", text, span);
  return parameter(key, "quoted", text, span);
}

function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  return String(value);
}

function parameter(key: string, form: Parameter["form"], text: string, span: Span): Parameter {
  return { key, form, raw: form === "quoted" ? quoted(text) : text, text, span };
}

/** `JSON.stringify(text)`, without its call for text that has nothing to escape. */
function quoted(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === QUOTE || code === BACKSLASH || (code >= 0xd800 && code <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}

function fail(call: RawCall, message: string, hint: string | undefined, protocol?: string): MappedCall {
  const error: SyntaxError = { code: "unmapped_call", message, span: call.span };
  if (hint !== undefined) error.hint = hint;
  if (protocol !== undefined) error.protocol = protocol;
  return { type: "error", error };
}
