/**
 * What the replay commands (a script, a model script, a recorded session) share: their options,
 * the rules they run under and how they write results.
 */
import type { ClioConfig } from "../config/schema.js";
import type { PermissionMode } from "../manager/permissions.js";
import type { CommandResult } from "../manager/result.js";
import { formatOutputPreview, formatResultLine } from "../ui/results.js";
import type { createStyle } from "../ui/style.js";

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
  /** Let the project's own config loosen permissions for this run (--trust-project). */
  trustProject?: boolean;
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

/**
 * The person's allow/deny rules and protocol settings (e.g. WEB.allowHosts) from their config
 * files, so a replay runs under the same rules as the chat.
 */
export async function configuredRules(options: { trustProject?: boolean } = {}): Promise<{
  rules: { allow: string[]; deny: string[] };
  protocolConfig: Record<string, unknown>;
  extensions: Pick<ClioConfig, "mcpServers" | "shellProtocols">;
}> {
  const { loadConfig, reportProjectTrust } = await import("../config/index.js");
  const resolved = await loadConfig({ cwd: process.cwd(), env: process.env, ...(options.trustProject ? { trustProject: true } : {}) });
  reportProjectTrust(resolved.project, resolved.files.user, (text) => void process.stderr.write(`${text}\n`));
  for (const warning of resolved.warnings) process.stderr.write(`clio: ${warning}\n`);
  const { config } = resolved;
  return { rules: config.permissions, protocolConfig: config.protocols, extensions: { mcpServers: config.mcpServers, shellProtocols: config.shellProtocols } };
}

/** `3 succeeded, 1 failed, 2 not run` from a replay's counts (see `ReplayOutcome`), coloured by outcome. */
export function summaryLine({ ran, failed, total }: { ran: number; failed: number; total: number }, style: ReturnType<typeof createStyle>): string {
  const skipped = total - ran;
  const summary = `${ran - failed} succeeded, ${failed} failed${skipped ? `, ${skipped} not run` : ""}`;
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
