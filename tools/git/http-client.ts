/**
 * GIT's HTTP client for isomorphic-git: every request (and every redirect) goes through the
 * same address guard as WEB (tools/network/guard.ts) and is sent over a connection pinned to
 * the checked address, so a remote on this machine, a private network or a metadata service
 * is never contacted unless the person listed its host in `GIT.allowHosts`. Redirects are
 * followed by hand, re-checked, and lose the Authorization header when the origin changes.
 */
import type { GitHttpRequest, GitHttpResponse } from "isomorphic-git";
import { ToolError } from "../errors.js";
import { checkDestination, type Resolver } from "../network/guard.js";
import type { Transport } from "../network/transport.js";

/** Where GIT may connect and how. */
export interface GitNetwork {
  resolve: Resolver;
  transport: Transport;
  /** Hosts reachable although they resolve to a blocked address (GIT.allowHosts). */
  allowHosts: readonly string[];
  /** Redirects followed before giving up (default 5). */
  maxRedirects?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Sends one isomorphic-git request through the guard, following checked redirects. */
export async function sendGuarded(network: GitNetwork, request: GitHttpRequest, signal: AbortSignal): Promise<GitHttpResponse> {
  let url = new URL(request.url);
  let method = request.method ?? "GET";
  let headers: Record<string, string> = { ...(request.headers ?? {}) };
  let body = request.body === undefined ? undefined : await collect(request.body);
  const maxRedirects = network.maxRedirects ?? 5;
  for (let hop = 0; ; hop += 1) {
    const destination = await checkDestination(url, network.resolve, network.allowHosts, "GIT");
    const response = await network.transport({ ...destination, method, headers, ...(body === undefined ? {} : { body }), signal });
    const location = response.headers.location;
    if (!REDIRECTS.has(response.status) || typeof location !== "string") {
      return {
        url: url.href,
        method,
        statusCode: response.status,
        statusMessage: response.statusText,
        headers: flattenHeaders(response.headers),
        body: response.body[Symbol.asyncIterator]() as AsyncIterableIterator<Uint8Array>,
      };
    }
    response.body.resume();
    if (hop >= maxRedirects) {
      throw new ToolError("network_error", `${url.origin} redirected more than ${maxRedirects} times.`, "Check the remote URL (git remote -v); point it at the final address.");
    }
    const next = new URL(location, url);
    if (next.origin !== url.origin) headers = withoutAuthorization(headers);
    if (response.status === 303) {
      method = "GET";
      body = undefined;
    }
    url = next;
  }
}

function withoutAuthorization(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== "authorization"));
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

/** isomorphic-git hands request bodies over as an (async) iterable of chunks or one chunk. */
async function collect(body: unknown): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  if (body instanceof Uint8Array) return Buffer.from(body);
  for await (const chunk of body as AsyncIterable<Uint8Array> | Iterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
