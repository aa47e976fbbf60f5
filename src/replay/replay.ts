/**
 * Replaying a protocol script: any text in the language (a markdown file with commands is a
 * runnable script) runs command by command, in order, against the workspace.
 */
import type { Mention } from "../../grammar/ast.js";
import { callVocabularyOf } from "../call-vocabulary.js";
import type { ProtocolManager } from "../manager/manager.js";
import type { CommandResult } from "../manager/result.js";
import { type CommandSelector, ScriptStream } from "./script-stream.js";

export { type CommandSelector, scriptSubmissions, selectorFor } from "./script-stream.js";

export interface ReplayOptions {
  stopOnError?: boolean;
  select?: CommandSelector;
  signal?: AbortSignal;
  onResult?: (result: CommandResult) => void;
  /**
   * Whether `results` (and `commands`) hold every result (default true). A caller that takes each
   * result through `onResult` may pass false: a long script's results then need not all stay in
   * memory until the end, and `outcome.results` is empty (the counts are still given).
   */
  keepResults?: boolean;
}

export interface ReplayOutcome {
  /** Every result, in order; empty when the caller passed `keepResults: false`. */
  results: CommandResult[];
  /** Commands (and syntax errors) that gave a result. */
  ran: number;
  /** Of those, results that were not ok. */
  failed: number;
  mentions: Mention[];
  /** Commands (and syntax errors) in the script; more than `results` when a stop cut it short. */
  total: number;
  /** Each command (or syntax error) as the script writes it, in order: `commands[i]` gave `results[i]`. */
  commands: string[];
  stopped: boolean;
}

/** Commands handed to the manager ahead of the one being reported, so reads overlap. */
const LOOKAHEAD = 32;

/**
 * Runs a script's commands in order. The manager's ordering rules keep the results those of a
 * one-at-a-time run (reads overlap, state changes run alone and in order); with `stopOnError`
 * each command waits for the one before it, so nothing after a failure runs.
 */
export async function replayScript(text: string, manager: ProtocolManager, options: ReplayOptions = {}): Promise<ReplayOutcome> {
  const keep = options.keepResults ?? true;
  // Read as the commands are run: see script-stream.ts.
  const script = new ScriptStream(text, options.select, callVocabularyOf(manager.registry), keep);
  const results: CommandResult[] = [];
  const commands: string[] = [];
  let ran = 0;
  let failed = 0;
  const lookahead = options.stopOnError ? 1 : LOOKAHEAD;
  // A command that ran to its end when it was handed over gives its result at once, not a promise.
  const pending: (CommandResult | Promise<CommandResult>)[] = [];
  // One signal for the whole script, as a chat turn has one for all its commands.
  const signal = options.signal ?? new AbortController().signal;
  for (;;) {
    while (pending.length < lookahead && !signal.aborted) {
      const next = script.next();
      if (next === undefined) break;
      if (keep) commands.push(next.source!);
      pending.push(manager.submitAtOnce(next.submission, signal));
    }
    const current = pending.shift();
    if (current === undefined) break;
    // A result given at once is taken as it is: awaiting it would still cost a turn of the microtask queue per command.
    const result = current instanceof Promise ? await current : current;
    ran++;
    if (!result.ok) failed++;
    if (keep) results.push(result);
    options.onResult?.(result);
    if (!result.ok && options.stopOnError) break;
  }
  // What was not run is still counted, and its mentions reported.
  script.drain();
  const { total, mentions } = script;
  return { results, ran, failed, mentions, total, stopped: ran < total, commands: keep ? commands.slice(0, ran) : [] };
}
