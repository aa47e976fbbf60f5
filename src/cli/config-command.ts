/** `clio config`: the settings in force and where each came from (secrets masked). */
import { ClioError } from "../../grammar/errors.js";
import { formatConfigReport } from "../config/index.js";
import { describeSource } from "../providers/index.js";
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
