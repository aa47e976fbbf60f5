/**
 * `clio replay FILE…|-`: run protocol scripts against the workspace; with `--expect` compare
 * the results with recorded ones (`--update` records them), with `--dry-run` only show the plan.
 * Options are checked here; running scripts as tests lives in replay-scripts.ts.
 */
import type { PermissionMode } from "../manager/permissions.js";
import type { CommandResult } from "../manager/result.js";
import { loadBuiltinProtocols } from "../registry.js";
import { parseGitAuthor } from "../replay/deterministic.js";
import { formatPlan, planScript } from "../replay/plan.js";
import { canAsk } from "../ui/prompt.js";
import { formatOutputPreview, formatResultLine } from "../ui/results.js";
import { createStyle } from "../ui/style.js";
import { EXIT_UNREADABLE, readInputOrReport } from "./input.js";

export interface ReplayCommandOptions {
  workspace?: string;
  permissionMode: PermissionMode;
  json?: boolean;
  stopOnError?: boolean;
  /** An expectation file to compare the results with; `true`: NAME.expected.json beside each script. */
  expect?: string | boolean;
  /** Write (or rewrite) the expectation file instead of comparing. */
  update?: boolean;
  /** With `update`: record commands refused for want of permission, or cancelled, as expected. */
  acceptRefused?: boolean;
  /** Parse, check and show the permission plan; run nothing. */
  dryRun?: boolean;
  /** Copy this fixture folder into a fresh temporary workspace and replay there. */
  freshCopy?: string;
  /** Re-run the commands a session recorded and compare them with its results. */
  fromSession?: string;
  /** With `fromSession`: the session folder (default: sessionDir from config). */
  sessionDir?: string;
  /** Play these recorded model replies through the real agent loop instead of running a script. */
  modelScript?: string;
  /** With `modelScript`: the person's prompt the replies answer. */
  prompt?: string;
  /** The commits' author as `Name <email>` (default REPLAY_GIT_AUTHOR). */
  gitAuthor?: string;
  /** Scripts run at once (default 1). */
  jobs?: number;
  /** Write a JUnit XML report here. */
  junit?: string;
  /** Show every difference, not the first three. */
  showAll?: boolean;
  /** Run only the command on this line, or those whose text contains this text. */
  only?: string;
  /** After the run, go through the differences and accept or skip each. */
  review?: boolean;
  /** Check the fuzz robustness property on this run (a fuzz reproduction): `true`, or "allow-internal-errors". */
  fuzzCheck?: string | true;
}

export async function replayCommand(files: string[], options: ReplayCommandOptions): Promise<number> {
  const write = (text: string) => void process.stdout.write(`${text}\n`);
  const fail = (message: string) => {
    process.stderr.write(`clio replay: ${message}\n`);
    return EXIT_UNREADABLE;
  };
  if (options.update && !options.expect) return fail("--update needs --expect [FILE]: the expectation file to write.");
  if (options.update && options.only !== undefined) return fail("--update records the whole script; leave out --only.");
  if (options.review && (!options.expect || options.update || options.json)) return fail("--review goes through the differences with --expect: not with --update or --json.");
  if (options.review && (files.length === 0 || files.includes("-"))) return fail("--review reads its answers from standard input, so the script must come from a file.");
  if (options.acceptRefused && !options.update) return fail("--accept-refused goes with --update: it lets refused and cancelled commands be recorded.");
  if (options.freshCopy && options.workspace) return fail("give either --workspace DIR or --fresh-copy DIR, not both.");
  if (options.sessionDir && !options.fromSession) return fail("--session-dir goes with --from-session ID: the folder that holds that session.");
  if (options.gitAuthor !== undefined && parseGitAuthor(options.gitAuthor) === undefined) {
    return fail(`--git-author ${JSON.stringify(options.gitAuthor)} is not "Name <email>"; write it like --git-author "Team CI <ci@example.com>".`);
  }
  if (options.modelScript || options.fromSession) {
    if (files.length) return fail(`give either a script FILE or ${options.modelScript ? "--model-script FILE" : "--from-session ID"}, not both.`);
    if (options.expect === true) return fail("--expect needs the expectation FILE here.");
    if (options.modelScript) {
      const { replayModelScriptCommand } = await import("./replay-model-script.js");
      return replayModelScriptCommand({ ...options, modelScript: options.modelScript });
    }
    const { replaySessionCommand } = await import("./replay-session.js");
    return replaySessionCommand(options.fromSession!, options);
  }
  if (options.fuzzCheck !== undefined) {
    if (files.length !== 1 || options.expect || options.freshCopy) return fail("--fuzz-check replays one fuzz reproduction in its sandbox's workspace (--workspace), without --expect or --fresh-copy.");
    const { replayFuzzCheckCommand } = await import("./replay-fuzz-check.js");
    return replayFuzzCheckCommand(files[0]!, { ...options, fuzzCheck: options.fuzzCheck });
  }
  if (options.dryRun) {
    if (files.length > 1) return fail("--dry-run shows the plan of one script; give one FILE.");
    const input = await readInputOrReport(files[0], "replay");
    if ("exitCode" in input) return input.exitCode;
    const plan = await planScript(input.text, { registry: await loadBuiltinProtocols(), mode: options.permissionMode, interactive: !options.json && canAsk() });
    if (options.json) for (const command of plan.commands) write(JSON.stringify(command));
    else write(formatPlan(plan));
    return plan.commands.every((command) => command.verdict === "run" || command.verdict === "ask") ? 0 : 1;
  }
  const { replayScriptsCommand } = await import("./replay-scripts.js");
  return replayScriptsCommand(files, options);
}

/**
 * The person's allow/deny rules and protocol settings (e.g. WEB.allowHosts) from their config
 * files, so a replay runs under the same rules as the chat.
 */
export async function configuredRules(): Promise<{ rules: { allow: string[]; deny: string[] }; protocolConfig: Record<string, unknown> }> {
  const { loadConfig } = await import("../config/index.js");
  const { config } = await loadConfig({ cwd: process.cwd(), env: process.env });
  return { rules: config.permissions, protocolConfig: config.protocols };
}

/** `3 succeeded, 1 failed, 2 not run`, coloured by outcome. */
export function summaryLine(results: CommandResult[], total: number, style: ReturnType<typeof createStyle>): string {
  const failed = results.filter((result) => !result.ok).length;
  const skipped = total - results.length;
  const summary = `${results.length - failed} succeeded, ${failed} failed${skipped ? `, ${skipped} not run` : ""}`;
  return failed ? style.red(summary) : style.green(summary);
}

export function formatResult(result: CommandResult, style: ReturnType<typeof createStyle>): string {
  const preview = result.ok ? formatOutputPreview(result.output, style) : "";
  return preview ? `${formatResultLine(result, style, { showPosition: true })}\n${preview}` : formatResultLine(result, style, { showPosition: true });
}

/** One line of `--json` output: the result without the fields only a terminal needs. */
export function jsonResult(result: CommandResult): Record<string, unknown> {
  const { id: _id, ...rest } = result;
  return rest;
}
