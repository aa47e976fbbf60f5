/**
 * Checks after edits (aider's lint and test loop): commands from the config's `checks` that run
 * after the model changes files (`afterEdit`) and when it finishes a prompt that changed files
 * (`afterTurn`). A failure goes back to the model as a result it must address. Checks ask for
 * permission like any command (`CHECK:run:COMMAND` in allow rules), since a project's config
 * may name them.
 */
import { trimMiddle } from "../../tools/exec/index.js";
import { runShell } from "./person-command.js";
import type { PermissionPolicy } from "../manager/permissions.js";

const CHECK_TIMEOUT_MS = 600_000;
const REPORT_LIMIT = 8_000;

export interface CheckOutcome {
  command: string;
  ok: boolean;
  /** One line for the person. */
  summary: string;
  /** What the model reads when it failed. */
  report: string;
}

export interface CheckRunner {
  afterEdit: readonly string[];
  afterTurn: readonly string[];
  run(command: string, signal: AbortSignal): Promise<CheckOutcome>;
}

export function checkRunner(checks: { afterEdit?: string[]; afterTurn?: string[] } | undefined, permissions: PermissionPolicy, cwd: string): CheckRunner | undefined {
  if (!checks?.afterEdit?.length && !checks?.afterTurn?.length) return undefined;
  return {
    afterEdit: checks.afterEdit ?? [],
    afterTurn: checks.afterTurn ?? [],
    async run(command, signal) {
      const verdict = await permissions.decide({ protocol: "CHECK", action: "run", permissionClass: "exec", description: `Running the check ${command}`, subject: command });
      if (!verdict.allowed) return { command, ok: true, summary: `check ${command} not run: ${verdict.error.message}`, report: "" };
      const { exitCode, ended, output, seconds } = await runShell(command, cwd, signal, CHECK_TIMEOUT_MS);
      const ok = exitCode === 0;
      return {
        command,
        ok,
        summary: `check ${command} ${ended} (${seconds})`,
        report: ok ? "" : `The check \`${command}\` ${ended} after your changes:\n${trimMiddle(output || "(no output)", REPORT_LIMIT)}`,
      };
    },
  };
}
