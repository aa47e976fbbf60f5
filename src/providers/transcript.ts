/**
 * The prompt a completion-only (base) model reads: the conversation as a plain transcript,
 *
 *     System: You are clio...
 *
 *     User: Fix the failing test.
 *
 *     Assistant:
 *
 * ending with `Assistant:` for the model to continue. Its turn ends where it starts a new
 * `User:`, `System:` or `Assistant:` line, so every role marker is a stop string (the system
 * prompt's example uses the same names). When the last
 * message is the assistant's own, the prompt ends with that text so the model continues it.
 */
import type { ChatMessage } from "./types.js";

const roleLabels: Record<ChatMessage["role"], string> = {
  system: "System",
  user: "User",
  assistant: "Assistant",
};

/** The stop strings that end the model's turn in a transcript. */
export const transcriptStops: readonly string[] = ["\nUser:", "\nSystem:", "\nAssistant:"];

export interface Transcript {
  prompt: string;
  /** True when the prompt ends with a bare `Assistant:`, so the reply's leading spaces are noise. */
  opensAssistantTurn: boolean;
}

export function renderTranscript(messages: readonly ChatMessage[]): Transcript {
  const last = messages.at(-1);
  const continuing = last?.role === "assistant";
  const closed = continuing ? messages.slice(0, -1) : messages;
  const blocks = closed.map((message) => `${roleLabels[message.role]}: ${message.content}`);
  blocks.push(continuing ? `Assistant: ${last.content}` : "Assistant:");
  return { prompt: blocks.join("\n\n"), opensAssistantTurn: !continuing };
}
