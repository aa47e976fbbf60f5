/**
 * `clio -p "prompt"`: a step in a script. No questions are asked; output is for programs:
 * text (the final answer alone on stdout; the transcript on stderr with --verbose), json (one
 * object at the end) or stream-json (an init event with the session id, then one event per
 * line). Prompts come from the command line, or as JSON lines with --input-format stream-json.
 */
import type { AgentEvent, PromptOutcome } from "../agent/agent.js";
import type { ManagerEvent } from "../manager/manager.js";
import type { CommandResult } from "../manager/result.js";
import { formatResultLine } from "../ui/results.js";
import { createStyle } from "../ui/style.js";
import { setUpChat, type ChatFlags } from "./chat-setup.js";
import { jsonResult } from "./replay-support.js";

export type OutputFormat = "text" | "json" | "stream-json";
export type InputFormat = "text" | "stream-json";

/** Exit statuses of `clio -p`, documented in docs/chat.md. */
export const PRINT_EXIT = {
  /** The model finished, and every command it needed ran. */
  done: 0,
  /** The turn failed: the model could not be reached, or an error ended it. */
  failed: 1,
  /** A usage or configuration error: nothing was tried. */
  usage: 2,
  /** The model needed a command that was refused, or a limit (turns, repeats) stopped the turn. */
  stopped: 3,
  /** Interrupted (SIGINT). */
  cancelled: 130,
} as const;

export interface PrintOptions {
  format: OutputFormat;
  /** With text: the transcript (the model's text, command results) goes to stderr. */
  verbose?: boolean;
}

/** A prompt read from the input, or why a line of it is not one. */
export type PromptInput = { prompt: string } | { error: string };

/** The exit status one prompt's outcome earns. */
export function exitStatusOf(outcome: PromptOutcome, commands: readonly CommandResult[]): number {
  if (outcome.reason === "cancelled") return PRINT_EXIT.cancelled;
  if (outcome.reason === "error") return PRINT_EXIT.failed;
  if (outcome.reason !== "done") return PRINT_EXIT.stopped;
  return commands.some((result) => result.error?.code === "permission_denied") ? PRINT_EXIT.stopped : PRINT_EXIT.done;
}

const SEVERITY: number[] = [PRINT_EXIT.cancelled, PRINT_EXIT.usage, PRINT_EXIT.failed, PRINT_EXIT.stopped, PRINT_EXIT.done];

export async function runPrintMode(prompts: AsyncIterable<PromptInput>, flags: ChatFlags, options: PrintOptions): Promise<number> {
  const { format } = options;
  const verbose = format === "text" && options.verbose === true;
  const errorStyle = createStyle(process.stderr);
  const stderr = (text: string) => void process.stderr.write(text);
  let commands: CommandResult[] = [];
  const emit = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);
  const onAgentEvent = (event: AgentEvent) => {
    if (format === "stream-json") return emit(streamEvent(event));
    if (verbose && event.type === "text-delta") stderr(event.text);
    if (verbose && event.type === "reply-finished" && !event.outcome.text.endsWith("\n")) stderr("\n");
    if (verbose && event.type === "check-finished") stderr(`${event.ok ? "✓" : "✗"} ${event.summary}\n`);
    if (format !== "text") return;
    if (event.type === "notice") stderr(`clio: ${event.message}\n`);
    if (event.type === "retry") stderr(`clio: ${event.reason}; waiting ${(event.delayMs / 1000).toFixed(1)} s before trying again (retry ${event.attempt}).\n`);
  };
  const onManagerEvent = (event: ManagerEvent) => {
    if (event.type === "command-finished") commands.push(event.result);
    if (verbose && event.type === "command-finished") stderr(`${formatResultLine(event.result, errorStyle)}\n`);
    if (format !== "stream-json") return;
    if (event.type === "command-finished") emit({ type: event.type, result: jsonResult(event.result) });
    else if (event.type === "files-changing")
      emit({ type: event.type, id: event.id, protocol: event.protocol, action: event.action, files: event.changes.map((change) => change.path) });
    else emit({ ...event });
  };
  const setup = await setUpChat(flags, { onAgentEvent, onManagerEvent, mode: "print" });
  const { conversation, runtime } = setup;
  const controller = new AbortController();
  const onInterrupt = () => controller.abort();
  process.once("SIGINT", onInterrupt);
  let status: number = PRINT_EXIT.done;
  const worst = (next: number) => (SEVERITY.indexOf(next) < SEVERITY.indexOf(status) ? next : status);
  try {
    await conversation.start();
    if (format === "stream-json") {
      emit({
        type: "init",
        session: conversation.session?.id,
        provider: conversation.provider.name,
        model: conversation.provider.model,
        api: conversation.provider.api,
        workspace: runtime.environment.workspace.root,
        permissionMode: runtime.permissions.mode,
        protocols: runtime.registry.names(),
      });
    }
    for await (const input of prompts) {
      if ("error" in input) {
        if (format === "stream-json") emit({ type: "error", message: input.error });
        stderr(`clio: ${input.error}\n`);
        status = worst(PRINT_EXIT.usage);
        break;
      }
      commands = [];
      const outcome = await conversation.prompt(input.prompt, controller.signal);
      const exitCode = exitStatusOf(outcome, commands);
      status = worst(exitCode);
      const summary = {
        type: "result",
        reason: outcome.reason,
        ok: exitCode === PRINT_EXIT.done,
        exitCode,
        turns: outcome.turns,
        result: outcome.finalText,
        ...(outcome.message ? { message: outcome.message } : {}),
        ...(exitCode === PRINT_EXIT.stopped ? { refused: commands.filter((result) => result.error?.code === "permission_denied").map(jsonResult) } : {}),
        session: conversation.session?.id,
        usage: conversation.usage,
      };
      if (format === "json") process.stdout.write(`${JSON.stringify({ ...summary, commands: commands.map(jsonResult) })}\n`);
      if (format === "stream-json") emit(summary);
      if (format === "text") writeTextOutcome(outcome, commands, exitCode);
      if (controller.signal.aborted) break;
    }
    return status;
  } finally {
    process.off("SIGINT", onInterrupt);
    await conversation.close();
    await runtime.manager.dispose();
  }
}

/** Text mode: the answer on stdout; on stderr why the turn did not simply finish. */
function writeTextOutcome(outcome: PromptOutcome, commands: readonly CommandResult[], exitCode: number): void {
  if (outcome.reason !== "error" && outcome.reason !== "cancelled" && outcome.finalText.trim()) {
    process.stdout.write(outcome.finalText.endsWith("\n") ? outcome.finalText : `${outcome.finalText}\n`);
  }
  if (outcome.message && outcome.reason !== "done") process.stderr.write(`clio: ${outcome.message}\n`);
  if (exitCode !== PRINT_EXIT.stopped) return;
  for (const result of commands.filter((each) => each.error?.code === "permission_denied")) {
    process.stderr.write(`clio: refused ${result.description}: ${result.error?.message}${result.error?.hint ? `\n  ${result.error.hint}` : ""}\n`);
  }
}

function streamEvent(event: AgentEvent): Record<string, unknown> {
  if (event.type === "reply-finished") {
    const { outcome } = event;
    return { type: event.type, turn: event.turn, text: outcome.text, finishReason: outcome.finishReason, fabricated: outcome.fabricated, commands: outcome.results.length };
  }
  return { ...event };
}
