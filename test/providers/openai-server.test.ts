import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startOpenAIServer, type OpenAITestServer } from "../support/openai-server.js";

let server: OpenAITestServer;
beforeEach(async () => {
  server = await startOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

async function rawEvents(path: string, body: Record<string, unknown>): Promise<string[]> {
  const response = await fetch(`${server.baseURL}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  const text = await response.text();
  expect(text.endsWith("\n\n")).toBe(true);
  return text
    .trim()
    .split("\n\n")
    .map((event) => event.replace(/^data: /, ""));
}

describe("the OpenAI-compatible test server", () => {
  it("streams chat chunks as the OpenAI API does", async () => {
    server.enqueue({ reply: "Hi there", chunkSizes: 5, usage: { promptTokens: 3, completionTokens: 2 } });

    const events = await rawEvents("/chat/completions", { model: "m", messages: [], stream: true, stream_options: { include_usage: true } });

    expect(events.at(-1)).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event));
    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk" && chunk.id === chunks[0].id)).toBe(true);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: "assistant", content: "" },
      { content: "Hi th" },
      { content: "" },
      { content: "ere" },
      {},
      null,
    ]);
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason)).toEqual([null, null, null, null, "stop", undefined]);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it("streams text_completion chunks, without usage unless asked", async () => {
    server.enqueue({ reply: "abc", chunkSizes: 2, finishReason: "length" });

    const events = await rawEvents("/completions", { model: "m", prompt: "x", stream: true });

    const chunks = events.slice(0, -1).map((event) => JSON.parse(event));
    expect(chunks.map((chunk) => [chunk.object, chunk.choices[0].text, chunk.choices[0].finish_reason])).toEqual([
      ["text_completion", "ab", null],
      ["text_completion", "", null],
      ["text_completion", "c", null],
      ["text_completion", "", "length"],
    ]);
    expect(chunks.some((chunk) => "usage" in chunk)).toBe(false);
  });

  it("answers whole replies when not streaming, honouring stop strings", async () => {
    server.enqueue({ reply: "keep STOP drop" }, { reply: "plain text" });
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });

    const chat = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }], stop: ["STOP"] });
    const completion = await client.completions.create({ model: "m", prompt: "say" });

    expect(chat.choices[0]).toMatchObject({ message: { role: "assistant", content: "keep " }, finish_reason: "stop" });
    expect(chat.usage?.completion_tokens).toBeGreaterThan(0);
    expect(completion.choices[0]).toMatchObject({ text: "plain text", finish_reason: "stop" });
  });

  it("answers errors with an OpenAI-style body, and says when nothing is queued", async () => {
    server.enqueue({ status: 503, message: "Overloaded", retryAfter: "1" });

    const first = await fetch(`${server.baseURL}/chat/completions`, { method: "POST", body: "{}" });
    const second = await fetch(`${server.baseURL}/completions`, { method: "POST", body: "{}" });

    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("1");
    expect(await first.json()).toEqual({ error: { message: "Overloaded", type: "server_error", param: null, code: null } });
    expect(second.status).toBe(500);
    expect(((await second.json()) as { error: { message: string } }).error.message).toMatch(/no behaviour queued/);
    expect(server.requests.map((request) => request.path)).toEqual(["/v1/chat/completions", "/v1/completions"]);
  });

  it("lets a queued function choose the behaviour from the request", async () => {
    server.enqueue((request) => ({ reply: `echo: ${request.body.messages.at(-1).content}` }));
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });

    const chat = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "ping" }] });

    expect(chat.choices[0]?.message.content).toBe("echo: ping");
  });

  it("lists its model", async () => {
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });

    const models = await client.models.list();

    expect(models.data.map((model) => model.id)).toEqual(["test-model"]);
  });
});
