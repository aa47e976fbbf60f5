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

export async function replayScript(text: string, manager: ProtocolManager, options: ReplayOptions = {}): Promise<ReplayOutcome> {
  const { submissions, mentions } = scriptSubmissions(text);
  const results: CommandResult[] = [];
  let stopped = false;
  for (const submission of submissions) {
    if (options.signal?.aborted) {
      stopped = true;
      break;
    }
    const result = await manager.submit(submission, options.signal);
    results.push(result);
    options.onResult?.(result);
    if (!result.ok && options.stopOnError) {
      stopped = results.length < submissions.length;
      break;
    }
  }
  return { results, mentions, total: submissions.length, stopped };
}
