/**
 * Model providers: one small interface (types.ts) over OpenAI-compatible servers, chat or
 * completion-only, and a scripted provider that plays recorded replies.
 *
 *     const settings = resolveProviderSettings({ flags, env: process.env, config });
 *     const provider = await createProvider(settings);
 *     for await (const event of provider.stream({ messages, stop, signal })) ...
 */
import { OpenAICompatibleProvider } from "./openai-compatible.js";
import type { ProviderSettings } from "./presets.js";
import type { RetryPolicy, Sleep } from "./retry.js";
import { loadScript, ScriptedProvider } from "./scripted.js";
import type { ModelProvider } from "./types.js";

export interface CreateProviderOptions {
  retry?: Partial<RetryPolicy>;
  /** Give up on an attempt the server has not answered for this long (retried). */
  timeoutMs?: number;
  /** Treat a stream silent for this long between chunks as cut (retried). */
  idleTimeoutMs?: number;
  headers?: Record<string, string>;
  /** Characters per chunk for the scripted provider. */
  chunkSize?: number;
  /** Seams for tests. */
  sleep?: Sleep;
  random?: () => number;
  now?: () => number;
  fetch?: typeof globalThis.fetch;
  readFile?: (path: string) => Promise<string>;
}

/** Builds the provider the settings describe; a scripted one reads its script file now. */
export async function createProvider(settings: ProviderSettings, options: CreateProviderOptions = {}): Promise<ModelProvider> {
  if (settings.api === "scripted") {
    const script = settings.script ?? "";
    const replies = await loadScript(script, options.readFile);
    return new ScriptedProvider({ replies, chunkSize: options.chunkSize, origin: `The reply script ${script}` });
  }
  return new OpenAICompatibleProvider({
    name: settings.provider,
    api: settings.api,
    baseURL: settings.baseURL,
    model: settings.model,
    apiKey: settings.apiKey?.reveal(),
    apiKeyEnv: settings.apiKeyEnv,
    headers: options.headers,
    retry: options.retry,
    timeoutMs: options.timeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
    sleep: options.sleep,
    random: options.random,
    now: options.now,
    fetch: options.fetch,
  });
}

export type { ChatMessage, FinishReason, ModelEvent, ModelProvider, ModelRequest, ProviderApi } from "./types.js";
export { OpenAICompatibleProvider, type OpenAICompatibleOptions } from "./openai-compatible.js";
export { ScriptedProvider, loadScript, parseTextScript, replySeparator, type ScriptedProviderOptions } from "./scripted.js";
export {
  describeSource,
  providerPresets,
  resolveProviderSettings,
  type ProviderChoices,
  type ProviderConfig,
  type ProviderPreset,
  type ProviderSettings,
  type ResolveInput,
  type SettingSource,
} from "./presets.js";
export { StreamCutError } from "./failures.js";
export { Secret } from "./secret.js";
export { defaultRetryPolicy, type RetryPolicy, type Sleep } from "./retry.js";
export { StopSequenceCutter, cutAtStop } from "./stop.js";
export { approximateTokens, estimateMessageTokens, estimateTokens, preloadTokenizer } from "./tokens.js";
export { renderTranscript, transcriptStops } from "./transcript.js";
