import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ClioError } from "../../grammar/errors.js";
import { StreamCutError } from "../../src/providers/failures.js";
import { startOpenAIServer, type OpenAITestServer } from "../support/openai-server.js";
import { collect, collectUntilError, conversation, eventsOfType, providerFor, replyText } from "./helpers.js";

let server: OpenAITestServer;
beforeEach(async () => {
  server = await startOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

describe.each(["chat", "completions"] as const)("the %s API through the openai client", (api) => {
  it("yields the text deltas in order, then the server's usage, then finish last", async () => {
    server.enqueue({ reply: "Hello, world! How are you?", chunkSizes: [1, 3, 5], usage: { promptTokens: 11, completionTokens: 7 } });
    const { provider } = providerFor(server, api);

    const events = await collect(provider.stream({ messages: conversation }));

    const deltas = eventsOfType(events, "text-delta").map((event) => event.text);
    expect(deltas.slice(0, 3)).toEqual(["H", "ell", "o, wo"]);
    expect(deltas.join("")).toBe("Hello, world! How are you?");
    expect(events.slice(-2)).toEqual([
      { type: "usage", inputTokens: 11, outputTokens: 7, estimated: false },
      { type: "finish", reason: "stop" },
    ]);
  });

  it("reports finish reason length", async () => {
    server.enqueue({ reply: "Truncated rep", finishReason: "length" });
    const { provider } = providerFor(server, api);

    const events = await collect(provider.stream({ messages: conversation, maxTokens: 3 }));

    expect(events.at(-1)).toEqual({ type: "finish", reason: "length" });
    expect(server.requests[0]?.body.max_tokens).toBe(3);
  });

  it("estimates usage when the server sends none", async () => {
    server.enqueue({ reply: "A reply of several words.", usage: false });
    const { provider } = providerFor(server, api);

    const usage = eventsOfType(await collect(provider.stream({ messages: conversation })), "usage");

    expect(usage).toHaveLength(1);
    expect(usage[0]?.estimated).toBe(true);
    expect(usage[0]?.inputTokens).toBeGreaterThan(0);
    expect(usage[0]?.outputTokens).toBeGreaterThan(0);
  });

  it("never sends a tools parameter", async () => {
    server.enqueue({ reply: "ok" });
    const { provider } = providerFor(server, api);

    await collect(provider.stream({ messages: conversation, stop: ["[END]"], temperature: 0.2 }));

    const body = server.requests[0]?.body;
    if (body === undefined) throw new Error("the server received no request");
    for (const key of ["tools", "tool_choice", "functions", "function_call"]) expect(body).not.toHaveProperty(key);
    expect(body).toMatchObject({ model: "test-model", stream: true, stream_options: { include_usage: true }, temperature: 0.2 });
    expect(body.stop).toContain("[END]");
  });

  it("waits as Retry-After asks after a 429, then succeeds", async () => {
    server.enqueue({ status: 429, retryAfter: "3", message: "Rate limit reached" }, { reply: "fine now" });
    const { provider, delays } = providerFor(server, api);

    const events = await collect(provider.stream({ messages: conversation }));

    expect(delays).toEqual([3000]);
    expect(events[0]).toEqual({ type: "retry", attempt: 1, delayMs: 3000, reason: "429 Too Many Requests" });
    expect(replyText(events)).toBe("fine now");
  });

  it("backs off after a 500, then succeeds", async () => {
    server.enqueue({ status: 500, message: "The server had an error" }, { reply: "recovered" });
    const { provider, delays } = providerFor(server, api, { retry: { baseDelayMs: 1000 } });

    const events = await collect(provider.stream({ messages: conversation }));

    // random() = 0.5 gives three quarters of the first backoff.
    expect(delays).toEqual([750]);
    expect(replyText(events)).toBe("recovered");
  });

  it("gives up on a persistent 500 after the last retry, naming the server and status", async () => {
    for (let index = 0; index < 3; index++) server.enqueue({ status: 500, message: "Backend exploded" });
    const { provider } = providerFor(server, api, { retry: { maxRetries: 2 } });

    const { events, error } = await collectUntilError(provider.stream({ messages: conversation }));

    expect(eventsOfType(events, "retry").map((event) => event.attempt)).toEqual([1, 2]);
    expect(server.requests).toHaveLength(3);
    expect(error).toBeInstanceOf(ClioError);
    expect((error as ClioError).code).toBe("provider_error");
    expect((error as ClioError).message).toBe(`testserver (${server.baseURL}) answered 500 Internal Server Error 3 times in a row: Backend exploded`);
    expect((error as ClioError).hint).toMatch(/try again later/);
  });

  it("retries a stream cut before any text", async () => {
    server.enqueue({ reply: "never seen", cutAfterChunks: 0 }, { reply: "second try" });
    const { provider } = providerFor(server, api);

    const events = await collect(provider.stream({ messages: conversation }));

    expect(events[0]).toMatchObject({ type: "retry", attempt: 1, reason: expect.stringMatching(/^stream cut/) });
    expect(replyText(events)).toBe("second try");
  });

  it("ends with a StreamCutError, not a retry, when the stream is cut after text", async () => {
    server.enqueue({ reply: "abcdefghijklmnop", chunkSizes: 4, cutAfterChunks: 2 }, { reply: "must not be used" });
    const { provider } = providerFor(server, api);

    const { events, error } = await collectUntilError(provider.stream({ messages: conversation }));

    expect(replyText(events)).toBe("abcdefgh");
    expect(error).toBeInstanceOf(StreamCutError);
    expect((error as StreamCutError).code).toBe("provider_error");
    expect((error as StreamCutError).receivedCharacters).toBe(8);
    expect((error as StreamCutError).message).toMatch(/was cut after 8 characters/);
    expect(server.remaining()).toBe(1);
  });

  it("waits for a slow first token", async () => {
    server.enqueue({ reply: "worth the wait", firstTokenDelayMs: 300 });
    const { provider } = providerFor(server, api);

    expect(replyText(await collect(provider.stream({ messages: conversation })))).toBe("worth the wait");
  });

  it("ends with cancelled when the signal aborts while waiting for the first token", async () => {
    server.enqueue({ reply: "too late", firstTokenDelayMs: 60_000 });
    const { provider } = providerFor(server, api);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);

    const { error } = await collectUntilError(provider.stream({ messages: conversation, signal: controller.signal }));

    expect((error as ClioError).code).toBe("cancelled");
  });

  it("ends with cancelled when the signal aborts mid-reply", async () => {
    server.enqueue({ reply: "one two three four five six", chunkSizes: 4, chunkDelayMs: 50 });
    const { provider } = providerFor(server, api);
    const controller = new AbortController();

    const { events, error } = await collectUntilError(provider.stream({ messages: conversation, signal: controller.signal }), (event) => {
      if (event.type === "text-delta") controller.abort();
    });

    expect((error as ClioError).code).toBe("cancelled");
    expect(events).toHaveLength(1);
  });

  it("enforces stop strings the server was not sent (it takes only four)", async () => {
    server.enqueue({ reply: "keep this<<5>>drop this" });
    const { provider } = providerFor(server, api);
    const stops = ["<<1>>", "<<2>>", "<<3>>", "<<4>>", "<<5>>"];

    const events = await collect(provider.stream({ messages: conversation, stop: stops }));

    expect(server.requests[0]?.body.stop).toHaveLength(4);
    expect(server.requests[0]?.body.stop).not.toContain("<<5>>");
    expect(replyText(events)).toBe("keep this");
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
  });

  it("cuts the reply at a stop string the server honours", async () => {
    server.enqueue({ reply: "before [END] after", chunkSizes: 3 });
    const { provider } = providerFor(server, api);

    const events = await collect(provider.stream({ messages: conversation, stop: ["[END]"] }));

    expect(replyText(events)).toBe("before ");
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
  });
});
