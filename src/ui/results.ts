/** How command results and parse reports look in the terminal. */
import type { ChalkInstance } from "chalk";
import type { CommandResult } from "../manager/result.js";

/** `✓ Read src/main.c (247 lines)  12 ms` or `✗ FILE_OP.read: not_found — …`. */
export function formatResultLine(result: CommandResult, style: ChalkInstance, options: { showPosition?: boolean } = {}): string {
  const where = options.showPosition && result.line !== undefined ? style.dim(`${result.line}:${result.column} `) : "";
  const duration = style.dim(`${formatDuration(result.durationMs)}`);
  if (result.ok) {
    const cut = result.truncated ? style.yellow(" (output cut)") : "";
    return `${where}${style.green("✓")} ${result.description}${cut}  ${duration}`;
  }
  const code = result.error?.code ?? "internal_error";
  const label = result.action ? `${result.protocol}.${result.action}` : result.protocol;
  // The model reads the whole message; the person gets its first line.
  const [firstLine = "", ...more] = (result.error?.message ?? "").split("\n");
  const rest = more.filter((line) => line.trim()).length;
  const lines = [`${where}${style.red("✗")} ${label} ${style.red(code)}: ${firstLine}${rest ? style.dim(` (+${rest} lines for the model)`) : ""}`];
  if (result.error?.hint) lines.push(`  ${style.dim("fix:")} ${result.error.hint}`);
  return lines.join("\n");
}

/** The output block under a result, indented, limited to a few lines for the person. */
export function formatOutputPreview(output: string, style: ChalkInstance, maxLines = 12): string {
  if (!output) return "";
  const lines = output.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, maxLines).map((line) => `  ${style.dim("│")} ${line}`);
  if (lines.length > maxLines) shown.push(`  ${style.dim(`│ … ${lines.length - maxLines} more lines`)}`);
  return shown.join("\n");
}

export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  return `${(milliseconds / 1000).toFixed(1)} s`;
}
