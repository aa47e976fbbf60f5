/**
 * `!command` in the chat: a shell command the person runs themselves, in the workspace, without
 * asking (it is theirs). Standard input is closed, so an interactive program ends at once
 * instead of waiting for keys that never come; the output goes to the conversation.
 */
import { runProcess, trimMiddle } from "../../tools/exec/index.js";

/** Longest a `!command` may run. */
const PERSON_COMMAND_TIMEOUT_MS = 120_000;
/** Characters of its output the model reads. */
const CONTEXT_LIMIT = 20_000;

export interface PersonCommandResult {
  exitCode: number | null;
  /** What the model is told: the command, how it ended, its output. */
  context: string;
  /** One line for the person. */
  summary: string;
}

/** A shell command's end in words (`exited with code 1`), its output (both streams) and time. */
export interface ShellOutcome {
  exitCode: number | null;
  ended: string;
  output: string;
  seconds: string;
}

/** Runs `/bin/sh -c command` in `cwd` with standard input closed. */
export async function runShell(command: string, cwd: string, signal: AbortSignal, timeoutMs: number, onOutput?: (text: string) => void): Promise<ShellOutcome> {
  const result = await runProcess({ file: "/bin/sh", args: ["-c", command], cwd, env: process.env, timeoutMs, signal, ...(onOutput ? { onOutput } : {}) });
  const ended = result.startError
    ? `could not start (${result.startError})`
    : result.timedOut
      ? `was stopped after ${timeoutMs / 1000} s`
      : result.cancelled
        ? "was cancelled"
        : result.exitCode === null
          ? `was killed by ${result.signal}`
          : `exited with code ${result.exitCode}`;
  const output = [result.stdout.text, result.stderr.text].filter(Boolean).join("\n").replace(/\n$/, "");
  return { exitCode: result.exitCode, ended, output, seconds: `${(result.durationMs / 1000).toFixed(1)} s` };
}

export async function runPersonCommand(command: string, cwd: string, signal: AbortSignal, onOutput: (text: string) => void): Promise<PersonCommandResult> {
  const { exitCode, ended, output, seconds } = await runShell(command, cwd, signal, PERSON_COMMAND_TIMEOUT_MS, onOutput);
  return {
    exitCode,
    summary: `${command} ${ended} after ${seconds}`,
    context: `I ran this shell command myself in the workspace: \`${command}\` — it ${ended}.\n${output ? trimMiddle(output, CONTEXT_LIMIT) : "(no output)"}`,
  };
}
