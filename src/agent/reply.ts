/**
 * One model reply, as it streams: the text is guarded against fabricated results and scanned
 * for commands; read-only commands start the moment their `]` arrives, everything from the first
 * state-changing command on waits for the reply to end and then runs in order.
 */
import type { Dialect, Mention } from "../../grammar/ast.js";
import { CallScanner, print, type ParseEvent } from "../../grammar/index.js";
import { callVocabularyOf } from "../call-vocabulary.js";
import type { CheckResult } from "../manager/check.js";
import { describedOnly } from "../parse-report.js";
import type { ProtocolManager, Submission } from "../manager/manager.js";
import type { CommandResult } from "../manager/result.js";
import type { FinishReason, ModelProvider, ModelRequest } from "../providers/types.js";
import { FabricationGuard } from "./fabrication-guard.js";

export interface ReplyEvents {
  onText?(text: string): void;
  /** Reasoning the provider sent beside the content: for showing, never parsed. */
  onReasoning?(text: string): void;
  onRetry?(attempt: number, delayMs: number, reason: string): void;
  /** The moment the first token arrived (for the time-to-first-token spinner). */
  onFirstText?(): void;
}

export interface ReplyOutcome {
  /** The reply as kept: fabricated result text removed. */
  text: string;
  /** What the provider sent as reasoning beside the content ("" when none): recorded, not sent back. */
  reasoning: string;
  results: CommandResult[];
  mentions: Mention[];
  /** Commands written in another dialect (or a near-miss of clio's), with their clio form. */
  dialectCalls: { line: number; dialect: Dialect; equivalent: string }[];
  finishReason: FinishReason | "cancelled";
  fabricated: boolean;
  usage?: { inputTokens: number; outputTokens: number; estimated: boolean };
  /** Milliseconds from each command's `]` to its execution being submitted. */
  dispatchDelays: number[];
}

/**
 * Streams one reply from `provider` and runs its commands through `manager`.
 * Provider errors propagate (the caller decides about retries); commands already started finish.
 */
export async function streamReply(provider: ModelProvider, request: ModelRequest, manager: ProtocolManager, signal: AbortSignal, events: ReplyEvents = {}): Promise<ReplyOutcome> {
  const guard = new FabricationGuard();
  const scanner = new CallScanner(callVocabularyOf(manager.registry));
  const running: Promise<CommandResult>[] = [];
  const held: Submission[] = [];
  const mentions: Mention[] = [];
  const dialectCalls: ReplyOutcome["dialectCalls"] = [];
  const dispatchDelays: number[] = [];
  let holding = false;
  let text = "";
  let reasoning = "";
  let finishReason: ReplyOutcome["finishReason"] = "other";
  let usage: ReplyOutcome["usage"];
  let sawText = false;

  const dispatch = (submission: Submission) => {
    const arrived = performance.now();
    running.push(manager.submit(submission, signal));
    dispatchDelays.push(performance.now() - arrived);
  };
  const handle = (parsed: ParseEvent[]) => {
    for (const event of parsed) {
      if (event.type === "mention") {
        mentions.push(event.mention);
        continue;
      }
      let submission: Submission;
      if (event.type === "command") {
        const { dialect } = event.command;
        if (dialect !== undefined && dialect !== "clio") dialectCalls.push({ line: event.command.span.start.line, dialect, equivalent: print(event.command) });
        // Checked once: the result decides whether to hold it, and the manager reuses it.
        const checked = holding ? undefined : manager.check(event.command);
        submission = checked ? { command: event.command, checked } : { command: event.command };
        if (checked) holding = !mayOverlap(manager, checked);
      } else submission = { syntaxError: event.error };
      if (holding) held.push(submission);
      else dispatch(submission);
    }
  };
  const accept = (safe: string) => {
    if (!safe) return;
    text += safe;
    events.onText?.(safe);
    handle(scanner.push(safe));
  };

  try {
    for await (const event of provider.stream({ ...request, signal })) {
      if (event.type === "text-delta") {
        if (!sawText && event.text) {
          sawText = true;
          events.onFirstText?.();
        }
        accept(guard.push(event.text));
        if (guard.cut) break;
      } else if (event.type === "reasoning-delta") {
        reasoning += event.text;
        events.onReasoning?.(event.text);
      } else if (event.type === "usage") usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens, estimated: event.estimated };
      else if (event.type === "retry") events.onRetry?.(event.attempt, event.delayMs, event.reason);
      else if (event.type === "finish") finishReason = event.reason;
    }
  } catch (error) {
    // Whatever started keeps its result; nothing held back runs on a reply that broke off.
    await Promise.allSettled(running);
    throw error;
  }
  if (guard.cut) finishReason = "stop";
  else accept(guard.flush());
  handle(scanner.end());
  if (signal.aborted) {
    finishReason = "cancelled";
  } else {
    for (const submission of held) dispatch(unlessDescribed(manager, submission, text));
  }
  const results = await Promise.all(running);
  const outcome: ReplyOutcome = { text, reasoning, results, mentions, dialectCalls, finishReason, fabricated: guard.cut, dispatchDelays };
  if (usage) outcome.usage = usage;
  return outcome;
}

/**
 * True for a command that checks and may overlap others (it only reads and is not exclusive);
 * one whose class cannot be told is held like a write.
 */
function mayOverlap(manager: ProtocolManager, checked: CheckResult): boolean {
  if (!checked.ok) return true;
  try {
    return !manager.runsAlone(checked.invocation);
  } catch {
    return false;
  }
}

/**
 * A held command that changes things and stands in a question or conditional sentence of the
 * finished reply does not run: it becomes a failure saying how to write it to run.
 */
function unlessDescribed(manager: ProtocolManager, submission: Submission, text: string): Submission {
  if (!("command" in submission)) return submission;
  const checked = submission.checked ?? manager.check(submission.command);
  if (!checked.ok) return { command: submission.command, checked };
  const refused = describedOnly(text, submission.command, checked.invocation);
  if (!refused) return { command: submission.command, checked };
  return { command: submission.command, checked: { ok: false, protocol: checked.invocation.protocol, action: checked.invocation.action, error: refused } };
}
