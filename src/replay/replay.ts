/**
 * Replaying a protocol script: any text in the language (a markdown file with commands is a
 * runnable script) runs command by command, in order, against the workspace.
 */
import type { Mention } from "../../grammar/ast.js";
import { parse } from "../../grammar/index.js";
import type { ProtocolManager, Submission } from "../manager/manager.js";
import type { CommandResult } from "../manager/result.js";

export interface ReplayOptions {
  stopOnError?: boolean;
  signal?: AbortSignal;
  onResult?: (result: CommandResult) => void;
}

export interface ReplayOutcome {
  results: CommandResult[];
  mentions: Mention[];
  /** Commands (and syntax errors) in the script; more than `results` when a stop cut it short. */
  total: number;
  stopped: boolean;
}

/** Every command and syntax error of a script, in source order. */
export function scriptSubmissions(text: string): { submissions: Submission[]; mentions: Mention[] } {
  const parsed = parse(text);
  const located = [
    ...parsed.commands.map((command) => ({ offset: command.span.start.offset, submission: { command } as Submission })),
    ...parsed.errors.map((syntaxError) => ({ offset: syntaxError.span.start.offset, submission: { syntaxError } as Submission })),
  ].sort((left, right) => left.offset - right.offset);
  return { submissions: located.map((entry) => entry.submission), mentions: parsed.mentions };
}

/** Commands handed to the manager ahead of the one being reported, so reads overlap. */
const LOOKAHEAD = 32;

/**
 * Runs a script's commands in order. The manager's ordering rules keep the results those of a
 * one-at-a-time run (reads overlap, state changes run alone and in order); with `stopOnError`
 * each command waits for the one before it, so nothing after a failure runs.
 */
export async function replayScript(text: string, manager: ProtocolManager, options: ReplayOptions = {}): Promise<ReplayOutcome> {
  const { submissions, mentions } = scriptSubmissions(text);
  const results: CommandResult[] = [];
  const lookahead = options.stopOnError ? 1 : LOOKAHEAD;
  const pending: Promise<CommandResult>[] = [];
  let next = 0;
  let stopped = false;
  for (;;) {
    while (pending.length < lookahead && next < submissions.length && !options.signal?.aborted) {
      pending.push(manager.submit(submissions[next++]!, options.signal));
    }
    const current = pending.shift();
    if (current === undefined) break;
    const result = await current;
    results.push(result);
    options.onResult?.(result);
    if (!result.ok && options.stopOnError) break;
  }
  stopped = results.length < submissions.length;
  return { results, mentions, total: submissions.length, stopped };
}
