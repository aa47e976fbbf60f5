/**
 * The agent loop: a person's prompt goes to the model; the commands in its reply run; their
 * results go back in nonce envelopes; until the model answers without commands or a limit ends
 * the turn. Everything but waiting for the model happens here.
 */
import { ClioError } from "../../grammar/errors.js";
import { describeMentionContext } from "../../grammar/index.js";
import { LANGUAGE_ERROR_CODES } from "../../protocols/contract/errors.js";
import type { ErrorCode } from "../errors.js";
import type { ProtocolManager } from "../manager/manager.js";
import { formatResultsForModel, type CommandResult } from "../manager/result.js";
import { StreamCutError } from "../providers/failures.js";
import type { ChatMessage, ModelProvider, ModelRequest } from "../providers/types.js";
import { RESULT_STOP_SEQUENCES } from "./fabrication-guard.js";
import { historyContent, withoutReasoning } from "./reasoning-split.js";
import { streamReply, type ReplyOutcome } from "./reply.js";
import { needsSummary, summarize } from "./summary.js";
import type { CheckRunner } from "./checks.js";

export type StopReason = "done" | "max-turns" | "malformed" | "repeated" | "cancelled" | "error";

export type AgentEvent =
  | { type: "model-started"; turn: number }
  | { type: "first-token"; turn: number }
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  | { type: "reply-finished"; turn: number; outcome: ReplyOutcome }
  | { type: "usage"; turn: number; inputTokens: number; outputTokens: number; estimated: boolean; totalInput: number; totalOutput: number }
  | { type: "notice"; level: "info" | "warning" | "error"; message: string }
  | { type: "summarized"; replacedMessages: number }
  | { type: "check-finished"; command: string; ok: boolean; summary: string }
  | { type: "prompt-finished"; reason: StopReason; turns: number; message?: string };

/** Where a conversation is written as it happens (a session file, or nothing). */
export interface ConversationRecorder {
  /** `reasoning`: what the provider sent as reasoning beside an assistant message (kept in the record only). */
  message(message: ChatMessage, turn: number, reasoning?: string): void | Promise<void>;
  command(result: CommandResult, turn: number): void | Promise<void>;
  usage(turn: number, usage: { inputTokens: number; outputTokens: number; estimated: boolean }): void | Promise<void>;
}

/** Request settings sent with every model call; `stop` adds to clio's own stop strings. */
export interface Sampling {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stop?: string[];
}

export interface AgentOptions {
  provider: ModelProvider;
  manager: ProtocolManager;
  /** The system prompt for a person's prompt (it may add memories relevant to it). */
  systemPrompt: (prompt: string) => string | Promise<string>;
  /** Model calls per prompt (default 25). */
  maxTurns?: number;
  /** The model's context window in tokens; older turns are summarised near it. */
  contextWindow?: number;
  /** Messages of a resumed conversation. */
  history?: ChatMessage[];
  sampling?: Sampling;
  /** Commands to run after the model changes files, whose failures it must address. */
  checks?: CheckRunner;
  recorder?: ConversationRecorder;
  onEvent?: (event: AgentEvent) => void;
}

export interface PromptOutcome {
  reason: StopReason;
  turns: number;
  /** The model's last reply, without its `<think>` blocks (the session file keeps them). */
  finalText: string;
  message?: string;
}

/** What the history says where the person cancelled a turn, or where no reply came. */
const INTERRUPTED = "[interrupted by the person]";
const NO_REPLY = "[no reply: the model call failed]";
/** True for a history message clio wrote to mark an interruption, not a reply of the model. */
export const isHistoryMarker = (content: string): boolean => content === INTERRUPTED || content === NO_REPLY;

const MALFORMED_LIMIT = 3;
/** Times a prompt's end-of-turn checks may send the model back to fix things. */
const CHECK_ROUNDS = 3;
const REPEAT_LIMIT = 3;
const STREAM_CUT_RETRIES = 2;
/** Results that say the command was written wrong (a bad value, a fabricated envelope included). */
const LANGUAGE_ERRORS = new Set<string>([...LANGUAGE_ERROR_CODES, "invalid_argument", "fabricated_result"] satisfies ErrorCode[]);

export class Agent {
  readonly history: ChatMessage[];
  totalInputTokens = 0;
  totalOutputTokens = 0;
  private lastContextTokens = 0;
  private turnNumber = 0;

