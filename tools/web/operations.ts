/**
 * The three things WEB does — read a page, call an API, download a file — over the safe
 * client. Results are data; the protocol file turns them into text.
 */
import { ToolError } from "../errors.js";
import { cappedChunks, decodeText, readCapped, sizeLimitError } from "./body.js";
import { send, withDeadline, type WebClient, type WebResponse } from "./client.js";
import { mediaKind, mediaType, prettyJson, type MediaKind } from "./content.js";
import { checkDownloadTarget, writeAtomically } from "./download.js";
import { parseWebUrl } from "../network/guard.js";
import { formatBytes } from "./settings.js";

/** Facts every result carries. */
export interface ResponseFacts {
  /** The URL that answered, after redirects. */
  url: string;
  /** The URLs that redirected on the way, in order. */
  redirects: string[];
  status: number;
  statusText: string;
  contentType: string;
  /** Decoded body size in bytes. */
  bytes: number;
}

export interface PageResult extends ResponseFacts {
  kind: Exclude<MediaKind, "binary">;
  title?: string;
  /** Markdown for HTML, pretty JSON, or the text as served. */
  text: string;
  charset: string;
}

const PAGE_ACCEPT = "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5";

/** GETs a page (following redirects) and returns its readable text. */
export async function fetchPage(client: WebClient, urlText: string, signal: AbortSignal): Promise<PageResult> {
  const url = parseWebUrl(urlText);
  return withDeadline(signal, client.settings.timeoutMs, `Fetching ${url.href}`, async (inner) => {
    const response = await send(client, { method: "GET", url, headers: baseHeaders(client, PAGE_ACCEPT), followRedirects: true, signal: inner });
    if (response.status >= 300) {
      response.body.destroy();
      throw new ToolError(
        "http_error",
        `GET ${response.url.href} answered ${statusLine(response)}${response.status < 400 ? " without a usable Location" : ""}.`,
        response.status >= 500
          ? "The server failed; try again later."
          : ["Check the URL. To see an error response's body and headers, use ", { action: "api", arguments: { method: "GET", url: response.url.href } }, "."],
      );
    }
    const contentType = firstValue(response.headers["content-type"]);
    if (mediaKind(contentType, Buffer.alloc(0)) === "binary" && mediaType(contentType) !== "") {
      throw binaryRefusal(response, await measure(client, response));
    }
    const bytes = await readCapped(response.body, response.headers, client.settings.maxBytes, sizeLimitError(`The page at ${response.url.href}`, "maxBytes"));
    const kind = mediaKind(contentType, bytes);
    if (kind === "binary") throw binaryRefusal(response, formatBytes(bytes.length));
    const { text, charset } = decodeText(bytes, contentType, kind === "html");
    const facts = responseFacts(response, bytes.length);
    if (kind === "html") {
      const { htmlToMarkdown } = await import("./html.js");
      const page = htmlToMarkdown(text, response.url);
      return { ...facts, kind, title: page.title, text: page.markdown, charset };
    }
    return { ...facts, kind, text: kind === "json" ? prettyJson(text) : text, charset };
  });
}

export interface ApiRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface ApiResult extends ResponseFacts {
  /** Response headers worth showing (content-type, location, rate limits, …). */
  headers: Record<string, string>;
  /** The body as text (JSON pretty-printed); undefined when the body is binary. */
  body?: string;
}

const SHOWN_HEADERS = /^(content-type|content-length|location|retry-after|www-authenticate|etag|last-modified|cache-control|link|allow|x-request-id|(x-)?ratelimit-.*)$/;
const REFUSED_HEADERS = new Set(["host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer", "expect", "proxy-connection"]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Sends any request. A body that is a JSON object or array, sent without a Content-Type,
 * goes as application/json; any other body as text/plain. Redirects are followed for GET
 * and HEAD only; other methods get the 3xx response back with its Location.
 */
export async function callApi(client: WebClient, request: ApiRequest, signal: AbortSignal): Promise<ApiResult> {
  const url = parseWebUrl(request.url);
  const method = request.method.toUpperCase();
  const headers = { ...baseHeaders(client, "application/json, text/plain;q=0.9, */*;q=0.5"), ...checkHeaders(request.headers ?? {}) };
  if (request.body !== undefined && headers["content-type"] === undefined) {
    headers["content-type"] = isJsonDocument(request.body) ? "application/json" : "text/plain; charset=utf-8";
  }
  const body = request.body === undefined ? undefined : Buffer.from(request.body, "utf8");
  return withDeadline(signal, client.settings.timeoutMs, `${method} ${url.href}`, async (inner) => {
    const followRedirects = method === "GET" || method === "HEAD";
    const response = await send(client, { method, url, headers, body, followRedirects, signal: inner });
    const bytes = await readCapped(response.body, response.headers, client.settings.maxBytes, sizeLimitError(`The response from ${response.url.href}`, "maxBytes"));
    const contentType = firstValue(response.headers["content-type"]);
    const kind = mediaKind(contentType, bytes);
    const shown = Object.fromEntries(
      Object.entries(response.headers)
        .filter(([name]) => SHOWN_HEADERS.test(name))
        .map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : String(value)]),
    );
    const text = kind === "binary" ? undefined : decodeText(bytes, contentType, kind === "html").text;
    return { ...responseFacts(response, bytes.length), headers: shown, body: kind === "json" && text !== undefined ? prettyJson(text) : text };
  });
}

