/**
 * `clio replay FILE|-`: run a protocol script against the workspace; with `--expect` compare
 * the results with recorded ones (`--update` records them), with `--dry-run` only show the plan.
 */
import path from "node:path";
import { loadBuiltinProtocols } from "../registry.js";
import type { ExpectationFile } from "../replay/expectations.js";
import { formatPlan, planScript } from "../replay/plan.js";
import { runScript } from "../replay/run-script.js";
import { canAsk, terminalAsker } from "../ui/prompt.js";
import { createStyle } from "../ui/style.js";
import { readExpectations, settleExpectations } from "./expect-option.js";
import { EXIT_UNREADABLE, readInputOrReport } from "./input.js";
import { configuredRules, formatResult, jsonResult, type ReplayCommandOptions, summaryLine } from "./replay-support.js";

type Output = (text: string) => void;

export async function replayCommand(file: string | undefined, options: ReplayCommandOptions): Promise<number> {
  const write: Output = (text) => void process.stdout.write(`${text}\n`);
  const fail = (message: string) => {
    process.stderr.write(`clio replay: ${message}\n`);
    return EXIT_UNREADABLE;
  };
  if (options.update && !options.expect) return fail("--update needs --expect FILE: the expectation file to write.");
  if (options.freshCopy && options.workspace) return fail("give either --workspace DIR or --fresh-copy DIR, not both.");
  if (options.sessionDir && !options.fromSession) return fail("--session-dir goes with --from-session ID: the folder that holds that session.");
  if (options.modelScript) {
    if (file !== undefined) return fail("give either a script FILE or --model-script FILE, not both.");
    const { replayModelScriptCommand } = await import("./replay-model-script.js");
    return replayModelScriptCommand({ ...options, modelScript: options.modelScript });
  }
  if (options.fromSession) {
    if (file !== undefined) return fail("give either a script FILE or --from-session ID, not both.");
    const { replaySessionCommand } = await import("./replay-session.js");
    return replaySessionCommand(options.fromSession, options);
  }
  const input = await readInputOrReport(file, "replay");
  if ("exitCode" in input) return input.exitCode;
  const { text } = input;
  const scriptName = file === undefined || file === "-" ? "-" : path.basename(file);

  if (options.dryRun) {
    const plan = await planScript(text, { registry: await loadBuiltinProtocols(), mode: options.permissionMode, interactive: !options.json && canAsk() });
    if (options.json) for (const command of plan.commands) write(JSON.stringify(command));
    else write(formatPlan(plan));
    return plan.commands.every((command) => command.verdict === "run" || command.verdict === "ask") ? 0 : 1;
  }

  let expectations: ExpectationFile | undefined;
  if (options.expect) {
    const read = await readExpectations(options.expect, options.update ?? false);
    if ("error" in read) return fail(read.error);
    expectations = read.expectations;
  }

  const style = createStyle(process.stdout);
  const interactive = !options.json && canAsk();
  const controller = new AbortController();
  const onInterrupt = () => controller.abort();
  process.once("SIGINT", onInterrupt);
  let run;
  try {
    run = await runScript(text, {
      permissionMode: options.permissionMode,
      ...(await configuredRules()),
      ...(options.freshCopy ? { freshCopy: options.freshCopy } : options.workspace ? { workspace: options.workspace } : {}),
      ...(interactive ? { asker: terminalAsker(createStyle(process.stderr)) } : {}),
      stopOnError: options.stopOnError ?? false,
      signal: controller.signal,
      onResult: (result) => write(options.json ? JSON.stringify(jsonResult(result)) : formatResult(result, style)),
    });
  } catch (error) {
    return fail((error as Error).message);
  } finally {
    process.off("SIGINT", onInterrupt);
  }
  const { outcome } = run;
  if (!options.json) write(summaryLine(outcome.results, outcome.total, style));

  if (options.expect) {
    const settled = { file: options.expect, update: options.update ?? false, scriptName, script: file ?? "-", expected: run.expected, expectations };
    return (await settleExpectations(settled, write)) ? 0 : 1;
  }
  return outcome.results.every((result) => result.ok) && !outcome.stopped ? 0 : 1;
}
