/**
 * What a response body is: HTML, JSON, other text, or binary; and JSON pretty-printed.
 * HTML becomes markdown in html.ts, loaded only when a page needs it.
 */
import { TextDecoder } from "node:util";

export type MediaKind = "html" | "json" | "text" | "binary";

const TEXT_TYPES = new Set([
  "application/javascript",
  "application/ecmascript",
  "application/xml",
  "application/x-yaml",
  "application/yaml",
  "application/toml",
  "application/x-sh",
  "application/sql",
  "application/graphql",
  "application/x-www-form-urlencoded",
]);

/** The media type without parameters, lower case ("text/html"); empty when absent. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Classifies a body by its Content-Type, sniffing the bytes when the type is missing or generic. */
export function mediaKind(contentType: string | undefined, bytes: Buffer): MediaKind {
  const type = mediaType(contentType);
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type === "application/json" || type.endsWith("+json")) return "json";
  if (type.startsWith("text/") || type.endsWith("+xml") || TEXT_TYPES.has(type)) return "text";
  if (type === "" || type === "application/octet-stream") return sniff(bytes);
  return "binary";
}

function sniff(bytes: Buffer): MediaKind {
  const head = bytes.subarray(0, 1024);
  if (head.includes(0)) return "binary";
  const start = head.toString("latin1").trimStart().toLowerCase();
  if (start.startsWith("<!doctype html") || start.startsWith("<html")) return "html";
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return "text";
  } catch {
    return "binary";
  }
}

/** JSON text pretty-printed with two spaces; text that is not JSON comes back unchanged. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