  constructor(private readonly options: AgentOptions) {
    this.history = [...(options.history ?? [])];
  }

  /** Runs one prompt to its end. Never throws: failures end the prompt with a reason. */
  async prompt(text: string, signal: AbortSignal = new AbortController().signal): Promise<PromptOutcome> {
    const system = await this.options.systemPrompt(text);
    await this.append({ role: "user", content: text });
    const maxTurns = this.options.maxTurns ?? 25;
    let malformedInRow = 0;
    let lastSignature = "";
    let repeats = 0;
    let finalText = "";
    let changedFiles = false;
    let checkRounds = 0;
    for (let call = 1; call <= maxTurns; call++) {
      await this.summarizeIfNeeded(system, signal);
      const turn = ++this.turnNumber;
      this.emit({ type: "model-started", turn });
      let outcome: ReplyOutcome;
      try {
        outcome = await this.reply(system, turn, signal);
      } catch (error) {
        const cancelled = signal.aborted || (ClioError.isInstance(error) && error.code === "cancelled");
        const message = cancelled ? "Cancelled." : `The model call failed: ${(error as Error).message}`;
        // Marked in the history, so the person's next prompt is a message of its own, not glued to this one.
        await this.append({ role: "assistant", content: cancelled ? INTERRUPTED : NO_REPLY }, turn);
        return this.finish(cancelled ? "cancelled" : "error", call, finalText, message);
      }
      finalText = await this.appendReply(outcome.text, turn, outcome.reasoning);
      for (const result of outcome.results) await this.options.recorder?.command(result, turn);
      if (outcome.finishReason === "cancelled") {
        await this.append({ role: "user", content: outcome.results.length ? `${formatResultsForModel(outcome.results)}\n\n${INTERRUPTED}` : INTERRUPTED }, turn);
        await this.append({ role: "assistant", content: INTERRUPTED }, turn);
        return this.finish("cancelled", call, finalText, "Cancelled.");
      }

      const notes = replyNotes(outcome);
      const edited = outcome.results.some((result) => result.ok && result.permissionClass === "write");
      changedFiles ||= edited;
      if (outcome.results.length === 0 && notes.length === 0) {
        const failed = changedFiles && checkRounds < CHECK_ROUNDS ? await this.runChecks(this.options.checks?.afterTurn ?? [], signal) : [];
        if (failed.length === 0) return this.finish("done", call, finalText);
        checkRounds++;
        await this.append({ role: "user", content: `${failed.join("\n\n")}\n\nFix what the checks report, then answer.` }, turn);
        continue;
      }
      if (edited) notes.push(...(await this.runChecks(this.options.checks?.afterEdit ?? [], signal)));

      const malformed = outcome.results.length === 0 || outcome.results.every((result) => !result.ok && LANGUAGE_ERRORS.has(result.error?.code ?? ""));
      malformedInRow = malformed ? malformedInRow + 1 : 0;
      const signature = outcome.results.map(commandSignature).join("\n");
      repeats = signature && signature === lastSignature ? repeats + 1 : 1;
      lastSignature = signature;

      const parts = outcome.results.length ? [formatResultsForModel(outcome.results)] : [];
      parts.push(...notes);
      await this.append({ role: "user", content: parts.join("\n\n") }, turn);

      if (malformedInRow >= MALFORMED_LIMIT) {
        const answer = await this.answerWithoutCommands(system, signal, `${MALFORMED_LIMIT} of your replies in a row had no command that could run.`);
        return this.finish(
          "malformed",
          call,
          answer ?? finalText,
          `Stopped: ${MALFORMED_LIMIT} replies in a row had no command that could run. Try rephrasing, or a model that follows instructions better.`,
        );
      }
      if (signature && repeats >= REPEAT_LIMIT) {
        const answer = await this.answerWithoutCommands(system, signal, `you sent the same command ${REPEAT_LIMIT} times in a row.`);
        return this.finish("repeated", call, answer ?? finalText, `Stopped: the model sent the same command ${REPEAT_LIMIT} times in a row.`);
      }
    }
    const answer = await this.answerWithoutCommands(system, signal, `this request has used all ${maxTurns} model calls it may take.`);
    return this.finish("max-turns", maxTurns, answer ?? finalText, `Stopped after ${maxTurns} model calls (--max-turns). Say "continue" to let it go on.`);
  }

