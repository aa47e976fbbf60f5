import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { ClioError } from "../../grammar/errors.js";
import { describeSource, providerPresets, resolveProviderSettings, type ResolveInput } from "../../src/providers/presets.js";

const secret = "sk-secret-never-print-me-42";

function notConfigured(input: ResolveInput): ClioError {
  try {
    resolveProviderSettings(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ClioError);
    expect((error as ClioError).code).toBe("not_configured");
    return error as ClioError;
  }
  throw new Error("resolveProviderSettings did not throw");
}

describe("presets", () => {
  it.each([
    ["openai", "https://api.openai.com/v1", true],
    ["deepseek", "https://api.deepseek.com/v1", true],
    ["openrouter", "https://openrouter.ai/api/v1", true],
    ["ollama", "http://127.0.0.1:11434/v1", false],
    ["llamacpp", "http://127.0.0.1:8080/v1", false],
    ["vllm", "http://127.0.0.1:8000/v1", false],
    ["lmstudio", "http://127.0.0.1:1234/v1", false],
  ])("%s serves at %s (key required: %s)", (name, baseURL, keyRequired) => {
    const preset = providerPresets.get(name);
    expect(preset?.baseURL).toBe(baseURL);
    expect(preset?.apiKeyRequired).toBe(keyRequired);
    expect(preset?.contextWindow).toBeGreaterThan(0);
  });
});

