/** `clio parse [FILE|-] [--json] [--chunk N]` */
import { buildParseReport, parseText } from "../parse-report.js";
import { loadBuiltinProtocols } from "../registry.js";
import { formatParseReport } from "../ui/parse-report.js";
import { createStyle } from "../ui/style.js";
import { readInputOrReport } from "./input.js";

export interface ParseCommandOptions {
  json?: boolean;
  chunk?: number;
}

export async function parseCommand(file: string | undefined, options: ParseCommandOptions): Promise<number> {
  const input = await readInputOrReport(file, "parse");
  if ("exitCode" in input) return input.exitCode;
  const { text } = input;
  const registry = await loadBuiltinProtocols();
  const report = buildParseReport(parseText(text, options.chunk, registry), registry, text);
  const output = options.json ? JSON.stringify(report) : formatParseReport(report, createStyle(process.stdout));
  process.stdout.write(`${output}\n`);
  return 0;
}
