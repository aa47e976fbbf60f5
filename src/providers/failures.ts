/**
 * What went wrong with one attempt at a model request, whether trying again can help, and
 * the error a person reads when clio gives up: which server, what it answered, what to do.
 * API keys never appear in these messages, even when a server echoes one back.
 */
import { STATUS_CODES } from "node:http";
import type * as OpenAISdk from "openai";
import { hasErrorMarker } from "../../grammar/errors.js";
import { ApplicationError } from "../errors.js";

/** Who clio was talking to, for messages. */
export interface ServerContext {
  name: string;
  baseURL: string;
  model: string;
  api: "chat" | "completions";
  apiKey?: string;
  /** The environment variable that holds the key, named in hints. */
  apiKeyEnv?: string;
}

const streamCutMarker = Symbol.for("clio.error.stream-cut");

/** The connection broke after part of the reply had already been yielded to the caller. */
export class StreamCutError extends ApplicationError {
  readonly [streamCutMarker] = true;
  /** How many characters of the reply were yielded before the cut. */
  readonly receivedCharacters: number;

  constructor(server: ServerContext, receivedCharacters: number, cause: string) {
    super(
      "provider_error",
      `The stream from ${describeServer(server)} was cut after ${receivedCharacters} characters of the reply (${cause}).`,
      "The partial reply is incomplete: keep it out of the conversation and send the request again.",
    );
    this.receivedCharacters = receivedCharacters;
  }

  static override isInstance(value: unknown): value is StreamCutError {
    return hasErrorMarker(value, streamCutMarker);
  }
}

/**
 * Parameters some servers refuse: `stream_options` (older servers), `max_tokens` (OpenAI's
 * reasoning models want `max_completion_tokens`), `temperature` (models with a fixed one).
 */
export type RefusableParameter = "stream_options" | "max_tokens" | "temperature";

export interface AttemptFailure {
  retryable: boolean;
  /** The connection broke while the reply was streaming. */
  streamCut: boolean;
  /** A parameter the server refused (HTTP 400); the request can go again without it. */
  refusedParameter?: RefusableParameter;
  /** A short reason for `retry` events, e.g. `429 Too Many Requests`. */
  reason: string;
  /** Response headers, for Retry-After. */
  headers?: { get(name: string): string | null };
  /** The error to throw when no further attempt is made. */
  finalError(attempts: number): ApplicationError;
}

export function describeServer(server: ServerContext): string {
  return `${server.name} (${server.baseURL})`;
}

/** Classifies an error thrown while sending a request (`request`) or reading its stream (`stream`). */
export function classifyFailure(error: unknown, phase: "request" | "stream", server: ServerContext, sdk: typeof OpenAISdk): AttemptFailure {
  const where = describeServer(server);
  const redact = (text: string) => redactKey(text, server.apiKey);

  if (error instanceof sdk.APIConnectionError) {
    const detail = redact(connectionDetail(error));
    const refused = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(detail);
    return failure({
      retryable: !refused,
      reason: detail,
      finalError: (attempts) =>
        refused
          ? new ApplicationError(
              "provider_error",
              `Could not connect to ${where}: ${detail}.`,
              "Start the model server (e.g. `ollama serve`), or point clio at a running one with --base-url URL.",
            )
          : new ApplicationError(
              "provider_error",
              `Could not reach ${where} after ${plural(attempts, "attempt")}: ${detail}.`,
              "Check the network and the --base-url, then try again.",
            ),
    });
  }

  if (error instanceof sdk.APIError && error.status !== undefined) {
    const status = error.status;
    const serverMessage = redact(apiErrorMessage(error));
    const statusLine = `${status} ${STATUS_CODES[status] ?? "error"}`;
    const refusedParameter = status === 400 || status === 422 ? findRefusedParameter(serverMessage) : undefined;
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    return failure({
      retryable,
      refusedParameter,
      reason: statusLine,
      headers: error.headers,
      finalError: (attempts) => statusError(server, status, statusLine, serverMessage, attempts),
    });
  }

  if (error instanceof sdk.APIError) {
    const serverMessage = redact(apiErrorMessage(error));
    return failure({
      retryable: false,
      reason: "error event in the stream",
      finalError: () =>
        new ApplicationError(
          "provider_error",
          `${where} reported an error in the middle of the reply: ${serverMessage}`,
          "Send the request again; if it keeps failing, try another --model.",
        ),
    });
  }

  const detail = redact(connectionDetail(error));
  return failure({
    retryable: phase === "stream",
    streamCut: phase === "stream",
    reason: phase === "stream" ? `stream cut (${detail})` : detail,
    finalError: (attempts) =>
      new ApplicationError(
        "provider_error",
        phase === "stream"
          ? `The stream from ${where} was cut before any reply text, ${plural(attempts, "time")} in a row (${detail}).`
          : `The request to ${where} failed: ${detail}.`,
        "Check that the server is healthy and try again.",
      ),
  });
}

