import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startOpenAIServer, type OpenAITestServer } from "../support/openai-server.js";
import { collect, conversation, eventsOfType, providerFor, replyText } from "./helpers.js";

let server: OpenAITestServer;
beforeEach(async () => {
  server = await startOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

describe("reasoning streamed beside the content", () => {
  it.each(["reasoning_content", "reasoning", "thinking"] as const)("comes from the %s field as reasoning, never as reply text", async (field) => {
    const thought = 'First read the file: [FILE_OP:action=read:path="a"] then decide.';
    server.enqueue({ reply: "The answer.", reasoning: { field, text: thought } });
    const { provider } = providerFor(server, "chat");

    const events = await collect(provider.stream({ messages: conversation }));

    expect(
      eventsOfType(events, "reasoning-delta")
        .map((event) => event.text)
        .join(""),
    ).toBe(thought);
    expect(replyText(events)).toBe("The answer.");
    const firstText = events.findIndex((event) => event.type === "text-delta");
    const lastReasoning = events.map((event) => event.type).lastIndexOf("reasoning-delta");
    expect(lastReasoning).toBeLessThan(firstText);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
  });
});
