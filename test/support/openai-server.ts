/**
 * An OpenAI-compatible model server on 127.0.0.1 for tests, speaking the wire format of the
 * real API: `POST /v1/chat/completions` and `POST /v1/completions`, streamed as server-sent
 * events (or whole, when `stream` is not set), plus `GET /v1/models`.
 *
 * Each request takes the next behaviour from a queue the test fills:
 *
 *     const server = await startOpenAIServer();
 *     server.enqueue(
 *       { status: 429, retryAfter: "2" },                // rate limited, asks for a 2 s wait
 *       { reply: "Hello there", chunkSizes: [2, 3] },    // then streams "He", "llo", " th", ...
 *       (request) => ({ reply: `You said ${request.body.messages.at(-1).content}` }),
 *     );
 *     const client = new OpenAI({ baseURL: server.baseURL, apiKey: "test" });
 *     ...
 *     expect(server.requests[1].body.stop).toEqual(["\nUser:"]);
 *     await server.close();
 *
 * A streamed chat reply is sent exactly as OpenAI sends it: a role-only first chunk, content
 * deltas (with an empty one after the first), a last chunk with an empty delta and the finish
 * reason, a usage chunk with `choices: []` when `stream_options.include_usage` was asked, then
 * `data: [DONE]`. Stop strings in the request cut the reply server-side (the stop string is not
 * sent) with finish reason `stop`. An empty queue answers 500 saying so.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** Stream (or return) a reply. */
export interface ReplyBehaviour {
  reply: string;
  /** Characters per content chunk: one size for all, or sizes in order (the last repeats). Default 4. */
  chunkSizes?: number | number[];
  /** Default `stop`. A stop string from the request always gives `stop`. */
  finishReason?: "stop" | "length";
  /** Token counts to report, or `false` to send no usage even when asked. Default: counted. */
  usage?: { promptTokens: number; completionTokens: number } | false;
  /** Wait after sending the headers and before the first chunk. */
  firstTokenDelayMs?: number;
  /** Wait between chunks. */
  chunkDelayMs?: number;
  /** Destroy the connection after this many content chunks, as a dropped network would. */
  cutAfterChunks?: number;
  /** End the response cleanly after this many content chunks, without a finish_reason or [DONE]. */
  endAfterChunks?: number;
  /** Accept the request and never answer (no headers, no data) until the client goes away. */
  hang?: boolean;
  /** Reasoning streamed before the content (chat only), in the delta field a vendor uses, 5 characters a chunk. */
  reasoning?: { field: "reasoning_content" | "reasoning" | "thinking"; text: string };
}

/** Answer with an HTTP error and an OpenAI-style error body. */
export interface ErrorBehaviour {
  status: number;
  message?: string;
  /** The error's `type`, e.g. `rate_limit_error`; derived from the status when absent. */
  type?: string;
  code?: string;
  /** The Retry-After header value: seconds, or an HTTP date. */
  retryAfter?: string;
  headers?: Record<string, string>;
}

export type ServerBehaviour = ReplyBehaviour | ErrorBehaviour;

/** A behaviour chosen when its request arrives, e.g. a reply that depends on the prompt. */
export type QueuedBehaviour = ServerBehaviour | ((request: RecordedRequest) => ServerBehaviour);

/** A request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (an empty object for bodiless requests). */
  body: Record<string, any>;
}

export interface OpenAITestServer {
  /** The origin, e.g. `http://127.0.0.1:39123`. */
  url: string;
  /** The API root to give a client, `${url}/v1`. */
  baseURL: string;
  /** Adds behaviours to the end of the queue; each request takes one. */
  enqueue(...behaviours: QueuedBehaviour[]): void;
  /** How many queued behaviours no request has taken yet. */
  remaining(): number;
  /** Every model request received, in order. */
  requests: RecordedRequest[];
  /** Stops the server, cutting any open connection. */
  close(): Promise<void>;
}

export const testModelName = "test-model";

