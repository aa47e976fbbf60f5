/**
 * Known model servers by name, and how clio decides which one to talk to.
 *
 * Settings come from, in order of precedence:
 * 1. explicit choices — flags (`--provider`, `--model`, `--base-url`, `--api`,
 *    `--context-window`, `--script`), then the environment (`CLIO_PROVIDER`, `CLIO_MODEL`,
 *    `CLIO_API`), then the config file;
 * 2. detection from the environment — `OPENAI_BASE_URL` (any OpenAI-compatible server), then
 *    `OPENAI_API_KEY`, `DEEPSEEK_API_KEY`, `OPENROUTER_API_KEY`;
 * 3. the chosen preset's defaults.
 * Config values for the model, base URL, API form and context window apply only when the
 * config names no provider or the same provider that was chosen. API keys are read from the
 * preset's environment variable (or `--api-key`, or the config) and never appear in messages.
 */
import { ApplicationError } from "../errors.js";
import { Secret } from "./secret.js";
import type { ProviderApi } from "./types.js";

export interface ProviderPreset {
  name: string;
  description: string;
  /** Empty for `custom` (the base URL must be given) and `scripted`. */
  baseURL: string;
  api: ProviderApi;
  defaultModel?: string;
  /** The environment variable the API key is read from. */
  apiKeyEnv?: string;
  apiKeyRequired: boolean;
  /** Tokens of context clio budgets for when nothing says otherwise. */
  contextWindow: number;
  /** Request settings sent unless config, environment or a flag sets them; absent ones are the server's. */
  sampling?: PresetSampling;
}

/** A preset's sampling defaults, in the request's own terms. */
export interface PresetSampling {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
}

/**
 * Small local models follow the command language more reliably when they sample close to their
 * most likely text, and local servers (llama.cpp, Ollama) would otherwise generate until the
 * context is full when a model loops: a low temperature, a nucleus cut and a reply budget that
 * leaves room for the prompt in their usual 8K window.
 */
const LOCAL_SAMPLING: PresetSampling = { temperature: 0.2, topP: 0.95, maxTokens: 4096 };

const presetList: ProviderPreset[] = [
  {
    name: "openai",
    description: "OpenAI",
    baseURL: "https://api.openai.com/v1",
    api: "chat",
    defaultModel: "gpt-4o-mini",
    apiKeyEnv: "OPENAI_API_KEY",
    apiKeyRequired: true,
    contextWindow: 128_000,
  },
  {
    name: "deepseek",
    description: "DeepSeek",
    baseURL: "https://api.deepseek.com/v1",
    api: "chat",
    defaultModel: "deepseek-chat",
    apiKeyEnv: "DEEPSEEK_API_KEY",
    apiKeyRequired: true,
    contextWindow: 64_000,
  },
  {
    name: "openrouter",
    description: "OpenRouter",
    baseURL: "https://openrouter.ai/api/v1",
    api: "chat",
    defaultModel: "openai/gpt-4o-mini",
    apiKeyEnv: "OPENROUTER_API_KEY",
    apiKeyRequired: true,
    contextWindow: 128_000,
  },
  {
    name: "ollama",
    description: "a local Ollama",
    baseURL: "http://127.0.0.1:11434/v1",
    api: "chat",
    defaultModel: "qwen2.5-coder",
    apiKeyRequired: false,
    contextWindow: 8_192,
    sampling: LOCAL_SAMPLING,
  },
  // llama-server answers with whatever model it loaded, whatever the request names.
  {
    name: "llamacpp",
    description: "a local llama.cpp server",
    baseURL: "http://127.0.0.1:8080/v1",
    api: "chat",
    defaultModel: "default",
    apiKeyRequired: false,
    contextWindow: 8_192,
    sampling: LOCAL_SAMPLING,
  },
  {
    name: "vllm",
    description: "a local vLLM server",
    baseURL: "http://127.0.0.1:8000/v1",
    api: "chat",
    apiKeyEnv: "VLLM_API_KEY",
    apiKeyRequired: false,
    contextWindow: 32_768,
    sampling: { ...LOCAL_SAMPLING, maxTokens: 8192 },
  },
  {
    name: "lmstudio",
    description: "a local LM Studio",
    baseURL: "http://127.0.0.1:1234/v1",
    api: "chat",
    apiKeyRequired: false,
    contextWindow: 8_192,
    sampling: LOCAL_SAMPLING,
  },
  // The GitHub token (GITHUB_COPILOT_TOKEN, or the one `clio login copilot` stored) is exchanged for Copilot's own; see copilot/.
  {
    name: "copilot",
    description: "GitHub Copilot",
    baseURL: "https://api.githubcopilot.com",
    api: "chat",
    defaultModel: "gpt-4o",
    apiKeyEnv: "GITHUB_COPILOT_TOKEN",
    apiKeyRequired: false,
    contextWindow: 128_000,
  },
  // Any other OpenAI-compatible server is most often a local one: the local defaults fit it.
  {
    name: "custom",
    description: "any OpenAI-compatible server",
    baseURL: "",
    api: "chat",
    apiKeyEnv: "OPENAI_API_KEY",
    apiKeyRequired: false,
    contextWindow: 8_192,
    sampling: LOCAL_SAMPLING,
  },
  { name: "scripted", description: "recorded replies played back in order", baseURL: "", api: "scripted", defaultModel: "scripted", apiKeyRequired: false, contextWindow: 128_000 },
];

