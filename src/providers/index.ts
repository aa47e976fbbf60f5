/**
 * Model providers: one small interface (types.ts) over OpenAI-compatible servers, chat or
 * completion-only, and a scripted provider that plays recorded replies.
 *
 *     const settings = resolveProviderSettings({ flags, env: process.env, config });
 *     const provider = await createProvider(settings);
 *     for await (const event of provider.stream({ messages, stop, signal })) ...
 */
import { ApplicationError } from "../errors.js";
import { version } from "../version.js";
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
  /** Where the Copilot provider finds its stored token and its exchange address (CLIO_COPILOT_TOKEN_URL); default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** Builds the provider the settings describe; a scripted one reads its script file now. */
export async function createProvider(settings: ProviderSettings, options: CreateProviderOptions = {}): Promise<ModelProvider> {
  if (settings.api === "scripted") {
    const script = settings.script ?? "";
    const replies = await loadScript(script, options.readFile);
    return new ScriptedProvider({ replies, chunkSize: options.chunkSize, origin: `The reply script ${script}` });
  }
  if (settings.provider === "copilot") return createCopilotProvider(settings, options);
  return new OpenAICompatibleProvider({
    name: settings.provider,
    api: settings.api,
    baseURL: settings.baseURL,
    apiKey: settings.apiKey?.reveal(),
    apiKeyEnv: settings.apiKeyEnv,
    ...connectionOptions(settings, options),
  });
}

/** What every OpenAI-compatible connection takes from the options: the model, headers, retries, timeouts and seams. */
function connectionOptions(settings: ProviderSettings, options: CreateProviderOptions) {
  return {
    model: settings.model,
    headers: options.headers,
    retry: options.retry,
    timeoutMs: options.timeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
    sleep: options.sleep,
    random: options.random,
    now: options.now,
    fetch: options.fetch,
  };
}

/** Copilot: the GitHub token from the settings (GITHUB_COPILOT_TOKEN) or the file `clio login copilot` wrote. */
async function createCopilotProvider(settings: ProviderSettings, options: CreateProviderOptions): Promise<ModelProvider> {
  const { CopilotProvider } = await import("./copilot/provider.js");
  const { CopilotTokenSource } = await import("./copilot/token.js");
  const { copilotTokenFile, readCopilotToken } = await import("./copilot/login.js");
  const env = options.env ?? process.env;
  const githubToken = settings.apiKey?.reveal() ?? (await readCopilotToken(copilotTokenFile(env)));
  if (githubToken === undefined) {
    throw new ApplicationError(
      "not_configured",
      "The copilot provider needs a GitHub token, and none was found in GITHUB_COPILOT_TOKEN or from a sign-in.",
      "Sign in with `clio login copilot`, or export GITHUB_COPILOT_TOKEN=<a GitHub token of an account with Copilot>.",
    );
  }
  const tokens = new CopilotTokenSource({
    githubToken,
    version,
    ...(env.CLIO_COPILOT_TOKEN_URL ? { exchangeUrl: env.CLIO_COPILOT_TOKEN_URL } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  return new CopilotProvider({ tokens, version, ...connectionOptions(settings, options) });
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
