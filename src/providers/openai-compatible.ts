/**
 * Any OpenAI-compatible server — OpenAI, DeepSeek, OpenRouter, Ollama, llama.cpp, vLLM,
 * LM Studio — through the official `openai` client, in one of two forms:
 *
 * - `chat`: `/chat/completions`, streamed, asking for usage with `stream_options`;
 * - `completions`: `/completions` for base models, the conversation rendered as a transcript
 *   (see transcript.ts) whose turn-ending stop strings are sent with the request's own.
 *
 * A parameter the server refuses with a 400 (`stream_options`, `max_tokens` — sent as
 * `max_completion_tokens` instead — or `temperature`) is left out for the rest of the session
 * and the request sent again at once.
 *
 * No `tools` parameter is ever sent: the protocol travels in the text. Stop strings are also
 * enforced here, since some servers ignore them or accept only four.
 *
 * Retries are clio's alone (the client's are off): 408, 409, 429, 5xx, dropped connections
 * and streams cut before any text are tried again after an exponential, jittered backoff or
 * the server's Retry-After (capped), each announced by a `retry` event. A stream cut after
 * text was yielded is NOT retried here — that would repeat text the caller already has — but
 * ends with a StreamCutError, so the caller can drop the partial reply and ask again.
 * An optional idle timeout treats a stream that goes silent as cut.
 */
import { ClioError } from "../../grammar/errors.js";
import type * as OpenAISdk from "openai";
import { classifyFailure, redactKey, StreamCutError, type RefusableParameter, type ServerContext } from "./failures.js";
import { backoffDelay, cancelledError, defaultRetryPolicy, retryAfterDelay, sleep as realSleep, type RetryPolicy, type Sleep } from "./retry.js";
import { StopSequenceCutter } from "./stop.js";
import { estimateMessageTokens, estimateTokens } from "./tokens.js";
import { renderTranscript, transcriptStops } from "./transcript.js";
import type { FinishReason, ModelEvent, ModelProvider, ModelRequest } from "./types.js";

export interface OpenAICompatibleOptions {
  /** The provider's name in messages, e.g. `ollama`. */
  name: string;
  api: "chat" | "completions";
  baseURL: string;
  model: string;
  apiKey?: string;
  /** The environment variable that holds the key, named in hints. */
  apiKeyEnv?: string;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  retry?: Partial<RetryPolicy>;
  /**
   * Give up on an attempt when the server sends nothing for this long after the request (no
   * headers, no first chunk): a server that accepts and never answers. Retried like a cut stream.
   */
  timeoutMs?: number;
  /**
   * Give up on an attempt when no data arrives for this long between chunks, and treat it as
   * a cut stream (retried; a reply that already had text is dropped and asked for again).
   */
  idleTimeoutMs?: number;
  /** Seams for tests: waiting, jitter, the clock (for Retry-After dates) and HTTP. */
  sleep?: Sleep;
  random?: () => number;
  now?: () => number;
  fetch?: typeof globalThis.fetch;
}

/** Servers such as OpenAI accept at most four stop strings; the rest are enforced locally. */
const maxServerStops = 4;

/** One streamed chunk, whichever endpoint it came from. */
interface WireChunk {
  text: string;
  /** Reasoning sent beside the content, if any. */
  reasoning?: string;
  finishReason: string | null | undefined;
  usage: { prompt_tokens: number; completion_tokens: number } | null | undefined;
}

/**
 * The reasoning in a chat delta: DeepSeek's `reasoning_content`, vLLM's reasoning parsers and
 * OpenRouter's `reasoning`, Ollama's `thinking` — fields the client's types do not know.
 */
