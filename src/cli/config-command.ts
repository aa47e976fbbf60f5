/** `clio config`: the settings in force and where each came from (secrets masked). */
import { ClioError } from "../../grammar/errors.js";
import { formatConfigReport } from "../config/index.js";
import { describeSource } from "../providers/index.js";
import type { ResolvedConfig } from "../config/index.js";
import type { ProviderSettings } from "../providers/index.js";
import { loadChatConfig, providerSettingsFrom, type ChatFlags } from "./chat-setup.js";

/** @param flags chat flags given to `clio config`: the values they set are shown as from the flags. */
export async function configCommand(flags: ChatFlags = {}): Promise<number> {
  try {
    const resolved = await loadChatConfig(flags, process.env, process.cwd());
    const lines = formatConfigReport(resolved);
    lines.push("", "Model provider:");
    try {
      const settings = providerSettingsFrom(resolved, flags, process.env);
      const rows: [string, string, string][] = [
        ["provider", settings.provider, describeSource(settings.sources.provider)],
        ["api", settings.api, describeSource(settings.sources.api)],
        ["baseURL", settings.baseURL || "-", describeSource(settings.sources.baseURL)],
        ["model", settings.model, describeSource(settings.sources.model)],
        ["apiKey", settings.apiKey ? "set" : "not set", settings.sources.apiKey ? describeSource(settings.sources.apiKey) : "-"],
        ["contextWindow", String(settings.contextWindow), describeSource(settings.sources.contextWindow)],
        ...samplingRows(resolved, settings),
      ];
      for (const [key, value, source] of rows) lines.push(`  ${`${key} = ${value}`.padEnd(48)}(${source})`);
    } catch (error) {
      if (!ClioError.isInstance(error)) throw error;
      lines.push(`  ${error.message}`);
    }
    process.stdout.write(`${lines.join("\n")}\n`);
    return 0;
  } catch (error) {
    if (!ClioError.isInstance(error)) throw error;
    process.stderr.write(`clio config: ${error.message}${error.hint ? `\n${error.hint}` : ""}\n`);
    return 2;
  }
}

/** temperature, topP and maxTokens as requests carry them: a configured value, or the preset's default. */
function samplingRows(resolved: ResolvedConfig, settings: ProviderSettings): [string, string, string][] {
  return (["temperature", "topP", "maxTokens"] as const).map((key) => {
    const configured = resolved.config[key];
    if (configured !== undefined) return [key, String(configured), resolved.sources[key]];
    const preset = settings.sampling[key];
    return [key, preset === undefined ? "the server's" : String(preset), `default (${settings.provider} preset)`];
  });
}
