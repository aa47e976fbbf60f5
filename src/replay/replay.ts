/**
 * Replaying a protocol script: any text in the language (a markdown file with commands is a
 * runnable script) runs command by command, in order, against the workspace.
 */
import type { Mention, Span } from "../../grammar/ast.js";
import { parse, type CallVocabulary } from "../../grammar/index.js";
import { callVocabularyOf } from "../call-vocabulary.js";
import type { ProtocolManager, Submission } from "../manager/manager.js";
import { ScriptStream, sourceOf } from "./script-stream.js";
import type { CommandResult } from "../manager/result.js";

/** Which commands of a script run (all when absent): given each one's text and where it stands. */
export type CommandSelector = (source: string, span: Span) => boolean;

/**
 * `--only LINE|TEXT`: a number selects the command standing on that line (a heredoc command
 * spans several), any other text the commands whose text contains it.
 */
export function selectorFor(only: string): CommandSelector {
  if (/^\d+$/.test(only)) {
    const line = Number(only);
    return (_source, span) => span.start.line <= line && line <= span.end.line;
  }
  return (source) => source.includes(only);
}

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

/**
 * Every command and syntax error of a script, in source order. With the registry's `vocabulary`
 * (callVocabularyOf) the script is read as the agent reads a reply: calls written in another
 * dialect are commands too, or errors whose hint is the clio command.
 */
export function scriptSubmissions(text: string, select?: CommandSelector, vocabulary?: CallVocabulary): { submissions: Submission[]; mentions: Mention[]; sources: string[] } {
  const parsed = parse(text, vocabulary);
  const submissions: Submission[] = [];
  const spans: Span[] = [];
  for (const command of parsed.commands) {
    submissions.push({ command });
    spans.push(command.span);
  }
  for (const syntaxError of parsed.errors) {
    submissions.push({ syntaxError });
    spans.push(syntaxError.span);
  }
  const order = submissions.map((_, index) => index);
  order.sort((left, right) => spans[left]!.start.offset - spans[right]!.start.offset);
  const located: Submission[] = [];
  const sources: string[] = [];
  for (const index of order) {
    const submission = submissions[index]!;
    const source = sourceOf(text, spans[index]!, submission);
    if (select && !select(source, spans[index]!)) continue;
    located.push(submission);
    sources.push(source);
  }
  return { submissions: located, mentions: parsed.mentions, sources };
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
  const pending: Promise<CommandResult>[] = [];
  // One signal for the whole script, as a chat turn has one for all its commands.
  const signal = options.signal ?? new AbortController().signal;
  for (;;) {
    while (pending.length < lookahead && !signal.aborted) {
      const next = script.next();
      if (next === undefined) break;
      if (keep) commands.push(next.source!);
      pending.push(manager.submit(next.submission, signal));
    }
    const current = pending.shift();
    if (current === undefined) break;
    const result = await current;
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
