/**
 * `clio config`: every value, one line each, with where it came from. Secrets are masked.
 * Plain text; the UI layer adds any styling.
 */
import type { ResolvedConfig } from "./load.js";
import { isSecretKey, maskSecret } from "./schema.js";

/** Lines `key = value   (source)`, aligned; unset keys read `(not set)`, secrets are masked. */
export function formatConfigReport(resolved: ResolvedConfig): string[] {
  const rows = resolved.entries.map((entry) => ({
    left: `${entry.key} = ${formatValue(entry.key, entry.value)}`,
    source: entry.value === undefined ? "not set" : entry.source,
  }));
  const width = Math.max(0, ...rows.map((row) => row.left.length));
  const lines = rows.map((row) => `${row.left.padEnd(width)}   (${row.source})`);
  lines.push("");
  lines.push(`user config:    ${resolved.files.user}${resolved.files.userFound ? "" : " (not found)"}`);
  lines.push(`project config: ${resolved.files.project ?? "(none found in this folder or its parents)"}`);
  return lines;
}

function formatValue(key: string, value: unknown): string {
  if (value === undefined) return "";
  if (isSecretKey(key)) return typeof value === "string" ? maskSecret(value) : "****";
  return typeof value === "string" ? value : JSON.stringify(value);
}