function statusError(server: ServerContext, status: number, statusLine: string, serverMessage: string, attempts: number): ApplicationError {
  const where = describeServer(server);
  const answered = `${where} answered ${statusLine}`;
  if (status === 429) {
    return new ApplicationError(
      "rate_limited",
      `${answered} (rate limited) ${plural(attempts, "time")} in a row: ${serverMessage}`,
      "Wait a minute and try again, or check the account's rate limits and credit with the provider.",
    );
  }
  if (status === 401 || status === 403) {
    const variable = server.apiKeyEnv ?? "the provider's API key variable";
    return new ApplicationError(
      "provider_error",
      `${answered}: the API key was refused. ${serverMessage}`,
      server.apiKey ? `Check the key in ${variable}: export ${variable}=<a valid key>.` : `This server needs an API key: export ${variable}=<your key>.`,
    );
  }
  if (status === 404) {
    return new ApplicationError(
      "provider_error",
      `${answered}: no model "${server.model}" or no ${server.api} endpoint there. ${serverMessage}`,
      `Pass --model with a model the server serves (GET ${server.baseURL}/models lists them)` +
        (server.api === "chat" ? ", or --api completions for a completion-only server." : ", or --api chat."),
    );
  }
  if (status >= 500 || status === 408 || status === 409) {
    return new ApplicationError(
      "provider_error",
      `${answered} ${plural(attempts, "time")} in a row: ${serverMessage}`,
      "The server may be overloaded or down: try again later, or choose another --model or --provider.",
    );
  }
  return new ApplicationError(
    "provider_error",
    `${answered}, rejecting the request: ${serverMessage}`,
    "The message is the server's own; check --model, --api and --max-tokens against what the server accepts.",
  );
}

function failure(fields: Partial<AttemptFailure> & Pick<AttemptFailure, "retryable" | "reason" | "finalError">): AttemptFailure {
  return { streamCut: false, ...fields };
}

function findRefusedParameter(serverMessage: string): RefusableParameter | undefined {
  if (/stream_options|include_usage/i.test(serverMessage)) return "stream_options";
  if (/max_completion_tokens/i.test(serverMessage)) return "max_tokens";
  if (/temperature/i.test(serverMessage) && /unsupported|not support|only the default/i.test(serverMessage)) return "temperature";
  return undefined;
}

function apiErrorMessage(error: OpenAISdk.APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  return typeof body?.message === "string" ? body.message : error.message;
}

/** The most specific description in an error's cause chain, e.g. `connect ECONNREFUSED 127.0.0.1:9`. */
function connectionDetail(error: unknown): string {
  const messages: string[] = [];
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    messages.push(current.message);
  }
  return messages.at(-1) || messages[0] || String(error);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** Replaces an API key anywhere in a text. */
export function redactKey(text: string, apiKey: string | undefined): string {
  return apiKey && apiKey.length >= 4 ? text.split(apiKey).join("[redacted]") : text;
}