export const providerPresets: ReadonlyMap<string, ProviderPreset> = new Map(presetList.map((preset) => [preset.name, preset]));

/** Provider choices from flags or a config file. */
export interface ProviderChoices {
  provider?: string;
  model?: string;
  baseURL?: string;
  api?: string;
  contextWindow?: number;
  /** The reply script for the `scripted` provider. */
  script?: string;
  /** A key given outright (`--api-key`); outranks the environment variable. */
  apiKey?: string;
}

export interface ProviderConfig extends ProviderChoices {
  /** Read the key from this environment variable instead of the preset's. */
  apiKeyEnv?: string;
}

/** Where a setting came from, e.g. `{ from: "env", detail: "CLIO_MODEL" }`. */
export interface SettingSource {
  from: "flag" | "env" | "config" | "default";
  detail: string;
}

export interface ProviderSettings {
  /** A preset name: `openai`, `ollama`, ..., `custom` or `scripted`. */
  provider: string;
  api: ProviderApi;
  /** Empty for `scripted`. */
  baseURL: string;
  model: string;
  /** Shows as `[redacted]` when printed or serialised; `apiKey.reveal()` gives the key. */
  apiKey?: Secret;
  apiKeyEnv?: string;
  contextWindow: number;
  /** The preset's sampling defaults (config, environment and flags override each). */
  sampling: PresetSampling;
  script?: string;
  sources: {
    provider: SettingSource;
    api: SettingSource;
    baseURL: SettingSource;
    model: SettingSource;
    apiKey?: SettingSource;
    contextWindow: SettingSource;
    script?: SettingSource;
  };
}

export interface ResolveInput {
  flags?: ProviderChoices;
  env?: Record<string, string | undefined>;
  config?: ProviderConfig;
}

type Candidate<T> = [T | undefined, SettingSource];

function first<T>(...candidates: Candidate<T>[]): { value: T; source: SettingSource } | undefined {
  for (const [value, source] of candidates) {
    if (value !== undefined && value !== "") return { value, source };
  }
  return undefined;
}

const flag = (detail: string): SettingSource => ({ from: "flag", detail });
const environment = (detail: string): SettingSource => ({ from: "env", detail });
const configured = (detail: string): SettingSource => ({ from: "config", detail });
const preset = (name: string): SettingSource => ({ from: "default", detail: `${name} preset` });