export interface DownloadResult extends ResponseFacts {
  /** True when an existing file was replaced. */
  replaced: boolean;
}

/** Streams a URL into `absolute` (already confined by the caller), atomically and within the size cap. */
export async function downloadFile(client: WebClient, urlText: string, absolute: string, shownPath: string, signal: AbortSignal): Promise<DownloadResult> {
  const url = parseWebUrl(urlText);
  await checkDownloadTarget(absolute, shownPath);
  return withDeadline(signal, client.settings.downloadTimeoutMs, `Downloading ${url.href}`, async (inner) => {
    const headers = { ...baseHeaders(client, "*/*"), "accept-encoding": "identity" };
    const response = await send(client, { method: "GET", url, headers, followRedirects: true, signal: inner });
    if (response.status >= 300) {
      response.body.destroy();
      throw new ToolError("http_error", `GET ${response.url.href} answered ${statusLine(response)}; nothing was saved.`, "Check the URL; nothing was written to the workspace.");
    }
    const tooLarge = sizeLimitError(`The download from ${response.url.href}`, "downloadMaxBytes");
    const written = await writeAtomically(absolute, cappedChunks(response.body, response.headers, client.settings.downloadMaxBytes, tooLarge));
    return { ...responseFacts(response, written.bytes), replaced: written.replaced };
  });
}

function baseHeaders(client: WebClient, accept: string): Record<string, string> {
  return { "user-agent": client.settings.userAgent ?? "clio", accept, "accept-encoding": "gzip, deflate, br" };
}

function checkHeaders(headers: Record<string, string>): Record<string, string> {
  const checked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) {
      throw new ToolError("invalid_argument", `${JSON.stringify(name)} is not a valid header name.`, 'Header names are single words like "Authorization" or "X-Api-Key".');
    }
    if (REFUSED_HEADERS.has(lower)) {
      throw new ToolError("invalid_argument", `The ${name} header is set by WEB itself and cannot be given.`, `Leave ${name} out of headers.`);
    }
    if (/[\r\n\0]/.test(value)) {
      throw new ToolError("invalid_argument", `The value of the ${name} header contains a line break or NUL.`, "Header values are single lines.");
    }
    checked[lower] = value;
  }
  return checked;
}

function isJsonDocument(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null;
  } catch {
    return false;
  }
}

function responseFacts(response: WebResponse, bytes: number): ResponseFacts {
  return {
    url: response.url.href,
    redirects: response.redirects.map((hop) => hop.href),
    status: response.status,
    statusText: response.statusText,
    contentType: firstValue(response.headers["content-type"]) ?? "",
    bytes,
  };
}

function statusLine(response: WebResponse): string {
  return `${response.status}${response.statusText === "" ? "" : ` ${response.statusText}`}`;
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The body's size: Content-Length when given, else counted (up to the cap) without keeping it. */
async function measure(client: WebClient, response: WebResponse): Promise<string> {
  const declared = Number(response.headers["content-length"]);
  if (response.headers["content-encoding"] === undefined && Number.isInteger(declared) && declared >= 0) {
    response.body.destroy();
    return formatBytes(declared);
  }
  let total = 0;
  try {
    for await (const chunk of cappedChunks(response.body, response.headers, client.settings.maxBytes, sizeLimitError("", "maxBytes"))) total += chunk.length;
  } catch (error) {
    if (ToolError.isInstance(error) && error.code === "too_large") return `more than ${formatBytes(client.settings.maxBytes)}`;
    throw error;
  }
  return formatBytes(total);
}

function binaryRefusal(response: WebResponse, size: string): ToolError {
  const type = firstValue(response.headers["content-type"]) || "an unknown type";
  return new ToolError("unsupported_content", `${response.url.href} is ${type} (${size}), not text, so it was not read as a page.`, [
    "To save it as a file, use ",
    { action: "download", arguments: { url: response.url.href, path: "PATH" } },
    " with a path in the workspace.",
  ]);
}
