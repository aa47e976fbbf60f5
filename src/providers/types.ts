/**
 * The one small interface every model provider implements. The agent loop streams a reply,
 * reads text as it arrives and never sees a vendor's wire format. The protocol travels in
 * plain text, so a provider has no notion of tools: it sends messages and returns text.
 */

/** One message of a conversation. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** What the loop asks a model for. */
export interface ModelRequest {
  messages: ChatMessage[];
  /** Strings that end the reply; the stop string itself is never part of the text. */
  stop?: string[];
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  /** Aborting it ends the stream promptly with a `cancelled` ClioError. */
  signal?: AbortSignal;
}

/**
 * What a stream yields, in this order: any `retry` events (only before the first text),
 * `text-delta` events (with `reasoning-delta` events among them), then exactly one `usage` and
 * one `finish`, which is always last.
 */
export type ModelEvent =
  | { type: "text-delta"; text: string }
  /**
   * Reasoning a model streams beside its content (`reasoning_content`, `reasoning` or
   * `thinking`): shown and recorded, never parsed for commands, never sent back to the model.
   */
  | { type: "reasoning-delta"; text: string }
  /** Token counts; `estimated` is true when the server sent none and clio counted them. */
  | { type: "usage"; inputTokens: number; outputTokens: number; estimated: boolean }
  /** A failed attempt that will be tried again after `delayMs`. */
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  /** `stop`: the model ended or hit a stop string; `length`: it hit the token limit. */
  | { type: "finish"; reason: FinishReason };

export type FinishReason = "stop" | "length" | "other";

/** The wire form a provider speaks. */
export type ProviderApi = "chat" | "completions" | "scripted";

/**
 * A model clio can talk to.
 *
 * `stream` throws ClioError: `cancelled` when the request's signal aborts, `rate_limited`
 * when the server kept answering 429, `provider_error` for anything else (a StreamCutError
 * when the connection broke after text was already yielded), `not_configured` when the
 * provider cannot run as configured.
 */
export interface ModelProvider {
  /** The provider's name, e.g. a preset name such as `openai` or `ollama`. */
  readonly name: string;
  readonly model: string;
  readonly api: ProviderApi;
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
  /** The models the server offers (`GET /models`), when it can tell. */
  listModels?(): Promise<string[]>;
}
