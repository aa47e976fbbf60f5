/**
 * Token counts for when a server reports none. The tokenizer (o200k_base, about 2 MB of
 * tables) is loaded on first use, so start-up does not pay for it. Counts are estimates for
 * any model that is not OpenAI's: close enough to budget a context window.
 */
import type { ChatMessage } from "./types.js";

type CountTokens = (text: string) => number;

let loadedCounter: CountTokens | undefined;
let loadingCounter: Promise<CountTokens> | undefined;

function loadCounter(): Promise<CountTokens> {
  loadingCounter ??= import("gpt-tokenizer/encoding/o200k_base").then((tokenizer) => {
    // Special-token text such as "<|endoftext|>" in a file is counted as plain text, not refused.
    const options = { disallowedSpecial: new Set<string>() };
    loadedCounter = (text) => tokenizer.countTokens(text, options);
    return loadedCounter;
  });
  return loadingCounter;
}

/** Loads the tokenizer now (about half a second), e.g. in the background while the user types. */
export async function preloadTokenizer(): Promise<void> {
  await loadCounter();
}

/** Counts the tokens of a text with the GPT-4o tokenizer, loading it on first call. */
export async function estimateTokens(text: string): Promise<number> {
  if (text.length === 0) return 0;
  const count = loadedCounter ?? (await loadCounter());
  return count(text);
}

/**
 * Counts at once without waiting: exact once the tokenizer has been loaded by an
 * `estimateTokens` call, otherwise about one token per four characters.
 */
export function approximateTokens(text: string): number {
  if (loadedCounter) return loadedCounter(text);
  return Math.ceil(text.length / 4);
}

/** Each chat message costs its content plus a few tokens of framing, as OpenAI counts them. */
const tokensPerMessage = 4;

/** Estimates the prompt tokens of a conversation sent to a chat endpoint. */
export async function estimateMessageTokens(messages: readonly ChatMessage[]): Promise<number> {
  let total = 0;
  for (const message of messages) total += tokensPerMessage + (await estimateTokens(message.content));
  return total;
}
