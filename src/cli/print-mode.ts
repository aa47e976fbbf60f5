/**
 * `clio -p "prompt"`: one prompt, no questions asked, output for scripts:
 * text (the reply on stdout, progress on stderr), json (one object at the end) or
 * stream-json (one event per line). Exit 0 when the model finished, 1 when the turn failed.
 */
import type { AgentEvent } from "../agent/agent.js";
import type { ManagerEvent } from "../manager/manager.js";
import type { CommandResult } from "../manager/result.js";
import { formatResultLine } from "../ui/results.js";
import { createStyle } from "../ui/style.js";
import { setUpChat, type ChatFlags } from "./chat-setup.js";
import { jsonResult } from "./replay-support.js";

export type OutputFormat = "text" | "json" | "stream-json";

export async function runPrintMode(prompt: string, flags: ChatFlags, format: OutputFormat): Promise<number> {
  const errorStyle = createStyle(process.stderr);
  const commands: CommandResult[] = [];
  const emit = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);
  const onAgentEvent = (event: AgentEvent) => {
    if (format === "text" && event.type === "text-delta") process.stdout.write(event.text);
    if (format === "text" && event.type === "reply-finished" && !event.outcome.text.endsWith("\n")) process.stdout.write("\n");
    if (format === "text" && (event.type === "notice" || event.type === "retry")) process.stderr.write(`${"message" in event ? event.message : event.reason}\n`);
    if (format === "stream-json") emit(streamEvent(event));
  };
  const onManagerEvent = (event: ManagerEvent) => {
    if (event.type === "command-finished") commands.push(event.result);
    if (format === "text" && event.type === "command-finished") process.stderr.write(`${formatResultLine(event.result, errorStyle)}\n`);
    if (format === "stream-json") emit(event.type === "command-finished" ? { type: event.type, result: jsonResult(event.result) } : { ...event });
  };
  const setup = await setUpChat(flags, { onAgentEvent, onManagerEvent });
  const controller = new AbortController();
  const onInterrupt = () => controller.abort();
  process.once("SIGINT", onInterrupt);
  try {
    const outcome = await setup.conversation.prompt(prompt, controller.signal);
    const summary = {
      type: "result",
      reason: outcome.reason,
      ok: outcome.reason === "done",
      turns: outcome.turns,
      result: outcome.finalText,
      ...(outcome.message ? { message: outcome.message } : {}),
      session: setup.conversation.session?.id,
      usage: setup.conversation.usage,
    };
    if (format === "json") process.stdout.write(`${JSON.stringify({ ...summary, commands: commands.map(jsonResult) })}\n`);
    if (format === "stream-json") emit(summary);
    if (format === "text" && outcome.message && outcome.reason !== "done") process.stderr.write(`${outcome.message}\n`);
    return outcome.reason === "done" ? 0 : 1;
  } finally {
    process.off("SIGINT", onInterrupt);
    await setup.conversation.close();
    await setup.runtime.manager.dispose();
  }
}

function streamEvent(event: AgentEvent): Record<string, unknown> {
  if (event.type === "reply-finished") {
    const { outcome } = event;
    return { type: event.type, turn: event.turn, text: outcome.text, finishReason: outcome.finishReason, fabricated: outcome.fabricated, commands: outcome.results.length };
  }
  return { ...event };
}
