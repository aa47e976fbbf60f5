/** `clio parse [FILE|-] [--json] [--chunk N]` */
import { buildParseReport, parseText } from "../parse-report.js";
import { loadBuiltinProtocols } from "../registry.js";
import { formatParseReport } from "../ui/parse-report.js";
import { createStyle } from "../ui/style.js";
import { EXIT_UNREADABLE, InputError, readInput } from "./input.js";

export interface ParseCommandOptions {
  json?: boolean;
  chunk?: number;
}

export async function parseCommand(file: string | undefined, options: ParseCommandOptions): Promise<number> {
  let text: string;
  try {
    text = await readInput(file);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    process.stderr.write(`clio parse: ${error.message}\n`);
    return EXIT_UNREADABLE;
  }
  const report = buildParseReport(parseText(text, options.chunk), await loadBuiltinProtocols());
  const output = options.json ? JSON.stringify(report) : formatParseReport(report, createStyle(process.stdout));
  process.stdout.write(`${output}\n`);
  return 0;
}
