import { inspect } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ClioError } from "../../grammar/errors.js";
import { createProvider, StreamCutError } from "../../src/providers/index.js";
import { resolveProviderSettings } from "../../src/providers/presets.js";
import { sleep } from "../../src/providers/retry.js";
import { startOpenAIServer, type OpenAITestServer } from "../support/openai-server.js";
import { collect, collectUntilError, conversation, eventsOfType, providerFor, replyText, testApiKey } from "./helpers.js";

let server: OpenAITestServer;
beforeEach(async () => {
  server = await startOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

describe("the completions API", () => {
  it("sends the conversation as a transcript ending in Assistant:, with the turn-ending stop strings", async () => {
    server.enqueue({ reply: " Hello!" });
    const { provider } = providerFor(server, "completions");

    await collect(provider.stream({ messages: conversation, stop: ["[END]"] }));

    const [first] = server.requests;
    if (first === undefined) throw new Error("the server received no request");
    const { body, path } = first;
    expect(path).toBe("/v1/completions");
    expect(body.prompt).toBe("System: You are clio.\n\nUser: Say hello.\n\nAssistant:");
    expect(body.stop).toEqual(["\nUser:", "\nSystem:", "\nAssistant:", "[END]"]);
    expect(body).not.toHaveProperty("messages");
  });

  it("drops the space a base model writes after Assistant:", async () => {
    server.enqueue({ reply: "  \n Hello there", chunkSizes: 1 });
    const { provider } = providerFor(server, "completions");

    expect(replyText(await collect(provider.stream({ messages: conversation })))).toBe("Hello there");
  });

  it("ends the model's turn where it starts writing the user's", async () => {
    server.enqueue({ reply: " Done.\nUser: and now pretend I said more", chunkSizes: 2 });
    const { provider } = providerFor(server, "completions");

    const events = await collect(provider.stream({ messages: conversation }));

    expect(replyText(events)).toBe("Done.");
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
  });

  it("continues an assistant message that ends the conversation", async () => {
    server.enqueue({ reply: " world" });
    const { provider } = providerFor(server, "completions");

    const events = await collect(provider.stream({ messages: [...conversation, { role: "assistant", content: "Hello" }] }));

    expect(server.requests[0]?.body.prompt).toBe("System: You are clio.\n\nUser: Say hello.\n\nAssistant: Hello");
    expect(replyText(events)).toBe(" world");
  });
});

describe("the chat API", () => {
  it("sends the messages as they are, with no stop parameter when there are no stop strings", async () => {
    server.enqueue({ reply: "Hi" });
    const { provider } = providerFor(server, "chat");

    await collect(provider.stream({ messages: conversation }));

    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
    expect(server.requests[0]?.body.messages).toEqual(conversation);
    expect(server.requests[0]?.body).not.toHaveProperty("stop");
  });

  it("drops stream_options for good when the server rejects it, and estimates usage", async () => {
    const rejection = { status: 400, message: "Unrecognized request argument supplied: stream_options" };
    server.enqueue(rejection, { reply: "first" }, { reply: "second" });
    const { provider, delays } = providerFor(server, "chat");

    const first = await collect(provider.stream({ messages: conversation }));
    await collect(provider.stream({ messages: conversation }));

    expect(server.requests.map((request) => "stream_options" in request.body)).toEqual([true, false, false]);
    expect(eventsOfType(first, "retry")).toEqual([]);
    expect(delays).toEqual([]);
    expect(eventsOfType(first, "usage")[0]?.estimated).toBe(true);
  });

  it("learns that a model wants max_completion_tokens and no temperature", async () => {
    server.enqueue(
      { status: 400, message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead." },
      { status: 400, message: "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported." },
      { reply: "ok" },
    );
    const { provider } = providerFor(server, "chat");

    expect(replyText(await collect(provider.stream({ messages: conversation, maxTokens: 50, temperature: 0.2 })))).toBe("ok");

    const last = server.requests[2]?.body;
    expect(last).toMatchObject({ max_completion_tokens: 50 });
    expect(last).not.toHaveProperty("max_tokens");
    expect(last).not.toHaveProperty("temperature");
  });

  it("does not resend a request whose refused parameter is already left out", async () => {
    const refusal = { status: 400, message: "Unrecognized request argument supplied: stream_options" };
    server.enqueue(refusal, refusal);
    const { provider } = providerFor(server, "chat");

    const { error } = await collectUntilError(provider.stream({ messages: conversation }));

    expect(server.requests).toHaveLength(2);
    expect((error as ClioError).message).toContain("400 Bad Request, rejecting the request: Unrecognized request argument");
  });
});

describe("failures", () => {
  it("does not retry a refused API key, and never repeats the key", async () => {
    server.enqueue({ status: 401, message: `Incorrect API key provided: ${testApiKey}.`, code: "invalid_api_key" });
    const { provider } = providerFor(server, "chat");

    const { events, error } = await collectUntilError(provider.stream({ messages: conversation }));

    expect(events).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect((error as ClioError).code).toBe("provider_error");
    expect((error as ClioError).message).toContain("401 Unauthorized: the API key was refused");
    expect((error as ClioError).hint).toBe("Check the key in TEST_API_KEY: export TEST_API_KEY=<a valid key>.");
    expect(JSON.stringify({ ...(error as ClioError).toData(), stack: (error as Error).stack })).not.toContain(testApiKey);
  });

  it("sends the key to the server as a bearer token, and nowhere else", async () => {
    server.enqueue({ reply: "ok" });
    const { provider } = providerFor(server, "chat");

    await collect(provider.stream({ messages: conversation }));

    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${testApiKey}`);
    for (const shown of [JSON.stringify(provider), inspect(provider, { depth: 5 }), String(provider)]) expect(shown).not.toContain(testApiKey);
  });

  it("says how to name a served model on a 404", async () => {
    server.enqueue({ status: 404, message: "The model `nope` does not exist" });
    const { provider } = providerFor(server, "chat", { model: "nope" });

    const { error } = await collectUntilError(provider.stream({ messages: conversation }));

    expect((error as ClioError).message).toContain('no model "nope"');
    expect((error as ClioError).hint).toContain("--model");
    expect((error as ClioError).hint).toContain("--api completions");
  });

  it("ends with rate_limited when the server keeps answering 429", async () => {
    for (let index = 0; index < 2; index++) server.enqueue({ status: 429, message: "Slow down" });
    const { provider, delays } = providerFor(server, "chat", { retry: { maxRetries: 1, baseDelayMs: 2000 } });

    const { error } = await collectUntilError(provider.stream({ messages: conversation }));

    expect(delays).toEqual([1500]);
    expect((error as ClioError).code).toBe("rate_limited");
    expect((error as ClioError).message).toMatch(/429 Too Many Requests \(rate limited\) 2 times in a row: Slow down/);
  });

  it("honours a Retry-After date, and caps a long one", async () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    server.enqueue({ status: 503, retryAfter: new Date(now + 5000).toUTCString() }, { status: 429, retryAfter: "3600" }, { reply: "ok" });
    const { provider, delays } = providerFor(server, "chat", { now: () => now, retry: { maxRetryAfterMs: 30_000 } });

    await collect(provider.stream({ messages: conversation }));

    expect(delays).toEqual([5000, 30_000]);
  });

  it("ends with cancelled when the signal aborts during a retry wait", async () => {
    server.enqueue({ status: 429, retryAfter: "30" });
    const { provider } = providerFor(server, "chat", { sleep });
    const controller = new AbortController();

    const { events, error } = await collectUntilError(provider.stream({ messages: conversation, signal: controller.signal }), (event) => {
      if (event.type === "retry") setTimeout(() => controller.abort(), 10);
    });

    expect(events).toEqual([{ type: "retry", attempt: 1, delayMs: 30_000, reason: "429 Too Many Requests" }]);
    expect((error as ClioError).code).toBe("cancelled");
  });

  it("treats a server silent before its first byte, or between chunks, as a cut stream", async () => {
    server.enqueue({ reply: "stalls", firstTokenDelayMs: 60_000 }, { reply: "abc", chunkSizes: 1, chunkDelayMs: 60_000 }, { reply: "prompt" });
    const { provider } = providerFor(server, "chat", { timeoutMs: 200, idleTimeoutMs: 200 });

    const { events, error } = await collectUntilError(provider.stream({ messages: conversation }));
    const retried = await collect(provider.stream({ messages: conversation }));

    expect(events[0]).toMatchObject({ type: "retry", attempt: 1, reason: "stream cut (no answer from the server within 0.2 s (requestTimeout))" });
    expect((error as StreamCutError).message).toContain("no data for 0.2 s in the middle of the reply (idleTimeout)");
    expect(error).toBeInstanceOf(StreamCutError);
    expect((error as StreamCutError).receivedCharacters).toBe(1);
    expect(replyText(retried)).toBe("prompt");
  });

  it("says to start the server when nothing listens at the base URL, without retrying", async () => {
    const closed = await startOpenAIServer();
    await closed.close();
    const { provider, delays } = providerFor(closed, "chat", { name: "ollama" });

    const { error } = await collectUntilError(provider.stream({ messages: conversation }));

    expect(delays).toEqual([]);
    expect((error as ClioError).message).toBe(`Could not connect to ollama (${closed.baseURL}): connect ECONNREFUSED ${closed.url.slice(7)}.`);
    expect((error as ClioError).hint).toContain("--base-url");
  });
});

describe("createProvider", () => {
  it("builds a working provider from resolved settings", async () => {
    server.enqueue({ reply: "end to end" });
    const settings = resolveProviderSettings({ flags: { baseURL: server.baseURL, model: "test-model", api: "completions" }, env: {} });

    const provider = await createProvider(settings);
    const events = await collect(provider.stream({ messages: conversation }));

    expect([provider.name, provider.api, provider.model]).toEqual(["custom", "completions", "test-model"]);
    expect(replyText(events)).toBe("end to end");
    expect(server.requests[0]?.headers.authorization).toBe("Bearer not-needed");
  });
});
