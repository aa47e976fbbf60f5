/**
 * A near-miss of this language that does not read as one call — prose after its parameters
 * (`[FILE_OP action=read path="a.ts" which holds the config]`), beside its call
 * (`[read_file(path="a.ts") is how I would start]`) or between its calls — is never run: it is
 * an error whose hint holds the commands of what could be read, one a line. Nor is a command whose
 * action is written without its `action=` (`[GIT:status]`, colon-action.ts): its hint is the command.
 */
import type { Command, Span, SyntaxError } from "../ast.js";
import { print } from "../printer.js";
import { HINT_LIMIT } from "../repair.js";
import { mapCall, type MappedCall, rawCallOf } from "./mapping.js";
import { isNameCharacter } from "./near-name.js";
import { CARRIAGE_RETURN, COMMA, SPACE, TAB } from "./states.js";
import { callsAmongWords, normaliseFullwidth, readFunctionArguments } from "./read-arguments.js";
import type { ReadCall, ReadProblem } from "./read-call.js";
import type { CallVocabulary } from "./vocabulary.js";

/** Words quoted in a message are cut to this length. */
const QUOTED_LENGTH = 60;

/**
 * The error for the near-miss `text` (from its `[` through its `]`) that could not be read
 * (`read`): its hint the calls among its words that map to commands, or else its name and the
 * parameters before the first it could not read; undefined when neither maps to a command.
 */
export function salvagedNearMiss(text: string, read: ReadProblem, span: Span, vocabulary: CallVocabulary): SyntaxError | undefined {
  const inner = normaliseFullwidth(text).slice(1, -1);
  const commands: string[] = [];
  const words: string[] = [];
  let protocol: string | undefined;
  let from = 0;
  for (const [start, end] of callsAmongWords(inner)) {
    const open = inner.indexOf("(", start);
    const call = readFunctionArguments(inner.slice(start, open), undefined, inner.slice(open + 1, end - 1));
    const command = call === undefined || "problem" in call ? undefined : commandOf(call, span, vocabulary);
    if (command === undefined) continue;
    commands.push(command.text);
    protocol ??= command.protocol;
    words.push(inner.slice(from, start));
    from = end;
  }
  words.push(inner.slice(from));
  if (commands.length > 0) {
    const hint = commands.join("\n");
    const several = commands.length > 1;
    const what = several ? `${commands.length} tool calls in brackets with other words among them` : "a tool call in brackets with other words beside it";
    const write = several ? "them as clio commands, one a line" : "it as a clio command";
    return { code: "unmapped_call", message: `This looks like ${what}${quoted(words.join(" "))}, so nothing ran; write ${write}: ${hint}`, hint, protocol, span };
  }
  const command = read.partial === undefined ? undefined : commandOf(read.partial, span, vocabulary);
  if (command === undefined) return undefined;
  const hint = command.text;
  const unread = folded(read.unread ?? "");
  const because = unread === "" ? read.problem : `the words "${unread}" are no parameters`;
  return {
    code: "unmapped_call",
    message: `This looks like a tool call, but ${because}, so nothing ran; write it as a clio command with the parameters that could be read: ${hint}`,
    hint,
    protocol: command.protocol,
    span,
  };
}

/** The command `call` maps to, written out; for a call whose one argument has no name, the mapping's guess (its error's hint). */
function commandOf(call: ReadCall, span: Span, vocabulary: CallVocabulary): { text: string; protocol: string } | undefined {
  const mapped = mapCall(rawCallOf(call, "clio-variant", span), vocabulary, false);
  if (mapped.type === "command") return { text: print(mapped.command), protocol: mapped.command.protocol };
  if (mapped.type === "error" && call.positional && mapped.error.hint !== undefined) return { text: mapped.error.hint, protocol: mapped.error.protocol ?? "" };
  return undefined;
}

/** ` ("words")` for the words `text` holds; empty for none. */
function quoted(text: string): string {
  const words = folded(text);
  return words === "" ? "" : ` ("${words}")`;
}

/** `text` with its blanks folded, without separators around it, cut to `QUOTED_LENGTH`. */
function folded(text: string): string {
  const words = text.replace(/\s+/g, " ").replace(/^[ ,;]+|[ ,;]+$/g, "");
  return words.length > QUOTED_LENGTH ? `${words.slice(0, QUOTED_LENGTH)}…` : words;
}

/**
 * `text`, `[NAME:` blanks (and `action:`, as in `[GIT:action:status]`), an action's word, blanks (or a comma), then `:`, the rest, `]` or a key,
 * written as the command it means: `[NAME:action=WORD` and the rest as written (a `:` before a key).
 */
export function withActionKey(text: string): string {
  const colon = text.indexOf(":");
  let from = blanksEnd(text, colon + 1);
  let to = nameEnd(text, from);
  // `[GIT:action:status]`: the word after `action:` is the action.
  const keyEnd = blanksEnd(text, to);
  if (text.slice(from, to).toLowerCase() === "action" && text[keyEnd] === ":") {
    from = blanksEnd(text, keyEnd + 1);
    to = nameEnd(text, from);
  }
  let rest = blanksEnd(text, to);
  // A key after blanks or a comma (`[FILE_OP:read, path="a.ts"]`) is the next parameter: a `:` before it.
  if (text.charCodeAt(rest) === COMMA) rest = blanksEnd(text, rest + 1);
  const separator = text[rest] === ":" || text[rest] === "]" || rest === text.length ? "" : ":";
  return `[${text.slice(1, colon).trim()}:action=${text.slice(from, to)}${separator}${text.slice(rest)}`;
}

/** Where the blanks from index `from` of `text` end. */
function blanksEnd(text: string, from: number): number {
  while (isBlank(text.charCodeAt(from))) from++;
  return from;
}

/** Where the name characters from index `from` of `text` end. */
function nameEnd(text: string, from: number): number {
  while (isNameCharacter(text.charCodeAt(from))) from++;
  return from;
}

/** What `notRunError` says of a command whose action is written without `action=`. */
export const ACTION_WITHOUT_KEY = 'whose action is written without "action="';
/** What `notRunError` says of a command written without its brackets. */
export const WITHOUT_BRACKETS = "written without its brackets";

/**
 * The error for a clio command written wrong as `what` says (`ACTION_WITHOUT_KEY`, `WITHOUT_BRACKETS`):
 * never run, its hint the command (`command`, else `written` as corrected).
 */
export function notRunError(command: Command | undefined, written: string, span: Span, what: string): Extract<MappedCall, { type: "error" }> {
  const hint = command === undefined ? written : print(command);
  const protocol = command === undefined ? {} : { protocol: command.protocol };
  if (hint.length > HINT_LIMIT) {
    // Text that long (a `[NAME:action:` never closed, read on to a blank line) is no command a hint should repeat.
    const message = `This looks like a clio command ${what}, so it did not run; write it as a clio command, [PROTOCOL:action=…:key="value"]`;
    return { type: "error", error: { code: "unmapped_call" as const, message, span, ...protocol } };
  }
  const message = `This looks like a clio command ${what}, so it did not run; write it as ${hint}`;
  return { type: "error", error: { code: "unmapped_call" as const, message, hint, span, ...protocol } };
}

function isBlank(code: number): boolean {
  return code === SPACE || code === TAB || code === CARRIAGE_RETURN;
}
