/**
 * A session written out for people and for replay:
 * - `markdown`: a readable transcript, turn by turn, with each command and its result;
 * - `script`: the session's commands as a protocol script, one command per line;
 * - `replies`: the model's replies as a scripted-provider file `{ "version": 1, "replies": [...] }`.
 */
import type { CommandArgument, CommandRecord, MessageRecord, SessionData, SessionEvent } from "./format.js";
import type { Session } from "./session.js";

export type ExportFormat = "markdown" | "script" | "replies";
export const exportFormats: readonly ExportFormat[] = ["markdown", "script", "replies"];

/** The session as text in the chosen format (ends with a line break). */
export function exportSession(session: Session | SessionData, format: ExportFormat): string {
  const data = "data" in session ? session.data : session;
  switch (format) {
    case "markdown":
      return exportMarkdown(data);
    case "script":
      return exportScript(data);
    case "replies":
      return exportReplies(data);
  }
}

/** One command in the protocol language, values quoted (JSON string literals), on one line. */
export function printCommandLine(command: Pick<CommandRecord, "protocol" | "action" | "args">): string {
  const parts = [`${command.protocol}:action=${printWord(command.action)}`];
  for (const [key, value] of Object.entries(command.args)) {
    if (key === "action" || value === null) continue;
    parts.push(`${key}=${printArgument(value)}`);
  }
  return `[${parts.join(":")}]`;
}

function printArgument(value: CommandArgument): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return value === null ? '""' : value.base64;
}

function printWord(word: string): string {
  return /^[A-Za-z0-9+/_.,@%~-]+$/.test(word) ? word : JSON.stringify(word);
}

/**
 * Whether a recorded command can be written back as a script line. One rejected before it ran
 * (a syntax error, an unknown action, an argument that did not decode) kept no arguments: its
 * text is lost, and a line rebuilt from it would be a different command with a different error.
 */
export function isReplayable(command: Pick<CommandRecord, "ok" | "args">): boolean {
  return command.ok || Object.keys(command.args).length > 0;
}

function exportScript(data: SessionData): string {
  const commands = [...data.commands].filter(isReplayable).sort((left, right) => left.sequence - right.sequence);
  return commands.map((command) => `${printCommandLine(command)}\n`).join("");
}

function exportReplies(data: SessionData): string {
  const replies = data.messages.filter((message) => message.role === "assistant").map((message) => message.content);
  return `${JSON.stringify({ version: 1, replies }, null, 2)}\n`;
}

type Entry = { kind: "message"; record: MessageRecord } | { kind: "command"; record: CommandRecord } | { kind: "event"; record: SessionEvent };

function exportMarkdown(data: SessionData): string {
  const lines: string[] = [`# ${data.title || "Untitled session"}`, ""];
  const totals = data.usage.totals;
  lines.push(
    `- Session: ${data.id}`,
    `- Workspace: ${data.workspace}`,
    `- Model: ${data.provider} / ${data.model}`,
    `- Started: ${data.createdAt}; last update: ${data.updatedAt}`,
    `- Tokens: ${totals.inputTokens} in, ${totals.outputTokens} out${totals.estimated ? " (estimated)" : ""}`,
    "",
  );
  const entries: Entry[] = [
    ...data.messages.map((record) => ({ kind: "message" as const, record })),
    ...data.commands.map((record) => ({ kind: "command" as const, record })),
    ...data.events.map((record) => ({ kind: "event" as const, record })),
  ].sort((left, right) => left.record.sequence - right.record.sequence);

  let turn: number | undefined;
  for (const entry of entries) {
    const entryTurn = entry.record.turn;
    if (entryTurn !== undefined && entryTurn !== turn) {
      turn = entryTurn;
      lines.push(`## Turn ${turn}`, "");
    }
    if (entry.kind === "message") lines.push(...markdownMessage(entry.record));
    else if (entry.kind === "command") lines.push(...markdownCommand(entry.record));
    else lines.push(`*${entry.record.type}*${entry.record.data === undefined ? "" : ` ${JSON.stringify(entry.record.data)}`}`, "");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

const roleNames = { system: "System", user: "User", assistant: "Assistant", tool: "Results" } as const;

function markdownMessage(message: MessageRecord): string[] {
  const heading = `### ${roleNames[message.role]} (${message.timestamp})`;
  // People and the model write Markdown; system prompts and tool results are shown verbatim.
  const body = message.role === "user" || message.role === "assistant" ? message.content.trimEnd() : fenced(message.content);
  return [heading, "", body, ""];
}

function markdownCommand(command: CommandRecord): string[] {
  const status = command.ok ? "ok" : `failed: ${command.error?.code ?? "error"}`;
  const lines = [`**${command.protocol}.${command.action}** — ${command.description || "(no description)"} — ${status}, ${command.durationMs} ms`, ""];
  lines.push(fenced(printCommandLine(command)), "");
  if (command.error) {
    lines.push(`> ${command.error.message}${command.error.hint ? `\n> Hint: ${command.error.hint}` : ""}`, "");
  }
  if (command.output !== "") lines.push(fenced(command.output), "");
  if (command.outputLength !== undefined) lines.push(`(output shortened from ${command.outputLength} characters)`, "");
  return lines;
}

/** A fenced block that cannot be closed early by backticks inside the text. */
function fenced(text: string): string {
  let longestRun = 0;
  for (const match of text.matchAll(/`+/g)) longestRun = Math.max(longestRun, match[0].length);
  const fence = "`".repeat(Math.max(3, longestRun + 1));
  return `${fence}text\n${text.replace(/\n$/, "")}\n${fence}`;
}
