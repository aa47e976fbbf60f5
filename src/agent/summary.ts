/**
 * Keeping a long conversation inside the model's context window: when the last call used most
 * of it, the older turns are summarised by the model into one message.
 */
import type { ChatMessage, ModelProvider } from "../providers/types.js";

/** Share of the context window past which older turns are summarised. */
const THRESHOLD = 0.75;
/** Messages kept as they are at the end of the conversation. */
const KEEP = 4;

export function needsSummary(contextTokens: number, contextWindow: number | undefined, messages: number): boolean {
  return contextWindow !== undefined && contextWindow > 0 && messages > KEEP + 1 && contextTokens > contextWindow * THRESHOLD;
}

/**
 * Replaces all but the last few messages of `history` (in place) with one summary message.
 * Returns how many messages it replaced.
 */
export async function summarize(provider: ModelProvider, system: string, history: ChatMessage[], signal: AbortSignal): Promise<number> {
  let cut = history.length - KEEP;
  // Keep a result message together with the reply that asked for it.
  while (cut > 0 && history[cut]?.role !== "user") cut--;
  if (cut <= 0) return 0;
  const older = history.slice(0, cut);
  const transcript = older.map((message) => `${message.role.toUpperCase()}:\n${message.content}`).join("\n\n");
  let summary = "";
  for await (const event of provider.stream({
    messages: [
      { role: "system", content: `${system}\n\nYou are now summarising, not acting: write no commands.` },
      {
        role: "user",
        content: `Summarise this earlier part of our conversation in at most 300 words: the task, what was found (files, facts), what was changed, what is left to do. Plain text, no commands.\n\n${transcript}`,
      },
    ],
    signal,
  })) {
    if (event.type === "text-delta") summary += event.text;
  }
  if (!summary.trim()) throw new Error("the model returned an empty summary; the conversation was kept as it was");
  // The summary joins the first kept message (a user message), so roles still alternate:
  // strict chat templates refuse two user messages in a row.
  const firstKept = history[cut]!;
  history.splice(0, cut + 1, { role: "user", content: `[Summary of the earlier conversation]\n${summary.trim()}\n\n${firstKept.content}` });
  return cut;
}
