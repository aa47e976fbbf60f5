/** The readable form of `clio parse`. */
import type { ChalkInstance } from "chalk";
import { describeMentionContext } from "../../grammar/index.js";
import type { ParseReport } from "../parse-report.js";

export function formatParseReport(report: ParseReport, style: ChalkInstance): string {
  const lines: string[] = [];
  lines.push(style.bold(`Commands (${report.commands.length})`));
  for (const command of report.commands) {
    const written = command.equivalent ? style.dim(`  written as ${command.dialect}; in clio: ${command.equivalent}`) : "";
    lines.push(`  ${style.dim(`${command.line}:${command.column}`)}  ${style.cyan(`${command.protocol}.${command.action}`)}${written}`);
    for (const [key, value] of Object.entries(command.args)) {
      if (key === "action") continue;
      lines.push(`      ${key} = ${preview(value)}`);
    }
  }
  lines.push(style.bold(`Mentions (${report.mentions.length})`) + style.dim("  inert: inside code, HTML, quotes or reasoning, never run"));
  for (const mention of report.mentions) {
    const where = describeMentionContext(mention.context);
    lines.push(`  ${style.dim(`${mention.line}:${mention.column}`)}  ${preview(mention.text)} ${style.dim(where)}`);
    if (mention.hint) lines.push(`      ${style.dim("as a command:")} ${mention.hint}`);
  }
  lines.push(style.bold(`Errors (${report.errors.length})`));
  for (const error of report.errors) {
    lines.push(`  ${style.dim(`${error.line}:${error.column}`)}  ${style.red(error.code)}  ${error.message}`);
    if (error.hint) lines.push(`      ${style.dim("fix:")} ${error.hint}`);
  }
  return lines.join("\n");
}

function preview(value: string): string {
  const oneLine = JSON.stringify(value.length > 200 ? `${value.slice(0, 197)}...` : value);
  return oneLine;
}