  /**
   * At a limit, one more call asks the model for a plain answer, so the turn ends on words the
   * person can use rather than on a raw command; commands in that reply do not run.
   */
  private async answerWithoutCommands(system: string, signal: AbortSignal, why: string): Promise<string | undefined> {
    if (signal.aborted) return undefined;
    const turn = ++this.turnNumber;
    await this.append(
      {
        role: "user",
        content: `Note: clio stopped running commands: ${why} Do not write any more commands. Answer the person now in plain text: what you found or did, and what is left to do.`,
      },
      turn,
    );
    this.emit({ type: "model-started", turn });
    let text = "";
    try {
      for await (const event of this.options.provider.stream({ ...this.request(system), signal })) {
        if (event.type !== "text-delta" || !event.text) continue;
        if (!text) this.emit({ type: "first-token", turn });
        text += event.text;
        this.emit({ type: "text-delta", text: event.text });
      }
    } catch {
      return undefined;
    }
    this.emit({
      type: "reply-finished",
      turn,
      outcome: { text, reasoning: "", results: [], mentions: [], dialectCalls: [], finishReason: "stop", fabricated: false, dispatchDelays: [] },
    });
    return this.appendReply(text, turn);
  }

  private async reply(system: string, turn: number, signal: AbortSignal): Promise<ReplyOutcome> {
    for (let attempt = 0; ; attempt++) {
      try {
        const outcome = await streamReply(this.options.provider, this.request(system), this.options.manager, signal, {
          onText: (text) => this.emit({ type: "text-delta", text }),
          onReasoning: (text) => this.emit({ type: "reasoning-delta", text }),
          onFirstText: () => this.emit({ type: "first-token", turn }),
          onRetry: (retryAttempt, delayMs, reason) => this.emit({ type: "retry", attempt: retryAttempt, delayMs, reason }),
        });
        this.emit({ type: "reply-finished", turn, outcome });
        if (outcome.usage) {
          this.totalInputTokens += outcome.usage.inputTokens;
          this.totalOutputTokens += outcome.usage.outputTokens;
          this.lastContextTokens = outcome.usage.inputTokens + outcome.usage.outputTokens;
          this.emit({ type: "usage", turn, ...outcome.usage, totalInput: this.totalInputTokens, totalOutput: this.totalOutputTokens });
          await this.options.recorder?.usage(turn, outcome.usage);
        }
        return outcome;
      } catch (error) {
        const cut = StreamCutError.isInstance(error);
        if (!cut || attempt >= STREAM_CUT_RETRIES || signal.aborted) throw error;
        this.emit({ type: "notice", level: "warning", message: `The reply broke off (${(error as Error).message}); asking again.` });
      }
    }
  }

  private request(system: string): ModelRequest {
    const { stop = [], ...sampling } = this.options.sampling ?? {};
    return { messages: [{ role: "system", content: system }, ...alternating(this.history)], stop: [...RESULT_STOP_SEQUENCES, ...stop], ...sampling };
  }

  private async summarizeIfNeeded(system: string, signal: AbortSignal): Promise<void> {
    if (!needsSummary(this.lastContextTokens, this.options.contextWindow, this.history.length)) return;
    try {
      const replaced = await summarize(this.options.provider, system, this.history, signal);
      this.lastContextTokens = 0;
      this.emit({ type: "summarized", replacedMessages: replaced });
    } catch (error) {
      this.emit({ type: "notice", level: "warning", message: `Could not summarise older turns: ${(error as Error).message}` });
    }
  }

  /** Summarises the older turns now (`/compact`); how many messages were replaced. */
  async compact(signal: AbortSignal): Promise<number> {
    const replaced = await summarize(this.options.provider, await this.options.systemPrompt(""), this.history, signal);
    this.lastContextTokens = 0;
    if (replaced) this.emit({ type: "summarized", replacedMessages: replaced });
    return replaced;
  }

  /** Runs checks; the reports of those that failed. */
  private async runChecks(commands: readonly string[], signal: AbortSignal): Promise<string[]> {
    const failed: string[] = [];
    for (const command of commands) {
      if (signal.aborted || !this.options.checks) break;
      const outcome = await this.options.checks.run(command, signal);
      this.emit({ type: "check-finished", command, ok: outcome.ok, summary: outcome.summary });
      if (!outcome.ok) failed.push(outcome.report);
    }
    return failed;
  }