export async function startOpenAIServer(): Promise<OpenAITestServer> {
  const queue: QueuedBehaviour[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, { status: 500, message: String(error) });
      else response.destroy();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readJson(request);
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    if (request.method === "GET" && path === "/v1/models") {
      return sendJson(response, 200, { object: "list", data: [{ id: testModelName, object: "model", created: 0, owned_by: "test" }] });
    }
    const endpoint = path === "/v1/chat/completions" ? "chat" : path === "/v1/completions" ? "completions" : undefined;
    if (request.method !== "POST" || !endpoint) {
      return sendError(response, { status: 404, message: `No route ${request.method} ${path} on the test server.` });
    }
    const recorded: RecordedRequest = { method: request.method, path, headers: request.headers, body };
    requests.push(recorded);
    const queued = queue.shift();
    const behaviour = typeof queued === "function" ? queued(recorded) : queued;
    if (!behaviour) {
      return sendError(response, { status: 500, message: "The test server has no behaviour queued for this request." });
    }
    if ("status" in behaviour) return sendError(response, behaviour);
    if (behaviour.hang) return new Promise<void>((resolve) => response.on("close", () => resolve()));
    const reply = planReply(behaviour, body, endpoint);
    if (body.stream === true) await streamReply(response, reply, behaviour, body);
    else sendJson(response, 200, wholeReply(reply));
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    requests,
    enqueue: (...behaviours) => void queue.push(...behaviours),
    remaining: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

interface PlannedReply {
  endpoint: "chat" | "completions";
  id: string;
  model: string;
  chunks: string[];
  text: string;
  finishReason: "stop" | "length";
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | undefined;
}

function planReply(behaviour: ReplyBehaviour, body: Record<string, any>, endpoint: "chat" | "completions"): PlannedReply {
  const stops: string[] = typeof body.stop === "string" ? [body.stop] : Array.isArray(body.stop) ? body.stop : [];
  let text = behaviour.reply;
  let finishReason = behaviour.finishReason ?? "stop";
  const cut = Math.min(...stops.map((stop) => (stop ? text.indexOf(stop) : -1)).filter((index) => index >= 0));
  if (Number.isFinite(cut)) {
    text = text.slice(0, cut);
    finishReason = "stop";
  }
  const chunks = splitIntoChunks(text, behaviour.chunkSizes ?? 4);
  const promptCharacters =
    endpoint === "chat"
      ? (body.messages ?? []).reduce((sum: number, message: { content?: string }) => sum + String(message.content ?? "").length, 0)
      : String(body.prompt ?? "").length;
  const counted = { promptTokens: Math.ceil(promptCharacters / 4), completionTokens: chunks.length };
  const usage = behaviour.usage === false ? undefined : (behaviour.usage ?? counted);
  return {
    endpoint,
    id: `${endpoint === "chat" ? "chatcmpl" : "cmpl"}-test${Math.random().toString(36).slice(2, 10)}`,
    model: typeof body.model === "string" ? body.model : testModelName,
    chunks,
    text,
    finishReason,
    usage: usage && {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.promptTokens + usage.completionTokens,
    },
  };
}

function splitIntoChunks(text: string, sizes: number | number[]): string[] {
  const characters = Array.from(text);
  const sizeList = Array.isArray(sizes) ? sizes : [sizes];
  const chunks: string[] = [];
  for (let start = 0, index = 0; start < characters.length; index++) {
    const size = Math.max(1, sizeList[Math.min(index, sizeList.length - 1)] ?? 1);
    chunks.push(characters.slice(start, start + size).join(""));
    start += size;
  }
  return chunks;
}

async function streamReply(response: ServerResponse, reply: PlannedReply, behaviour: ReplyBehaviour, body: Record<string, any>): Promise<void> {
  const includeUsage = body.stream_options?.include_usage === true && reply.usage !== undefined;
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  response.flushHeaders();
  let closed = false;
  let wake = () => {};
  response.on("close", () => {
    closed = true;
    wake();
  });
  // A wait that ends early when the client goes away, so no timer outlives the connection.
  const delay = (milliseconds: number | undefined) =>
    new Promise<void>((resolve) => {
      if (!milliseconds || closed) return resolve();
      const timer = setTimeout(resolve, milliseconds);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const send = (data: unknown) => new Promise<void>((resolve) => response.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`, () => resolve()));
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choice: Record<string, unknown> | undefined, usage?: PlannedReply["usage"]) => ({
    id: reply.id,
    object: reply.endpoint === "chat" ? "chat.completion.chunk" : "text_completion",
    created,
    model: reply.model,
    ...(reply.endpoint === "chat" ? { system_fingerprint: "fp_test" } : {}),
    choices: choice ? [{ index: 0, ...choice }] : [],
    ...(includeUsage ? { usage: usage ?? null } : {}),
  });
  const content = (text: string, finishReason: string | null = null) =>
    reply.endpoint === "chat"
      ? chunk({ delta: text === "" && finishReason ? {} : { content: text }, logprobs: null, finish_reason: finishReason })
      : chunk({ text, logprobs: null, finish_reason: finishReason });

  await delay(behaviour.firstTokenDelayMs);
  if (closed) return;
  if (reply.endpoint === "chat") await send(chunk({ delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }));
  const reasoning = reply.endpoint === "chat" ? behaviour.reasoning : undefined;
  for (let at = 0; reasoning && at < reasoning.text.length; at += 5) {
    await send(chunk({ delta: { [reasoning.field]: reasoning.text.slice(at, at + 5) }, logprobs: null, finish_reason: null }));
  }
  for (const [index, text] of reply.chunks.entries()) {
    if (index > 0) await delay(behaviour.chunkDelayMs);
    if (closed) return;
    if (behaviour.cutAfterChunks !== undefined && index >= behaviour.cutAfterChunks) {
      response.socket?.destroy();
      return;
    }
    if (behaviour.endAfterChunks !== undefined && index >= behaviour.endAfterChunks) {
      response.end();
      return;
    }
    await send(content(text));
    if (index === 0) await send(content(""));
  }
  if (behaviour.cutAfterChunks !== undefined && behaviour.cutAfterChunks >= reply.chunks.length) {
    response.socket?.destroy();
    return;
  }
  await send(content("", reply.finishReason));
  if (includeUsage) await send(chunk(undefined, reply.usage));
  await send("[DONE]");
  response.end();
}

function wholeReply(reply: PlannedReply): Record<string, unknown> {
  const choice =
    reply.endpoint === "chat"
      ? { index: 0, message: { role: "assistant", content: reply.text, refusal: null }, logprobs: null, finish_reason: reply.finishReason }
      : { index: 0, text: reply.text, logprobs: null, finish_reason: reply.finishReason };
  return {
    id: reply.id,
    object: reply.endpoint === "chat" ? "chat.completion" : "text_completion",
    created: Math.floor(Date.now() / 1000),
    model: reply.model,
    choices: [choice],
    ...(reply.usage ? { usage: reply.usage } : {}),
  };
}

const errorTypes: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  404: "invalid_request_error",
  429: "rate_limit_error",
};

function sendError(response: ServerResponse, behaviour: ErrorBehaviour): void {
  const headers: Record<string, string> = { ...behaviour.headers };
  if (behaviour.retryAfter !== undefined) headers["retry-after"] = behaviour.retryAfter;
  const message = behaviour.message ?? `The test server answered ${behaviour.status}.`;
  const type = behaviour.type ?? errorTypes[behaviour.status] ?? "server_error";
  sendJson(response, behaviour.status, { error: { message, type, param: null, code: behaviour.code ?? null } }, headers);
}

function sendJson(response: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  response.writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

async function readJson(request: IncomingMessage): Promise<Record<string, any>> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString("utf8");
  return text ? JSON.parse(text) : {};
}
