/**
 * Writing commands. `print` keeps each value's form; `printCanonical` writes the canonical
 * form (text, json and bytes as standard base64 with padding). Law: `parse(print(c))` gives
 * back `c` (protocol, keys, forms and text).
 */
import type { ValueForm } from "./ast.js";
import { encodeBase64 } from "./base64.js";
import { BARE_VALUE } from "./chars.js";
import type { ParameterKind } from "./kinds.js";

/** A command to write: the protocol name and each parameter's key, form and text. */
export interface PrintableCommand {
  protocol: string;
  parameters: { key: string; form: ValueForm; text: string }[];
}

const WORD = /^[A-Za-z0-9+/_.,@%~-]+={0,2}$/;

/** Whether `text` can be written bare and read back unchanged. */
export function isBareSafe(text: string): boolean {
  return BARE_VALUE.test(text);
}

/**
 * A tag that is not a line of `text` (spaces after it counted as part of the line's end). Lines
 * end as the scanner ends them: at `\n`, `\r\n` or a lone `\r` (CommonMark), so `EOF\r]` holds
 * the line `EOF`.
 */
function heredocTag(text: string): string {
  const lines = new Set(text.split(/\r\n?|\n/).map((line) => line.replace(/[ \t]+$/, "")));
  let tag = "EOF";
  for (let n = 1; lines.has(tag); n++) tag = `EOF${n}`;
  return tag;
}

function printParameter(key: string, form: ValueForm, text: string): string {
  if (form === "bare" && isBareSafe(text)) return `${key}=${text}`;
  // A body ending in a carriage return would lose it to the line break before the tag.
  if (form === "heredoc" && !text.endsWith("\r")) {
    const tag = heredocTag(text);
    return `${key}<<${tag}\n${text}\n${tag}\n`;
  }
  return `${key}=${JSON.stringify(text)}`;
}

/** Writes a command keeping each value's form (bare falls back to quoted when not bare-safe). */
export function print(command: PrintableCommand): string {
  const parameters = command.parameters.map(({ key, form, text }) => printParameter(key, form, text));
  return `[${command.protocol.toUpperCase()}:${parameters.join(":")}]`;
}

/** Writes the canonical form of a command from decoded values and their kinds. */
export function printCanonical(protocol: string, args: { key: string; kind: ParameterKind; value: string | Buffer }[]): string {
  const parameters = args.map(({ key, kind, value }) => {
    if (kind === "word") {
      const text = typeof value === "string" ? value : value.toString("utf8");
      return WORD.test(text) ? `${key}=${text}` : `${key}=${JSON.stringify(text)}`;
    }
    const encoded = encodeBase64(value);
    return encoded.length > 0 ? `${key}=${encoded}` : `${key}=""`;
  });
  return `[${protocol.toUpperCase()}:${parameters.join(":")}]`;
}
