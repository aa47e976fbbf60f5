/**
 * One model reply, as it streams: the text is guarded against fabricated results and scanned
 * for commands, which go to the manager as they arrive; when each may start is the scheduler's
 * decision (read-only commands at once, everything from the first state-changing command on
 * once the reply has ended, in order).
 */
import type { Dialect, Mention } from "../../grammar/ast.js";
import { CallScanner, print, type ParseEvent } from "../../grammar/index.js";
import { callVocabularyOf } from "../call-vocabulary.js";
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
  const commands = manager.replyCommands(signal);
  const mentions: Mention[] = [];
  const dialectCalls: ReplyOutcome["dialectCalls"] = [];
  let text = "";
  let reasoning = "";
  let finishReason: ReplyOutcome["finishReason"] = "other";
  let usage: ReplyOutcome["usage"];
  let sawText = false;

  const handle = (parsed: ParseEvent[]) => {
    for (const event of parsed) {
      if (event.type === "mention") {
        mentions.push(event.mention);
        continue;
      }
      if (event.type === "command") {
        const { dialect } = event.command;
        if (dialect !== undefined && dialect !== "clio") dialectCalls.push({ line: event.command.span.start.line, dialect, equivalent: print(event.command) });
        commands.add({ command: event.command });
      } else commands.add({ syntaxError: event.error });
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
    await commands.settled();
    throw error;
  }
  if (guard.cut) finishReason = "stop";
  else accept(guard.flush());
  handle(scanner.end());
  if (signal.aborted) {
    finishReason = "cancelled";
  } else {
    commands.release((submission) => unlessDescribed(manager, submission, text));
  }
  const results = await commands.results();
  const outcome: ReplyOutcome = { text, reasoning, results, mentions, dialectCalls, finishReason, fabricated: guard.cut, dispatchDelays: commands.dispatchDelays };
  if (usage) outcome.usage = usage;
  return outcome;
}

/**
 * A held command that changes things and stands in a sentence of the finished reply that only describes it (a question, a
 * conditional, a negation, words to the person, an example) does not run: it becomes a failure saying how to write it to run.
 */
function unlessDescribed(manager: ProtocolManager, submission: Submission, text: string): Submission {
  if (!("command" in submission)) return submission;
  const checked = submission.checked ?? manager.check(submission.command);
  if (!checked.ok) return { command: submission.command, checked };
  const refused = describedOnly(text, submission.command, checked.invocation);
  if (!refused) return { command: submission.command, checked };
  return { command: submission.command, checked: { ok: false, protocol: checked.invocation.protocol, action: checked.invocation.action, error: refused } };
}