/** Decides the provider settings, or throws `not_configured` saying how to configure one. */
export function resolveProviderSettings({ flags = {}, env = {}, config = {} }: ResolveInput): ProviderSettings {
  const chosen = first<string>(
    [flags.provider, flag("--provider")],
    [flags.script && "scripted", flag("--script")],
    [flags.baseURL && "custom", flag("--base-url")],
    [env.CLIO_PROVIDER, environment("CLIO_PROVIDER")],
    [config.provider, configured("provider")],
    [config.script && "scripted", configured("script")],
    [config.baseURL && "custom", configured("baseURL")],
    [env.OPENAI_BASE_URL && "custom", environment("OPENAI_BASE_URL")],
    [env.OPENAI_API_KEY && "openai", environment("OPENAI_API_KEY")],
    [env.DEEPSEEK_API_KEY && "deepseek", environment("DEEPSEEK_API_KEY")],
    [env.OPENROUTER_API_KEY && "openrouter", environment("OPENROUTER_API_KEY")],
    [env.GITHUB_COPILOT_TOKEN && "copilot", environment("GITHUB_COPILOT_TOKEN")],
  );
  if (!chosen) throw new ApplicationError("not_configured", `No model provider is configured. ${howToConfigure}`, presetHint);
  const name = chosen.value.toLowerCase();
  const presetFound = providerPresets.get(name);
  if (!presetFound) {
    throw new ApplicationError(
      "not_configured",
      `Unknown provider "${chosen.value}" (from ${describeSource(chosen.source)}).`,
      `${presetHint} For any other OpenAI-compatible server pass --base-url URL --model NAME.`,
    );
  }
  const fromConfig = config.provider === undefined || config.provider.toLowerCase() === name ? config : {};
  const label = presetFound.name;
  const openaiStyle = name === "custom" || name === "openai";

  const baseURL = first<string>(
    [flags.baseURL, flag("--base-url")],
    [openaiStyle ? env.OPENAI_BASE_URL : undefined, environment("OPENAI_BASE_URL")],
    [fromConfig.baseURL, configured("baseURL")],
    [presetFound.baseURL, preset(label)],
  ) ?? { value: "", source: preset(label) };
  if (name === "custom" && !baseURL.value) {
    throw new ApplicationError(
      "not_configured",
      "The custom provider needs the address of an OpenAI-compatible server.",
      "Pass --base-url http://HOST:PORT/v1 (or export OPENAI_BASE_URL=...) and --model NAME.",
    );
  }

  const api = first<string>([flags.api, flag("--api")], [env.CLIO_API, environment("CLIO_API")], [fromConfig.api, configured("api")]) ?? {
    value: presetFound.api,
    source: preset(label),
  };
  const apiValue = name === "scripted" ? "scripted" : api.value;
  if (apiValue !== "chat" && apiValue !== "completions" && apiValue !== "scripted") {
    throw new ApplicationError(
      "not_configured",
      `Unknown API form "${api.value}" (from ${describeSource(api.source)}).`,
      "Use --api chat for chat models or --api completions for completion-only (base) models.",
    );
  }

  const model = first<string>(
    [flags.model, flag("--model")],
    [env.CLIO_MODEL, environment("CLIO_MODEL")],
    [fromConfig.model, configured("model")],
    [presetFound.defaultModel, preset(label)],
  );
  if (!model) {
    throw new ApplicationError(
      "not_configured",
      `The ${label} provider needs a model name: it has no default.`,
      `Pass --model NAME (or export CLIO_MODEL=NAME) with a model the server serves; GET ${baseURL.value || "<base-url>"}/models lists them.`,
    );
  }

  const apiKeyEnv = fromConfig.apiKeyEnv ?? presetFound.apiKeyEnv;
  const apiKey = first<string>(
    [flags.apiKey, flag("--api-key")],
    [apiKeyEnv ? env[apiKeyEnv] : undefined, environment(apiKeyEnv ?? "")],
    [fromConfig.apiKey, configured("apiKey")],
  );
  if (presetFound.apiKeyRequired && !apiKey) {
    throw new ApplicationError(
      "not_configured",
      `The ${label} provider needs an API key and none was found in ${apiKeyEnv}.`,
      `export ${apiKeyEnv}=<your key>, or choose a local server: clio --provider ollama --model qwen2.5-coder.`,
    );
  }

  const script = first<string>([flags.script, flag("--script")], [fromConfig.script, configured("script")]);
  if (name === "scripted" && !script) {
    throw new ApplicationError("not_configured", "The scripted provider needs a reply script.", 'Pass --script FILE (a JSON file { "version": 1, "replies": [...] }).');
  }

  const contextWindow = first<number>([flags.contextWindow, flag("--context-window")], [fromConfig.contextWindow, configured("contextWindow")]) ?? {
    value: presetFound.contextWindow,
    source: preset(label),
  };

  return {
    provider: name,
    api: apiValue,
    baseURL: baseURL.value,
    model: model.value,
    ...(apiKey ? { apiKey: new Secret(apiKey.value) } : {}),
    ...(apiKeyEnv ? { apiKeyEnv } : {}),
    contextWindow: contextWindow.value,
    sampling: { ...presetFound.sampling },
    ...(script ? { script: script.value } : {}),
    sources: {
      provider: chosen.source,
      api: name === "scripted" ? preset(label) : api.source,
      baseURL: baseURL.source,
      model: model.source,
      ...(apiKey ? { apiKey: apiKey.source } : {}),
      contextWindow: contextWindow.source,
      ...(script ? { script: script.source } : {}),
    },
  };
}

/** e.g. `flag --model`, `env CLIO_MODEL`, `config model`, `default (ollama preset)`. */
export function describeSource(source: SettingSource): string {
  return source.from === "default" ? `default (${source.detail})` : `${source.from} ${source.detail}`;
}

const howToConfigure = [
  "Choose one of:",
  "  export OPENAI_API_KEY=…   (or DEEPSEEK_API_KEY=…, OPENROUTER_API_KEY=…, GITHUB_COPILOT_TOKEN=…)",
  "  clio login copilot   (sign in to GitHub Copilot, then clio --provider copilot)",
  "  clio --provider ollama --model qwen2.5-coder   (a local Ollama; also llamacpp, vllm, lmstudio)",
  "  clio --base-url http://127.0.0.1:8080/v1 --model NAME   (any OpenAI-compatible server; add --api completions for a base model)",
].join("\n");

const presetHint = `Known providers: ${presetList.map((entry) => entry.name).join(", ")}.`;