  /** Adds something the person did themselves (a shell command's output) to the conversation. */
  async addContext(content: string): Promise<void> {
    await this.append({ role: "user", content });
  }

  /**
   * Adds a model reply. The history sent back holds what the reply says only: providers reject
   * reasoning there (DeepSeek), whether it came beside the content or as <think> blocks in it. The
   * session file keeps both. Returns what the reply says ("" when it was reasoning only).
   */
  private async appendReply(text: string, turn: number, reasoning = ""): Promise<string> {
    const said = withoutReasoning(text);
    await this.append({ role: "assistant", content: text }, turn, reasoning, historyContent(text, said));
    return said.trim() ? said : "";
  }

  /** Adds a message; `sent` is its content as the history sends it back, when that differs. */
  private async append(message: ChatMessage, turn = this.turnNumber, reasoning = "", sent = message.content): Promise<void> {
    this.history.push(sent === message.content ? message : { ...message, content: sent });
    if (reasoning) await this.options.recorder?.message(message, turn, reasoning);
    else await this.options.recorder?.message(message, turn);
  }

  private finish(reason: StopReason, turns: number, finalText: string, message?: string): PromptOutcome {
    this.emit(message === undefined ? { type: "prompt-finished", reason, turns } : { type: "prompt-finished", reason, turns, message });
    return message === undefined ? { reason, turns, finalText } : { reason, turns, finalText, message };
  }

  private emit(event: AgentEvent): void {
    this.options.onEvent?.(event);
  }
}

/**
 * The history with messages of the same role in a row joined into one (a prompt after a turn
 * that ended on results or on a failed call): strict chat templates refuse two in a row.
 */
function alternating(history: ChatMessage[]): ChatMessage[] {
  const joined: ChatMessage[] = [];
  for (const message of history) {
    const last = joined.at(-1);
    if (last && last.role === message.role) joined[joined.length - 1] = { role: last.role, content: `${last.content}\n\n${message.content}` };
    else joined.push(message);
  }
  return joined;
}

/**
 * Notes the model needs beside its results: command-shaped text that did not run (mentions),
 * calls it wrote in another format, a fabricated result, a cut reply. Never silent: these go
 * back also when other commands of the same reply ran.
 */
export function replyNotes(outcome: Pick<ReplyOutcome, "mentions" | "dialectCalls" | "fabricated" | "finishReason">): string[] {
  const notes: string[] = [];
  // Drafts in reasoning are meant not to run: they get no note.
  const mentions = outcome.mentions.filter((mention) => mention.context !== "reasoning");
  if (mentions.length) {
    const lines = mentions.slice(0, 5).map((mention) => {
      const hint = mention.hint ? `; as a command: ${mention.hint}` : "";
      return `- line ${mention.span.start.line} (${describeMentionContext(mention.context)})${hint}`;
    });
    if (mentions.length > 5) lines.push(`- and ${mentions.length - 5} more`);
    notes.push(
      `Note: this command-shaped text did not run, because it was inside code, a quote or the like:\n${lines.join("\n")}\nIf you meant to run it, write the command on a line of its own outside any code block or quote; if you only showed it, carry on.`,
    );
  }
  if (outcome.dialectCalls.length) {
    const lines = outcome.dialectCalls.slice(0, 5).map((call) => `- line ${call.line}: ${call.equivalent}`);
    notes.push(`Note: you wrote tool calls in another format; clio read them as these commands (results above). Write them this way from now on:\n${lines.join("\n")}`);
  }
  if (outcome.fabricated) {
    notes.push("Note: your reply was cut where you began writing a [RESULT …] block. Results come only from clio, after your commands run; stop after your commands and wait.");
  }
  if (outcome.finishReason === "length") {
    notes.push("Note: your reply hit the output token limit and was cut off. Continue where you stopped; keep replies shorter.");
  }
  return notes;
}

/**
 * What makes two commands the same: protocol, action and arguments as written — not the
 * description, which may report how a run went ("Ran npm test (exit 0, 2.3 s)").
 */
function commandSignature(result: CommandResult): string {
  const written = result.args ? JSON.stringify(result.args) : (result.error?.message ?? result.description);
  return `${result.protocol}.${result.action ?? ""} ${written}`;
}
