/**
 * Sending a request the safe way: every hop's destination is checked and pinned (guard.ts),
 * redirects are followed by hand up to the configured count, and the whole exchange —
 * redirects and body included — runs under one deadline that also honours the caller's
 * cancel signal.
 */
import { setTimeout as delay } from "node:timers/promises";
import { ToolError } from "../errors.js";
import { checkDestination, type Resolver } from "../network/guard.js";
import { formatDuration, type WebSettings } from "./settings.js";
import type { Transport, TransportResponse } from "../network/transport.js";

/** What the web tools need: the seams and the settings. */
export interface WebClient {
  resolve: Resolver;
  transport: Transport;
  settings: WebSettings;
}

export interface OutgoingRequest {
  method: string;
  url: URL;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body?: Buffer;
  /** Follow 301/302/303/307/308 (re-checking each hop); otherwise the 3xx response is returned. */
  followRedirects: boolean;
  signal: AbortSignal;
}

export interface WebResponse extends TransportResponse {
  /** The URL that gave this response (after redirects). */
  url: URL;
  /** The URLs that redirected, in order; empty when none did. */
  redirects: URL[];
}

/** How long an aborted operation may take to clean up before its error is reported. */
const CLEANUP_GRACE_MS = 2000;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/**
 * The only headers that travel to another origin on a redirect. Any other header may carry a
 * credential (Authorization, Cookie, but also X-Api-Key, X-Auth-Token, ...), so it stays behind.
 */
const CROSS_ORIGIN_HEADERS = new Set(["accept", "accept-encoding", "accept-language", "user-agent", "content-type", "content-language", "cache-control"]);

/** Sends the request, following redirects when asked. The caller reads (or destroys) the body. */
export async function send(client: WebClient, request: OutgoingRequest): Promise<WebResponse> {
  let { url, method, body } = request;
  let headers = { ...request.headers };
  const redirects: URL[] = [];
  for (;;) {
    const destination = await checkHop(client, url, redirects);
    const response = await client.transport({ ...destination, method, headers, body, signal: request.signal });
    const location = response.headers.location;
    if (!request.followRedirects || !REDIRECT_STATUSES.has(response.status) || location === undefined) {
      return { ...response, url, redirects };
    }
    response.body.destroy();
    redirects.push(url);
    const next = redirectTarget(url, location);
    if (redirects.length > client.settings.maxRedirects) {
      const chain = [...redirects, next].map((hop) => hop.href).join(" → ");
      throw new ToolError(
        "too_many_redirects",
        `Stopped after ${client.settings.maxRedirects} redirects without reaching a page: ${chain}.`,
        "The address redirects in a loop or too often; fetch the final address directly, or raise WEB.maxRedirects in the config.",
      );
    }
    if ((response.status === 303 && method !== "HEAD") || ((response.status === 301 || response.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
      delete headers["content-type"];
    }
    if (next.origin !== url.origin) {
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => CROSS_ORIGIN_HEADERS.has(name.toLowerCase())));
    }
    url = next;
  }
}

async function checkHop(client: WebClient, url: URL, redirects: URL[]) {
  try {
    return await checkDestination(url, client.resolve, client.settings.allowHosts);
  } catch (error) {
    const previous = redirects[redirects.length - 1];
    if (previous === undefined || !ToolError.isInstance(error)) throw error;
    throw new ToolError(error.code, `The redirect from ${previous.href} to ${url.href} was refused. ${error.message}`, error.hint);
  }
}

function redirectTarget(from: URL, location: string): URL {
  try {
    return new URL(location, from);
  } catch {
    throw new ToolError("network_error", `${from.href} redirected to an invalid address ${JSON.stringify(location)}.`, "The server is misconfigured; try another URL.");
  }
}

/**
 * Runs `work` under a deadline of `milliseconds` that also ends when `signal` aborts. On
 * expiry the work's signal aborts (closing sockets) and a `timeout` error naming `what` is
 * thrown; on the caller's cancel, a `cancelled` error.
 */
export async function withDeadline<Value>(signal: AbortSignal, milliseconds: number, what: string, work: (signal: AbortSignal) => Promise<Value>): Promise<Value> {
  const cancelled = () => new ToolError("cancelled", `${what} was cancelled.`, "Run the command again when you want it.");
  if (signal.aborted) throw cancelled();
  const controller = new AbortController();
  const onCancel = () => controller.abort(cancelled());
  signal.addEventListener("abort", onCancel, { once: true });
  const timer = setTimeout(
    () =>
      controller.abort(
        new ToolError(
          "timeout",
          `${what} did not finish within ${formatDuration(milliseconds)} and was stopped.`,
          "The server is slow or the response is long; try again later, or raise WEB.timeoutMs (WEB.downloadTimeoutMs for downloads) in the config.",
        ),
      ),
    milliseconds,
  );
  const aborted = new Promise<never>((_resolve, reject) => {
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
  });
  const running = work(controller.signal);
  running.catch(() => {});
  try {
    return await Promise.race([running, aborted]);
  } catch (error) {
    if (!controller.signal.aborted) throw error;
    // Let the work clean up (close sockets, remove temporary files) before reporting, but
    // never wait long: a DNS lookup, for one, does not listen to the signal.
    await Promise.race([running.catch(() => {}), delay(CLEANUP_GRACE_MS)]);
    throw controller.signal.reason;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onCancel);
  }
}
