/**
 * A `<tool_call>` (or another tag of JSON calls) whose start tag names the tool in an attribute:
 * its arguments the JSON body (`<tool_call name="read_file">{"path": "a.ts"}</tool_call>`) or an
 * `arguments` (or `parameters`) attribute (`<tool_call name="read_file" arguments='{"path": "a.ts"}'/>`),
 * its JSON object in quotes or not (`arguments={"path": "a.ts"}`).
 */
import type { Span, SyntaxError } from "../ast.js";
import { print } from "../printer.js";
import { mapCall, rawCallOf } from "./mapping.js";
import { readAttributes, type ReadProblem, type ReadResult, startTagEnd } from "./read-call.js";
import { parseJson } from "./relaxed-json.js";
import type { CallVocabulary } from "./vocabulary.js";

/**
 * Reads `text`, a tag named `tagName` whose start tag has attributes, closed by `closer` (empty: it
 * closed itself with `/>`; `closed`: its closing tag came). Undefined when its attributes name no
 * tool, or its body is no JSON object: its body is then read as a `<tool_call>`'s is.
 */
export function callFromNamedToolCall(text: string, tagName: string, closer: string, closed: boolean): ReadResult | undefined {
  const headerEnd = startTagEnd(text);
  const header = text.slice(tagName.length + 1, closer === "" ? headerEnd - 1 : headerEnd);
  const unquoted = unquotedArguments(header);
  const attributes = readAttributes(unquoted === undefined ? header : unquoted.rest);
  const name = attributes === undefined ? undefined : valueOf(attributes, "name");
  if (attributes === undefined || typeof name !== "string" || name.trim() === "") return undefined;
  if (unquoted !== undefined) {
    const value = parseJson(unquoted.json);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return { name: name.trim(), args: Object.entries(value) };
    return { problem: "its arguments attribute is not a JSON object that reads", partial: { name: name.trim(), args: [] } };
  }
  const written = valueOf(attributes, "arguments") ?? valueOf(attributes, "parameters");
  const body = closer === "" ? "" : text.slice(headerEnd + 1, closed ? text.length - closer.length : text.length).trim();
  // A body of prose is read as before: text in the other wrappers, an error in `<tool_call>`.
  if (typeof written !== "string" && body !== "" && !body.startsWith("{")) return undefined;
  const json = typeof written === "string" ? written : body === "" ? "{}" : body;
  const value = parseJson(json, closed);
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { problem: "its arguments must be a JSON object" };
  return { name: name.trim(), args: Object.entries(value) };
}

/** The value of the attribute `key` (any case), or undefined. */
function valueOf(attributes: [string, unknown][], key: string): unknown {
  for (const [written, value] of attributes) if (written.toLowerCase() === key) return value;
  return undefined;
}

/**
 * An `arguments` (or `parameters`) attribute, any case, whose value is a JSON object written
 * without quotes around it (`arguments={"path": "a.ts"}`), in a start tag's attributes `header`:
 * the object's text (to its matching brace, or to the end when none comes) and the attributes
 * without it. Undefined when there is none; quoted values are passed over whole.
 */
function unquotedArguments(header: string): { json: string; rest: string } | undefined {
  let quote = "";
  for (let at = 0; at < header.length; at++) {
    const character = header[at]!;
    if (quote !== "") {
      if (character === quote) quote = "";
      continue;
    }
    if (character === '"' || character === "'") quote = character;
    else if ((at === 0 || /\s/.test(header[at - 1]!)) && /[ap]/i.test(character)) {
      const key = /^(?:arguments|parameters)\s*=\s*\{/i.exec(header.slice(at, at + 24));
      if (key === null) continue;
      const open = at + key[0].length - 1;
      const close = jsonObjectEnd(header, open);
      return { json: header.slice(open, close), rest: `${header.slice(0, at)} ${header.slice(close)}` };
    }
  }
  return undefined;
}

/** The index after the brace that closes the one at `open` in `text`, strings in either quote passed over; `text.length` when none does. */
function jsonObjectEnd(text: string, open: number): number {
  let depth = 0;
  let quote = "";
  for (let at = open; at < text.length; at++) {
    const character = text[at]!;
    if (quote !== "") {
      if (character === "\\") at++;
      else if (character === quote) quote = "";
    } else if (character === '"' || character === "'") quote = character;
    else if (character === "{" || character === "[") depth++;
    else if ((character === "}" || character === "]") && --depth === 0) return at + 1;
  }
  return text.length;
}

/**
 * The error for a `<tool_call>` that names its tool but whose arguments could not be read
 * (`read.partial`, the name without arguments): its hint the command of the tool it names, so the
 * model is told the protocol and action to write; undefined when the name maps to nothing.
 */
export function namedToolCallError(read: ReadProblem, span: Span, vocabulary: CallVocabulary): SyntaxError | undefined {
  if (read.partial === undefined) return undefined;
  const mapped = mapCall(rawCallOf(read.partial, "hermes", span), vocabulary, false);
  if (mapped.type !== "command") return undefined;
  const hint = print(mapped.command);
  const message = `This looks like a <tool_call> block but ${read.problem}, so nothing ran; write it as a clio command with its parameters: ${hint}`;
  return { code: "unmapped_call", message, hint, protocol: mapped.command.protocol, span };
}