describe("resolveProviderSettings", () => {
  it("says exactly how to configure a provider when nothing is set", () => {
    const error = notConfigured({ env: {} });

    expect(error.message).toContain("export OPENAI_API_KEY=");
    expect(error.message).toContain("clio --provider ollama --model qwen2.5-coder");
    expect(error.message).toContain("--base-url");
    expect(error.hint).toContain("ollama, llamacpp, vllm, lmstudio");
  });

  it.each([
    ["OPENAI_API_KEY", "openai", "https://api.openai.com/v1"],
    ["DEEPSEEK_API_KEY", "deepseek", "https://api.deepseek.com/v1"],
    ["OPENROUTER_API_KEY", "openrouter", "https://openrouter.ai/api/v1"],
  ])("detects %s as the %s provider", (variable, provider, baseURL) => {
    const settings = resolveProviderSettings({ env: { [variable]: secret } });

    expect(settings).toMatchObject({ provider, baseURL, apiKeyEnv: variable, api: "chat" });
    expect(settings.apiKey?.reveal()).toBe(secret);
    expect(settings.sources.provider).toEqual({ from: "env", detail: variable });
    expect(settings.sources.apiKey).toEqual({ from: "env", detail: variable });
    expect(settings.sources.model).toEqual({ from: "default", detail: `${provider} preset` });
  });

  it("takes OPENAI_BASE_URL as any OpenAI-compatible server, with the key optional", () => {
    const settings = resolveProviderSettings({ env: { OPENAI_BASE_URL: "http://127.0.0.1:9999/v1", CLIO_MODEL: "local" } });

    expect(settings).toMatchObject({ provider: "custom", baseURL: "http://127.0.0.1:9999/v1", model: "local" });
    expect(settings.apiKey).toBeUndefined();
  });

  it("ranks flags over the environment over the config over the preset", () => {
    const config = { provider: "ollama", model: "from-config", contextWindow: 4096 };
    const env = { CLIO_PROVIDER: "ollama", CLIO_MODEL: "from-env" };

    expect(resolveProviderSettings({ flags: { model: "from-flag" }, env, config }).model).toBe("from-flag");
    expect(resolveProviderSettings({ env, config }).model).toBe("from-env");
    expect(resolveProviderSettings({ env: {}, config })).toMatchObject({ model: "from-config", contextWindow: 4096 });
    expect(resolveProviderSettings({ env: {}, config: { provider: "ollama" } })).toMatchObject({ model: "qwen2.5-coder", contextWindow: 8192 });
    expect(resolveProviderSettings({ flags: { model: "from-flag" }, env, config }).sources.model).toEqual({ from: "flag", detail: "--model" });
  });

  it("ranks an explicit provider choice over one detected from an API key", () => {
    const env = { OPENAI_API_KEY: secret };

    expect(resolveProviderSettings({ flags: { provider: "ollama" }, env }).provider).toBe("ollama");
    expect(resolveProviderSettings({ env: { ...env, CLIO_PROVIDER: "llamacpp" } }).provider).toBe("llamacpp");
    expect(resolveProviderSettings({ env, config: { provider: "lmstudio", model: "qwen" } }).provider).toBe("lmstudio");
    expect(resolveProviderSettings({ flags: { provider: "ollama" }, env }).apiKey).toBeUndefined();
  });

  it("ranks --api-key over the key variable over the config's key", () => {
    const env = { OPENAI_API_KEY: "from-env-0001" };
    const config = { apiKey: "from-config-0001" };

    expect(resolveProviderSettings({ flags: { apiKey: "from-flag-0001" }, env, config }).apiKey?.reveal()).toBe("from-flag-0001");
    expect(resolveProviderSettings({ env, config }).apiKey?.reveal()).toBe("from-env-0001");
    expect(resolveProviderSettings({ flags: { provider: "openai" }, env: {}, config }).apiKey?.reveal()).toBe("from-config-0001");
    expect(resolveProviderSettings({ flags: { apiKey: "from-flag-0001" }, env, config }).sources.apiKey).toEqual({ from: "flag", detail: "--api-key" });
  });

  it("ignores config values written for another provider", () => {
    const settings = resolveProviderSettings({ flags: { provider: "ollama" }, env: {}, config: { provider: "deepseek", model: "deepseek-chat" } });

    expect(settings.model).toBe("qwen2.5-coder");
  });

  it("treats --base-url alone as a custom server that needs a model", () => {
    const error = notConfigured({ flags: { baseURL: "http://127.0.0.1:8080/v1" }, env: {} });
    expect(error.hint).toContain("--model NAME");

    const settings = resolveProviderSettings({ flags: { baseURL: "http://127.0.0.1:8080/v1", model: "m", api: "completions" }, env: {} });
    expect(settings).toMatchObject({ provider: "custom", api: "completions", model: "m" });
    expect(describeSource(settings.sources.baseURL)).toBe("flag --base-url");
  });

  it("asks for the key by its variable when a hosted provider has none", () => {
    const error = notConfigured({ flags: { provider: "deepseek" }, env: { OPENAI_API_KEY: secret } });

    expect(error.hint).toContain("export DEEPSEEK_API_KEY=");
    expect(`${error.message} ${error.hint}`).not.toContain(secret);
  });

  it("never puts an API key in a message", () => {
    const errors = [
      notConfigured({ flags: { provider: "vllm" }, env: { VLLM_API_KEY: secret } }),
      notConfigured({ flags: { provider: "nonsense" }, env: { OPENAI_API_KEY: secret } }),
      notConfigured({ flags: { api: "bogus" }, env: { OPENAI_API_KEY: secret } }),
    ];

    for (const error of errors) expect(JSON.stringify(error.toData())).not.toContain(secret);
  });

  it("keeps the key out of printed or serialised settings", () => {
    const settings = resolveProviderSettings({ env: { OPENAI_API_KEY: secret } });

    for (const shown of [JSON.stringify(settings), inspect(settings, { depth: 5 }), `${settings.apiKey}`]) {
      expect(shown).not.toContain(secret);
      expect(shown).toContain("redacted");
    }
  });

  it("names the known providers when the name is unknown", () => {
    const error = notConfigured({ env: { CLIO_PROVIDER: "anthropic" } });

    expect(error.message).toBe('Unknown provider "anthropic" (from env CLIO_PROVIDER).');
    expect(error.hint).toContain("openai, deepseek, openrouter, ollama");
  });

  it("refuses an unknown API form", () => {
    expect(notConfigured({ flags: { provider: "ollama", api: "responses" }, env: {} }).hint).toContain("--api completions");
  });

  it("chooses the scripted provider from --script", () => {
    const settings = resolveProviderSettings({ flags: { script: "replies.json" }, env: { OPENAI_API_KEY: secret } });

    expect(settings).toMatchObject({ provider: "scripted", api: "scripted", script: "replies.json" });
    expect(notConfigured({ flags: { provider: "scripted" }, env: {} }).hint).toContain("--script FILE");
  });
});
