/**
 * A provider that writes each request to the log: which server and model, how many messages and
 * characters, how long until the first text and until the end, the token counts, retries and
 * failures. Never the key, never the messages' text.
 */
import { log, logs } from "../log.js";
import type { ModelEvent, ModelProvider, ModelRequest } from "./types.js";

export function loggedProvider(provider: ModelProvider, where: string): ModelProvider {
  if (!logs("error")) return provider;
  return {
    name: provider.name,
    model: provider.model,
    api: provider.api,
    stream: (request: ModelRequest) => logStream(provider, request, where),
  };
}

async function* logStream(provider: ModelProvider, request: ModelRequest, where: string): AsyncIterable<ModelEvent> {
  const began = performance.now();
  const characters = request.messages.reduce((total, message) => total + message.content.length, 0);
  log.info("model request", { provider: provider.name, model: provider.model, api: provider.api, server: where, messages: request.messages.length, characters });
  let firstTextMs: number | undefined;
  let received = 0;
  try {
    for await (const event of provider.stream(request)) {
      if (event.type === "text-delta") {
        firstTextMs ??= Math.round(performance.now() - began);
        received += event.text.length;
      } else if (event.type === "retry") log.warn("model request retried", { attempt: event.attempt, delayMs: event.delayMs, reason: event.reason });
      else if (event.type === "usage") log.debug("model usage", { inputTokens: event.inputTokens, outputTokens: event.outputTokens, estimated: event.estimated });
      else if (event.type === "finish") log.info("model reply", { finish: event.reason, firstTextMs, totalMs: Math.round(performance.now() - began), characters: received });
      yield event;
    }
  } catch (error) {
    log.error("model request failed", { afterMs: Math.round(performance.now() - began), error: (error as Error).message });
    throw error;
  }
}
