/** `clio replay FILE|-`: run a protocol script against the workspace. */
import type { PermissionMode } from "../manager/permissions.js";
import type { CommandResult } from "../manager/result.js";
import { replayScript } from "../replay/replay.js";
import { createRuntime } from "../runtime.js";
import { canAsk, terminalAsker } from "../ui/prompt.js";
import { formatOutputPreview, formatResultLine } from "../ui/results.js";
import { createStyle } from "../ui/style.js";
import { readInputOrReport } from "./input.js";

export interface ReplayCommandOptions {
  workspace?: string;
  permissionMode: PermissionMode;
  json?: boolean;
  stopOnError?: boolean;
}

export async function replayCommand(file: string, options: ReplayCommandOptions): Promise<number> {
  const input = await readInputOrReport(file, "replay");
  if ("exitCode" in input) return input.exitCode;
  const { text } = input;
  const style = createStyle(process.stdout);
  const interactive = !options.json && canAsk();
  const runtime = await createRuntime({
    workspace: options.workspace ?? process.cwd(),
    permissionMode: options.permissionMode,
    ...(interactive ? { asker: terminalAsker(createStyle(process.stderr)) } : {}),
  });
  const controller = new AbortController();
  const onInterrupt = () => controller.abort();
  process.once("SIGINT", onInterrupt);
  try {
    const outcome = await replayScript(text, runtime.manager, {
      stopOnError: options.stopOnError ?? false,
      signal: controller.signal,
      onResult: (result) => process.stdout.write(options.json ? `${JSON.stringify(jsonResult(result))}\n` : `${formatResult(result, style)}\n`),
    });
    if (!options.json) {
      const failed = outcome.results.filter((result) => !result.ok).length;
      const skipped = outcome.total - outcome.results.length;
      const summary = `${outcome.results.length - failed} succeeded, ${failed} failed${skipped ? `, ${skipped} not run` : ""}`;
      process.stdout.write(`${failed ? style.red(summary) : style.green(summary)}\n`);
    }
    return outcome.results.every((result) => result.ok) && !outcome.stopped ? 0 : 1;
  } finally {
    process.off("SIGINT", onInterrupt);
    await runtime.manager.dispose();
  }
}

function formatResult(result: CommandResult, style: ReturnType<typeof createStyle>): string {
  const preview = result.ok ? formatOutputPreview(result.output, style) : "";
  return preview ? `${formatResultLine(result, style)}\n${preview}` : formatResultLine(result, style);
}

/** One line of `--json` output: the result without the fields only a terminal needs. */
export function jsonResult(result: CommandResult): Record<string, unknown> {
  const { id: _id, ...rest } = result;
  return rest;
}
