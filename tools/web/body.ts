/**
 * Response bodies: undo the Content-Encoding (gzip, deflate, br) while counting DECODED
 * bytes, so a small compressed body that inflates without end is stopped at the cap; and
 * turn bytes into text with the declared or sniffed charset.
 */
import type { IncomingHttpHeaders } from "node:http";
import { pipeline, type Readable } from "node:stream";
import { TextDecoder } from "node:util";
import zlib from "node:zlib";
import { ToolError } from "../errors.js";
import { formatBytes } from "./settings.js";

/** The body with its Content-Encoding removed. Unknown encodings are refused. */
export function decodedBody(body: Readable, headers: IncomingHttpHeaders): Readable {
  const encodings = (headers["content-encoding"] ?? "")
    .split(",")
    .map((value) => value.trim().toLowerCase())
    .filter((value) => value !== "" && value !== "identity");
  let stream = body;
  for (const encoding of encodings.reverse()) {
    const decoder = decoderFor(encoding);
    if (decoder === undefined) {
      body.destroy();
      throw new ToolError("unsupported_content", `The response uses the content encoding "${encoding}", which WEB cannot decode.`, "Ask for the resource without that encoding.");
    }
    stream = pipeline(stream, decoder, () => {});
  }
  return stream;
}

function decoderFor(encoding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined {
  if (encoding === "gzip" || encoding === "x-gzip") return zlib.createGunzip();
  if (encoding === "deflate") return zlib.createInflate();
  if (encoding === "br") return zlib.createBrotliDecompress();
  return undefined;
}

/** Called when the decoded size passes the cap; returns the error to throw. */
export type SizeLimitError = (limit: number) => ToolError;

/**
 * Yields the decoded chunks, stopping (and destroying the streams) as soon as their total
 * passes `maxBytes`. A corrupt compressed body becomes a `network_error`.
 */
export async function* cappedChunks(body: Readable, headers: IncomingHttpHeaders, maxBytes: number, tooLarge: SizeLimitError): AsyncGenerator<Buffer> {
  const declared = Number(headers["content-length"]);
  if (headers["content-encoding"] === undefined && Number.isFinite(declared) && declared > maxBytes) {
    body.destroy();
    throw tooLarge(maxBytes);
  }
  const stream = decodedBody(body, headers);
  let total = 0;
  try {
    for await (const chunk of stream) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
      total += buffer.length;
      if (total > maxBytes) throw tooLarge(maxBytes);
      yield buffer;
    }
  } catch (error) {
    if (ToolError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "";
    // zlib errors carry Z_* codes; brotli's are ERR__ERROR_* (its own names, prefixed).
    if (code.startsWith("Z_") || code.startsWith("ERR__ERROR")) {
      throw new ToolError("network_error", `The response body could not be decoded (${code}).`, "The server sent a corrupt compressed body; try again later.");
    }
    throw error;
  } finally {
    stream.destroy();
    body.destroy();
  }
}

/** Reads the whole decoded body into memory, at most `maxBytes`. */
export async function readCapped(body: Readable, headers: IncomingHttpHeaders, maxBytes: number, tooLarge: SizeLimitError): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of cappedChunks(body, headers, maxBytes, tooLarge)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The standard size-cap error: says which limit, and how to raise it. */
export function sizeLimitError(what: string, setting: string): SizeLimitError {
  return (limit) =>
    new ToolError(
      "too_large",
      `${what} is larger than the ${formatBytes(limit)} limit (counted after decompression); reading stopped there.`,
      `Fetch a smaller resource, or raise WEB.${setting} in the config.`,
    );
}

export interface DecodedText {
  text: string;
  /** The encoding actually used (WHATWG name, e.g. "windows-1252"). */
  charset: string;
}

/**
 * Decodes bytes as text: a byte order mark wins, then the charset in Content-Type, then (for
 * HTML) a `<meta charset>` or `http-equiv` declaration in the first 2 KB, then UTF-8.
 */
export function decodeText(bytes: Buffer, contentType: string | undefined, isHtml: boolean): DecodedText {
  const label = bomCharset(bytes) ?? headerCharset(contentType) ?? (isHtml ? metaCharset(bytes) : undefined) ?? "utf-8";
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  return { text: decoder.decode(bytes), charset: decoder.encoding };
}

function bomCharset(bytes: Buffer): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}

/** The `charset` parameter of a Content-Type value. */
export function headerCharset(contentType: string | undefined): string | undefined {
  const match = contentType?.match(/;\s*charset\s*=\s*"?([^";\s]+)"?/i);
  return match?.[1]?.toLowerCase();
}

function metaCharset(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, 2048).toString("latin1");
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const match = tag.match(/charset\s*=\s*["']?\s*([A-Za-z0-9_:.+-]+)/i);
    if (match?.[1] !== undefined) return match[1].toLowerCase();
  }
  return undefined;
}