function reasoningOf(delta: object | undefined): string | undefined {
  if (delta === undefined) return undefined;
  const fields = delta as { reasoning_content?: unknown; reasoning?: unknown; thinking?: unknown };
  for (const value of [fields.reasoning_content, fields.reasoning, fields.thinking]) {
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

interface PreparedRequest {
  stops: string[];
  trimLeadingSpace: boolean;
  open(client: OpenAISdk.OpenAI, signal: AbortSignal): Promise<AsyncIterable<WireChunk>>;
  estimateInput(): Promise<number>;
}

export class OpenAICompatibleProvider implements ModelProvider {
  readonly name: string;
  readonly model: string;
  readonly api: "chat" | "completions";
  // Private fields (#) hold the API key, so neither JSON nor inspection shows it.
  readonly #options: OpenAICompatibleOptions;
  readonly #server: ServerContext;
  #loaded?: Promise<{ sdk: typeof OpenAISdk; client: OpenAISdk.OpenAI }>;
  private readonly policy: RetryPolicy;
  /** Parameters this server refused, learnt from its 400 answers and left out from then on. */
  private readonly refused = new Set<RefusableParameter>();

  constructor(options: OpenAICompatibleOptions) {
    this.#options = options;
    this.name = options.name;
    this.model = options.model;
    this.api = options.api;
    this.policy = { ...defaultRetryPolicy, ...options.retry };
    this.#server = {
      name: options.name,
      baseURL: options.baseURL,
      model: options.model,
      api: options.api,
      apiKey: options.apiKey,
      apiKeyEnv: options.apiKeyEnv,
    };
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    const { signal } = request;
    const sleep = this.#options.sleep ?? realSleep;
    const { sdk, client } = await this.load();
    const prepared = this.prepare(request);
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw cancelledError();
      const progress: AttemptProgress = { phase: "request", yielded: 0 };
      const watchdog = new IdleWatchdog(signal, this.#options.timeoutMs, this.#options.idleTimeoutMs);
      try {
        yield* this.attempt(prepared, client, watchdog, progress, signal);
        return;
      } catch (caught) {
        watchdog.dispose();
        if (signal?.aborted) throw cancelledError();
        const error = watchdog.stalled ? watchdog.stallError() : caught;
        if (error instanceof sdk.APIUserAbortError) throw cancelledError();
        if (ClioError.isInstance(error)) throw error;
        const failure = classifyFailure(error, watchdog.stalled ? "stream" : progress.phase, this.#server, sdk);
        if (failure.streamCut && progress.yielded > 0) throw new StreamCutError(this.#server, progress.yielded, failure.reason);
        const refused = failure.refusedParameter;
        if (refused && !this.refused.has(refused) && (refused !== "max_tokens" || this.api === "chat")) {
          this.refused.add(refused);
          attempt--;
          continue;
        }
        if (!failure.retryable || attempt > this.policy.maxRetries) throw failure.finalError(attempt);
        const now = this.#options.now?.() ?? Date.now();
        const delayMs = retryAfterDelay(failure.headers, this.policy, now) ?? backoffDelay(attempt, this.policy, this.#options.random);
        yield { type: "retry", attempt, delayMs, reason: failure.reason };
        await sleep(delayMs, signal);
      } finally {
        watchdog.dispose();
      }
    }
  }

  /** One request: its text deltas, then usage and finish. Throws whatever went wrong. */
  private async *attempt(
    prepared: PreparedRequest,
    client: OpenAISdk.OpenAI,
    watchdog: IdleWatchdog,
    progress: AttemptProgress,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<ModelEvent> {
    const chunks = await prepared.open(client, watchdog.signal);
    progress.phase = "stream";
    const reply = new ReplyText(prepared.stops, prepared.trimLeadingSpace);
    let finishReason: string | null | undefined;
    let usage: WireChunk["usage"];
    for await (const chunk of chunks) {
      watchdog.touch();
      if (chunk.reasoning && !reply.stopped) yield { type: "reasoning-delta", text: chunk.reasoning };
      const text = reply.push(chunk.text);
      if (text) {
        progress.yielded += text.length;
        yield { type: "text-delta", text };
      }
      if (reply.stopped) break;
      finishReason = chunk.finishReason ?? finishReason;
      usage = chunk.usage ?? usage;
    }
    // The client ends a stream quietly when it is aborted.
    if (signal?.aborted) throw cancelledError();
    if (watchdog.stalled) throw watchdog.stallError();
    // A reply whose stream ended without saying why it finished was cut off: never taken as whole.
    if (!reply.stopped && !finishReason) throw new Error("the stream ended without a finish_reason");
    const rest = reply.flush();
    if (rest) yield { type: "text-delta", text: rest };
    yield usage && !reply.stopped
      ? { type: "usage", inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens, estimated: false }
      : { type: "usage", inputTokens: await prepared.estimateInput(), outputTokens: await estimateTokens(reply.text), estimated: true };
    yield { type: "finish", reason: reply.stopped ? "stop" : finishReason ? mapFinishReason(finishReason) : "other" };
  }

  private load(): Promise<{ sdk: typeof OpenAISdk; client: OpenAISdk.OpenAI }> {
    // The client is loaded on first use, so start-up does not pay for it.
    this.#loaded ??= import("openai").then((sdk) => ({
      sdk,
      client: new sdk.OpenAI({
        baseURL: this.#options.baseURL,
        // Local servers want no key, but the client insists on one.
        apiKey: this.#options.apiKey || "not-needed",
        maxRetries: 0,
        defaultHeaders: this.#options.headers,
        fetch: this.#options.fetch,
      }),
    }));
    return this.#loaded;
  }

  private prepare(request: ModelRequest): PreparedRequest {
    const requestStops = request.stop?.filter((stop) => stop.length > 0) ?? [];
    // Built per attempt: a refused parameter is left out of the next one.
    const common = () => ({
      model: this.model,
      stream: true as const,
      ...(this.refused.has("stream_options") ? {} : { stream_options: { include_usage: true } }),
      ...(request.temperature !== undefined && !this.refused.has("temperature") ? { temperature: request.temperature } : {}),
      ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    });
    const maxTokens = (name: "max_tokens" | "max_completion_tokens") => (request.maxTokens !== undefined ? { [name]: request.maxTokens } : {});

    if (this.api === "chat") {
      const stops = unique(requestStops);
      const messages = request.messages.map(({ role, content }) => ({ role, content }));
      return {
        stops,
        trimLeadingSpace: false,
        estimateInput: () => estimateMessageTokens(request.messages),
        open: async (client, signal) => {
          const tokens = maxTokens(this.refused.has("max_tokens") ? "max_completion_tokens" : "max_tokens");
          const body = { ...common(), ...tokens, messages, ...stopParameter(stops) };
          const stream = await client.chat.completions.create(body, { signal });
          return mapChunks(stream, (chunk) => ({
            text: chunk.choices[0]?.delta?.content ?? "",
            reasoning: reasoningOf(chunk.choices[0]?.delta),
            finishReason: chunk.choices[0]?.finish_reason,
            usage: chunk.usage,
          }));
        },
      };
    }

    const transcript = renderTranscript(request.messages);
    const stops = unique([...transcriptStops, ...requestStops]);
    return {
      stops,
      trimLeadingSpace: transcript.opensAssistantTurn,
      estimateInput: () => estimateTokens(transcript.prompt),
      open: async (client, signal) => {
        const body = { ...common(), ...maxTokens("max_tokens"), prompt: transcript.prompt, ...stopParameter(stops) };
        const stream = await client.completions.create(body, { signal });
        return mapChunks(stream, (chunk) => ({
          text: chunk.choices[0]?.text ?? "",
          finishReason: chunk.choices[0]?.finish_reason,
          usage: chunk.usage,
        }));
      },
    };
  }

  /** The model ids the server lists at `GET /models`. */
  async listModels(): Promise<string[]> {
    const { client } = await this.load();
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    return ids.sort();
  }

  /** The key-free description used in logs. */
  toString(): string {
    return redactKey(`${this.name} ${this.api} ${this.model} at ${this.#options.baseURL}`, this.#options.apiKey);
  }
}

interface AttemptProgress {
  /** `stream` once the response started. */
  phase: "request" | "stream";
  /** Characters of reply text yielded so far. */
  yielded: number;
}

/** Reply text from raw chunks: cut at the first stop string, leading spaces dropped when asked. */
class ReplyText {
  private readonly cutter: StopSequenceCutter;
  private trimming: boolean;
  text = "";

  constructor(stops: readonly string[], trimLeadingSpace: boolean) {
    this.cutter = new StopSequenceCutter(stops);
    this.trimming = trimLeadingSpace;
  }

  get stopped(): boolean {
    return this.cutter.stopped;
  }

  /** Returns the text that is now certainly part of the reply. */
  push(raw: string): string {
    return this.keep(this.cutter.push(raw));
  }

  flush(): string {
    return this.keep(this.cutter.flush());
  }

  private keep(piece: string): string {
    let text = piece;
    if (this.trimming) {
      text = text.trimStart();
      this.trimming = text.length === 0;
    }
    this.text += text;
    return text;
  }
}

/**
 * One attempt's abort signal: aborted by the caller's signal, when the server sends nothing for
 * `firstMs` after the request, or nothing for `idleMs` between chunks.
 */
class IdleWatchdog {
  private readonly controller = new AbortController();
  private readonly outer: AbortSignal | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onOuterAbort = () => this.controller.abort();
  private waitedMs: number | undefined;
  private started = false;
  stalled = false;

  constructor(
    outer: AbortSignal | undefined,
    firstMs: number | undefined,
    private readonly idleMs: number | undefined,
  ) {
    this.outer = outer;
    outer?.addEventListener("abort", this.onOuterAbort, { once: true });
    this.arm(firstMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Data arrived: the idle time starts again. */
  touch(): void {
    this.started = true;
    this.arm(this.idleMs);
  }

  stallError(): Error {
    const seconds = `${((this.waitedMs ?? 0) / 1000).toLocaleString("en-US")} s`;
    return new Error(this.started ? `no data for ${seconds} in the middle of the reply (idleTimeout)` : `no answer from the server within ${seconds} (requestTimeout)`);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener("abort", this.onOuterAbort);
  }

  private arm(milliseconds: number | undefined): void {
    clearTimeout(this.timer);
    if (milliseconds === undefined) return;
    this.waitedMs = milliseconds;
    this.timer = setTimeout(() => {
      this.stalled = true;
      this.controller.abort();
    }, milliseconds);
  }
}

function stopParameter(stops: string[]): { stop?: string[] } {
  return stops.length > 0 ? { stop: stops.slice(0, maxServerStops) } : {};
}

async function* mapChunks<T>(source: AsyncIterable<T>, map: (chunk: T) => WireChunk): AsyncGenerator<WireChunk> {
  for await (const chunk of source) yield map(chunk);
}

function mapFinishReason(reason: string): FinishReason {
  if (reason === "stop" || reason === "eos" || reason === "end_turn" || reason === "stop_sequence") return "stop";
  if (reason === "length" || reason === "max_tokens") return "length";
  return "other";
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
