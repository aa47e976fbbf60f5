import { OpenAICompatibleProvider, type OpenAICompatibleOptions } from "../../src/providers/openai-compatible.js";
import type { ModelEvent } from "../../src/providers/types.js";
import type { OpenAITestServer } from "../support/openai-server.js";

export const testApiKey = "sk-test-very-secret-key-0123456789";

/** A provider against the test server whose waits are recorded, not slept. */
export function providerFor(
  server: OpenAITestServer,
  api: "chat" | "completions",
  overrides: Partial<OpenAICompatibleOptions> = {},
): { provider: OpenAICompatibleProvider; delays: number[] } {
  const delays: number[] = [];
  const provider = new OpenAICompatibleProvider({
    name: "testserver",
    api,
    baseURL: server.baseURL,
    model: "test-model",
    apiKey: testApiKey,
    apiKeyEnv: "TEST_API_KEY",
    sleep: async (milliseconds) => void delays.push(milliseconds),
    random: () => 0.5,
    ...overrides,
  });
  return { provider, delays };
}

export async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Collects events until the stream throws, calling `onEvent` on each; returns both. */
export async function collectUntilError(stream: AsyncIterable<ModelEvent>, onEvent: (event: ModelEvent) => void = () => {}): Promise<{ events: ModelEvent[]; error: unknown }> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of stream) {
      events.push(event);
      onEvent(event);
    }
  } catch (error) {
    return { events, error };
  }
  throw new Error(`The stream ended without an error after ${events.length} events.`);
}

export function replyText(events: ModelEvent[]): string {
  return events.map((event) => (event.type === "text-delta" ? event.text : "")).join("");
}

export function eventsOfType<T extends ModelEvent["type"]>(events: ModelEvent[], type: T): Extract<ModelEvent, { type: T }>[] {
  return events.filter((event): event is Extract<ModelEvent, { type: T }> => event.type === type);
}

export const conversation = [
  { role: "system" as const, content: "You are clio." },
  { role: "user" as const, content: "Say hello." },
];
