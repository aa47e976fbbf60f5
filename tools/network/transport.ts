/**
 * One HTTP exchange over Node's http/https modules, connected to an address checked in
 * advance. The `lookup` hook answers every DNS question with that address, so the socket
 * goes exactly where the guard allowed; TLS still verifies the certificate against the
 * host name in the URL (SNI and Host header are unchanged). `agent: false` gives every
 * request its own connection, so no pooled socket to another address is reused.
 */
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import { ToolError } from "../errors.js";
import type { ResolvedAddress } from "./guard.js";

export interface TransportRequest extends ResolvedAddress {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: Buffer;
  signal: AbortSignal;
}

export interface TransportResponse {
  status: number;
  statusText: string;
  /** Header names in lower case. */
  headers: http.IncomingHttpHeaders;
  /** The body as it came over the wire (still content-encoded). */
  body: Readable;
}

/** Sends one request and resolves when the response headers arrive; the seam tests may wrap. */
export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

export interface NodeTransportOptions {
  /** Extra certificate authorities to trust (tests use a self-signed one); the system's otherwise. */
  ca?: string | Buffer;
}

/** A transport over Node's http/https modules, pinned to the request's checked address. */
export function createNodeTransport(options: NodeTransportOptions = {}): Transport {
  return (request) => sendPinned(request, options);
}

/** The transport WEB uses by default. */
export const nodeTransport: Transport = createNodeTransport();

function sendPinned(request: TransportRequest, options: NodeTransportOptions): Promise<TransportResponse> {
  return new Promise((resolve, reject) => {
    const module = request.url.protocol === "https:" ? https : http;
    const hostname = request.url.hostname.replace(/^\[(.*)\]$/, "$1");
    const outgoing = module.request(
      {
        protocol: request.url.protocol,
        hostname,
        port: request.url.port === "" ? undefined : Number(request.url.port),
        path: `${request.url.pathname}${request.url.search}`,
        method: request.method,
        headers: request.headers,
        agent: false,
        lookup: pinnedLookup(request),
        signal: request.signal,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      },
      (response) =>
        resolve({
          status: response.statusCode ?? 0,
          statusText: response.statusMessage ?? "",
          headers: response.headers,
          body: response,
        }),
    );
    outgoing.on("error", (error) => reject(request.signal.aborted ? error : connectionError(request.url, error)));
    outgoing.end(request.body);
  });
}

function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all === true) {
      (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, [target]);
    } else {
      callback(null, target.address, target.family);
    }
  };
}

function connectionError(url: URL, error: Error): ToolError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && /CERT|TLS|SSL/.test(code)) {
    return new ToolError(
      "network_error",
      `The certificate of ${url.origin} was not accepted (${code}: ${error.message}).`,
      "The server's TLS certificate is invalid for this host or not trusted; WEB does not skip certificate checks.",
    );
  }
  return new ToolError(
    "network_error",
    `The request to ${url.origin} failed: ${code ?? error.message}.`,
    code === "ECONNREFUSED" ? "Nothing is listening at that address and port; check the URL." : "Check the URL and try again; the server or network may be down.",
  );
}
