/**
 * Parameter kinds: how a value's raw text becomes its meaning (contract §3).
 *
 * | kind | bare                    | quoted / heredoc  |
 * | word | as written              | as written        |
 * | text | base64 → UTF-8          | literally         |
 * | json | base64 of JSON          | JSON text         |
 * | bytes| base64                  | not allowed (`""` alone: no bytes) |
 */
import type { Parameter } from "./ast.js";
import { decodeBase64, encodeBase64 } from "./base64.js";

export type ParameterKind = "word" | "text" | "json" | "bytes";

/** A decoded value, or what was wrong with it and how to write it right. */
export type DecodeResult = { ok: true; value: string | Buffer } | { ok: false; expected: string; received: string; fix: string; literal?: string };

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const PREVIEW = 40;

/** What came, when it was a quoted or heredoc value where only base64 will do. */
function formDescription(form: Parameter["form"]): string {
  return `a ${form} value`;
}

function preview(text: string): string {
  return text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text;
}

/** `key="…" or key=<base64 of …>`: both right spellings of what the model wrote. */
function spellings(key: string, intended: string): string {
  if (intended.length > PREVIEW) return `write ${key}="…" (a JSON string), ${key}<<EOF (a heredoc) or ${key}=<base64 of the UTF-8 text>`;
  return `write ${key}=${JSON.stringify(intended)} or ${key}=${encodeBase64(intended)}`;
}

function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function checkJson(key: string, text: string, form: Parameter["form"]): DecodeResult {
  try {
    JSON.parse(text);
    return { ok: true, value: text };
  } catch (caught) {
    const reason = caught instanceof Error ? caught.message : String(caught);
    const how = form === "bare" ? `${key}=<base64 of the JSON text>` : `${key}<<EOF with the JSON text, or ${key}="…" with the JSON text as a JSON string`;
    return { ok: false, expected: `valid JSON (${reason})`, received: preview(text), fix: `write ${how}` };
  }
}

/** A short run of word characters, `/`, `-`: plausible as a value written as is (a path, a name). */
function looksLiteral(text: string): boolean {
  // Most base64 values are longer than a word: no pattern to try then.
  return text.length <= 24 && /^[A-Za-z0-9_/-]{1,24}$/.test(text);
}

/** Text without control characters (tabs and line breaks aside) or replacement characters. */
function printable(text: string): boolean {
  return !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffd]/.test(text);
}

/** Mostly letters, digits, spaces and path punctuation, as a short value's decoding should be. */
function plausible(text: string): boolean {
  if (text.length === 0) return false;
  const ordinary = text.match(/[\p{L}\p{N} ._/:,-]/gu)?.length ?? 0;
  return ordinary / [...text].length >= 0.75;
}

/** What base64 with bad padding, or one character too many, most likely meant: readable text, or undefined. */
function repairedBase64(text: string): string | undefined {
  let compact = text.replace(/[\s=]+/g, "");
  if (!/^[A-Za-z0-9+/_-]+$/.test(compact)) return undefined;
  if (compact.length % 4 === 1) compact = compact.slice(0, -1);
  const decoded = decodeUtf8(Buffer.from(compact.replace(/-/g, "+").replace(/_/g, "/"), "base64"));
  return decoded !== undefined && decoded.length > 0 && printable(decoded) && plausible(decoded) ? decoded : undefined;
}

/** Half of a UTF-16 surrogate pair without its partner: not a character, so no UTF-8 can hold it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A quoted `"\uD83D"` would otherwise be written as U+FFFD without a word: refuse it, naming where. */
function loneSurrogate(key: string, text: string): DecodeResult | undefined {
  const found = LONE_SURROGATE.exec(text);
  if (found === null) return undefined;
  const code = found[0].charCodeAt(0).toString(16).toUpperCase();
  return {
    ok: false,
    expected: `text with whole characters only (character ${found.index + 1} is \\u${code}, half of a surrogate pair without its other half)`,
    received: preview(text),
    fix: `write the character itself, or both halves of the pair (e.g. \\uD83D\\uDE00 for 😀), in ${key}`,
  };
}

/** Decodes one parameter by its declared kind. Never throws. */
export function decodeParameter(parameter: Parameter, kind: ParameterKind): DecodeResult {
  const { key, form, text } = parameter;
  if (form !== "bare") {
    const broken = loneSurrogate(key, text);
    if (broken !== undefined) return broken;
  }
  if (kind === "word") return { ok: true, value: text };
  if (form !== "bare") {
    if (kind === "text") return { ok: true, value: text };
    if (kind === "json") return checkJson(key, text, form);
    // No bytes cannot be written bare: `""` is how the printer writes them.
    if (form === "quoted" && text === "") return { ok: true, value: Buffer.alloc(0) };
    return { ok: false, expected: "base64 (binary data cannot be quoted or a heredoc)", received: formDescription(form), fix: `write ${key}=<base64 of the bytes>` };
  }
  const bytes = decodeBase64(text);
  if (bytes === undefined) {
    const guess = kind === "bytes" || (looksLiteral(text) && text.length < 12) ? undefined : repairedBase64(text);
    if (guess !== undefined) {
      return {
        ok: false,
        expected: "valid base64 (the padding is wrong or a character is missing or extra)",
        received: preview(text),
        fix: `it reads as ${JSON.stringify(preview(guess))}; if that is what you meant, ${spellings(key, guess)}`,
        literal: guess,
      };
    }
    return { ok: false, expected: "valid base64", received: preview(text), fix: spellings(key, text), literal: text };
  }
  if (kind === "bytes") return { ok: true, value: bytes };
  const decoded = decodeUtf8(bytes);
  if (decoded !== undefined && (!printable(decoded) || (looksLiteral(text) && !plausible(decoded)))) {
    // `path=dist` is valid base64 of "v+-": the bare text itself is what was meant.
    return {
      ok: false,
      expected: "base64 of readable text",
      received: preview(text),
      fix: `it decodes to ${JSON.stringify(preview(decoded))}; if you meant the text itself, write ${key}=${JSON.stringify(text)}`,
      literal: text,
    };
  }
  if (decoded === undefined) {
    return {
      ok: false,
      expected: "base64 of UTF-8 text (it decodes to bytes that are not UTF-8)",
      received: preview(text),
      // Often a plain word that happens to be base64 (path=test): offer its literal spellings.
      fix:
        text.length > PREVIEW
          ? `encode the text's UTF-8 bytes, or write it literally: ${key}="…" or ${key}<<EOF`
          : `encode the text's UTF-8 bytes, or if you meant the text itself, ${spellings(key, text)}`,
      literal: text,
    };
  }
  if (kind === "json") return checkJson(key, decoded, form);
  return { ok: true, value: decoded };
}

/**
 * The message for a failed argument, naming the command and parameter, what was expected,
 * what came (left out when the message already shows it) and how to write it right:
 * `FILE_OP.read: path is not valid base64 — write path="README.md" or path=UkVBRE1FLm1k`.
 */
export function formatArgumentError(command: string, key: string, failure: { expected: string; received?: string; fix: string }): string {
  const { received } = failure;
  let got = "";
  if (received !== undefined) {
    if (received === formDescription("quoted") || received === formDescription("heredoc")) got = `, got ${received}`;
    else if (!`${failure.expected} ${failure.fix}`.includes(JSON.stringify(received))) got = `, got ${JSON.stringify(received)}`;
  }
  return `${command}: ${key} is not ${failure.expected}${got} — ${failure.fix}`;
}
