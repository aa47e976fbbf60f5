/**
 * A real smart-HTTP git server for tests: a Node http server on 127.0.0.1 handing each
 * request to `git http-backend` (CGI), with optional Basic auth and a hook to misbehave
 * (drop the connection, stall) for failure tests.
 */
import { spawn } from "node:child_process";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";

export interface GitHttpServerOptions {
  /** The folder holding the bare repositories (GIT_PROJECT_ROOT). */
  projectRoot: string;
  /** When set, every request needs these Basic credentials (else 401). */
  auth?: { username: string; password: string };
  /** Environment for git http-backend (PATH, HOME…). */
  env?: NodeJS.ProcessEnv;
  /** Called first for every request; return true when it has handled (or sabotaged) it. */
  intercept?: (request: IncomingMessage, response: ServerResponse) => boolean;
  /** Serve https with this key and certificate (the url then starts with https://). */
  tls?: { key: Buffer; cert: Buffer };
}

export interface GitHttpServer {
  /** e.g. http://127.0.0.1:PORT */
  url: string;
  /** Every request seen, as "METHOD /path?query". */
  requests: string[];
  close(): Promise<void>;
}

export async function startGitHttpServer(options: GitHttpServerOptions): Promise<GitHttpServer> {
  const requests: string[] = [];
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    requests.push(`${request.method} ${request.url}`);
    if (options.intercept?.(request, response)) return;
    let user: string | undefined;
    if (options.auth) {
      user = authorizedUser(request, options.auth);
      if (user === undefined) {
        response.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"', "Content-Type": "text/plain" });
        response.end("authentication required\n");
        return;
      }
    }
    runBackend(request, response, options, user);
  };
  const server = options.tls ? https.createServer(options.tls, handle) : http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function authorizedUser(request: IncomingMessage, auth: { username: string; password: string }): string | undefined {
  const header = request.headers.authorization ?? "";
  if (!header.startsWith("Basic ")) return undefined;
  const [username, ...rest] = Buffer.from(header.slice(6), "base64").toString("utf8").split(":");
  return username === auth.username && rest.join(":") === auth.password ? username : undefined;
}

function runBackend(request: IncomingMessage, response: ServerResponse, options: GitHttpServerOptions, user: string | undefined): void {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    ...options.env,
    GIT_PROJECT_ROOT: options.projectRoot,
    GIT_HTTP_EXPORT_ALL: "1",
    REQUEST_METHOD: request.method ?? "GET",
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.replace(/^\?/, ""),
    CONTENT_TYPE: request.headers["content-type"] ?? "",
    REMOTE_ADDR: "127.0.0.1",
    ...(request.headers["content-length"] ? { CONTENT_LENGTH: request.headers["content-length"] } : {}),
    ...(request.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: request.headers["content-encoding"] } : {}),
    ...(request.headers["git-protocol"] ? { GIT_PROTOCOL: String(request.headers["git-protocol"]) } : {}),
    ...(user ? { REMOTE_USER: user } : {}),
  };
  const child = spawn("git", ["http-backend"], { env, stdio: ["pipe", "pipe", "ignore"] });
  request.pipe(child.stdin);
  child.stdin.on("error", () => undefined);
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on("data", (chunk: Buffer) => {
    if (headersDone) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const separator = findHeaderEnd(head);
    if (separator === undefined) return;
    headersDone = true;
    const { status, headers } = parseCgiHeaders(head.subarray(0, separator.index).toString("latin1"));
    response.writeHead(status, headers);
    response.write(head.subarray(separator.index + separator.length));
  });
  child.stdout.on("end", () => response.end());
  child.on("error", () => {
    if (!response.headersSent) response.writeHead(500);
    response.end();
  });
  response.on("close", () => child.kill());
}

function findHeaderEnd(buffer: Buffer): { index: number; length: number } | undefined {
  const crlf = buffer.indexOf("\r\n\r\n");
  const lf = buffer.indexOf("\n\n");
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { index: crlf, length: 4 };
  if (lf !== -1) return { index: lf, length: 2 };
  return undefined;
}

function parseCgiHeaders(text: string): { status: number; headers: Record<string, string> } {
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon === -1) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
    else headers[name] = value;
  }
  return { status, headers };
}
