/** Prompts for `clio -p`: one from the command line, or JSON lines (`--input-format stream-json`). */
import { createInterface } from "node:readline";
import type { PromptInput } from "./print-mode.js";

const SHAPE = '{"type":"user","message":{"role":"user","content":"..."}} or {"prompt":"..."}';

/** One prompt, then nothing more. */
export async function* singlePrompt(prompt: string): AsyncGenerator<PromptInput> {
  yield { prompt };
}

/**
 * Prompts read line by line as they arrive, so a program can send the next one after reading
 * the last result. Blank lines are skipped; a line that is not a prompt yields an error naming it.
 */
export async function* jsonLinePrompts(input: NodeJS.ReadableStream, first?: string): AsyncGenerator<PromptInput> {
  if (first?.trim()) yield { prompt: first };
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  for await (const line of lines) {
    number++;
    if (!line.trim()) continue;
    const parsed = promptFromJsonLine(line);
    if (typeof parsed === "string") yield { prompt: parsed };
    else {
      yield { error: `line ${number} of standard input is not a prompt (${parsed.reason}); write one JSON object per line: ${SHAPE}.` };
      return;
    }
  }
}

/** The prompt text of one JSON line, or why there is none. */
export function promptFromJsonLine(line: string): string | { reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { reason: `not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { reason: "not a JSON object" };
  const record = value as { type?: unknown; prompt?: unknown; message?: { role?: unknown; content?: unknown } };
  if (typeof record.prompt === "string") return nonEmpty(record.prompt);
  if (record.type !== "user" || typeof record.message !== "object" || record.message === null) return { reason: 'no "prompt" and no "type":"user" with a "message"' };
  const content = record.message.content;
  if (typeof content === "string") return nonEmpty(content);
  if (Array.isArray(content)) {
    const texts = content.filter(
      (part): part is { type: "text"; text: string } => typeof part === "object" && part !== null && part.type === "text" && typeof part.text === "string",
    );
    if (texts.length) return nonEmpty(texts.map((part) => part.text).join("\n"));
  }
  return { reason: "the message has no text content" };
}

function nonEmpty(text: string): string | { reason: string } {
  return text.trim() ? text : { reason: "the prompt is empty" };
}
