/**
 * A `<tool_call>` (or another tag of JSON calls) whose start tag names the tool in an attribute:
 * its arguments the JSON body (`<tool_call name="read_file">{"path": "a.ts"}</tool_call>`) or an
 * `arguments` (or `parameters`) attribute (`<tool_call name="read_file" arguments='{"path": "a.ts"}'/>`).
 */
import { parseJson, readAttributes, type ReadResult, startTagEnd } from "./read-call.js";

/**
 * Reads `text`, a tag named `tagName` whose start tag has attributes, closed by `closer` (empty: it
 * closed itself with `/>`; `closed`: its closing tag came). Undefined when its attributes name no
 * tool, or its body is no JSON object: its body is then read as a `<tool_call>`'s is.
 */
export function callFromNamedToolCall(text: string, tagName: string, closer: string, closed: boolean): ReadResult | undefined {
  const headerEnd = startTagEnd(text);
  const attributes = readAttributes(text.slice(tagName.length + 1, closer === "" ? headerEnd - 1 : headerEnd));
  const name = attributes === undefined ? undefined : valueOf(attributes, "name");
  if (attributes === undefined || typeof name !== "string" || name.trim() === "") return undefined;
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
