/**
 * The session journal (format 2): one JSON object per line, so saving a record appends one line
 * and costs in proportion to the record, not to the session. The first line is the header; each
 * later line is a message, a command, a usage count, or an event. The session as a whole
 * (title, totals, the current model, the last update) is derived from the lines when read.
 *
 * A crash can leave the last line torn (cut short mid-write). Reading drops such a line and says
 * where the whole part ends, so the store can cut the file back before appending again; a bad
 * line anywhere else makes the file corrupt.
 */
import { type CommandRecord, type MessageRecord, SESSION_FORMAT_VERSION, type SessionData, type SessionEvent, type TurnUsage, makeTitle } from "./format.js";
import { checkCommand, checkEvent, checkHeader, checkMessage, checkUsage } from "./journal-checks.js";

/** A usage line: token counts to add to a turn. */
export interface UsageLine extends TurnUsage {
  timestamp: string;
}

/** The event that switches the model; its `data.to` names the new provider and model. */
export const MODEL_CHANGED = "model-changed";

/** The header line of a new journal. */
export function headerLine(data: Pick<SessionData, "id" | "createdAt" | "workspace" | "provider" | "model" | "mode">): string {
  const { id, createdAt, workspace, provider, model, mode } = data;
  return `${JSON.stringify({ kind: "session", version: SESSION_FORMAT_VERSION, id, createdAt, workspace, provider, model, ...(mode ? { mode } : {}) })}\n`;
}

export function messageLine(record: MessageRecord): string {
  return `${JSON.stringify({ kind: "message", ...record })}\n`;
}

export function commandLine(record: CommandRecord): string {
  return `${JSON.stringify({ kind: "command", ...record })}\n`;
}

export function usageLine(record: UsageLine): string {
  return `${JSON.stringify({ kind: "usage", ...record })}\n`;
}

export function eventLine(record: SessionEvent): string {
  return `${JSON.stringify({ kind: "event", ...record })}\n`;
}

/** The whole journal of a session held in memory (used to move an older file to format 2). */
export function journalText(data: SessionData): string {
  const records: Array<{ sequence: number; line: string }> = [
    ...data.messages.map((record) => ({ sequence: record.sequence, line: messageLine(record) })),
    ...data.commands.map((record) => ({ sequence: record.sequence, line: commandLine(record) })),
    ...data.events.map((record) => ({ sequence: record.sequence, line: eventLine(record) })),
  ].sort((left, right) => left.sequence - right.sequence);
  const usage = data.usage.turns.map((turn) => usageLine({ ...turn, timestamp: data.updatedAt }));
  const first = data.events.find((event) => event.type === MODEL_CHANGED);
  const startModel = first ? modelFrom(first.data, "from") : undefined;
  const header = headerLine({ ...data, provider: startModel?.provider ?? data.provider, model: startModel?.model ?? data.model });
  return header + records.map((record) => record.line).join("") + usage.join("");
}

export type JournalOutcome =
  | {
      ok: true;
      data: SessionData;
      /** Set when the last line was torn: the length in bytes of the whole lines before it. */
      wholeLength?: number;
    }
  | { ok: false; kind: "corrupt"; reason: string }
  | { ok: false; kind: "newer"; version: number };

const JOURNAL_START = Buffer.from('{"kind":"session"');
const LINE_FEED = 0x0a;

/** True when the file's bytes start like a journal (a header line) rather than a format-1 JSON document. */
export function isJournal(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, JOURNAL_START.length)).equals(JOURNAL_START);
}

/**
 * Reads a journal's bytes into the session it records. Each line is decoded on its own (a line
 * feed never falls inside a UTF-8 sequence): no string of the whole file is made, which on a
 * long session is megabytes of fresh memory for nothing.
 */
export function readJournal(bytes: Uint8Array): JournalOutcome {
  const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const headerEnd = source.indexOf(LINE_FEED);
  if (headerEnd < 0) return { ok: false, kind: "corrupt", reason: "the header line is cut short (the session was interrupted while being created)" };
  let header: unknown;
  try {
    header = JSON.parse(source.toString("utf8", 0, headerEnd));
  } catch {
    return { ok: false, kind: "corrupt", reason: "line 1 (the header) is not valid JSON" };
  }
  const version = (header as { version?: unknown } | null)?.version;
  if (typeof version === "number" && version > SESSION_FORMAT_VERSION) return { ok: false, kind: "newer", version };
  const headerProblem = checkHeader(header);
  if (headerProblem !== undefined) return { ok: false, kind: "corrupt", reason: `line 1 (the header): ${headerProblem}` };
  const { id, createdAt, workspace, provider, model, mode } = header as SessionData;
  const data: SessionData = {
    version: SESSION_FORMAT_VERSION,
    id,
    ...(mode ? { mode } : {}),
    createdAt,
    updatedAt: createdAt,
    workspace,
    provider,
    model,
    title: "",
    messages: [],
    commands: [],
    usage: { turns: [], totals: { inputTokens: 0, outputTokens: 0, estimated: false } },
    events: [],
  };
  const usageByTurn = new Map<number, TurnUsage>();
  // Every record is written with its line break in one write: a last line without one is torn.
  const wholeEnd = source.lastIndexOf(LINE_FEED) + 1;
  let line = 1;
  for (let start = headerEnd + 1; start < wholeEnd; ) {
    line++;
    const end = source.indexOf(LINE_FEED, start);
    const applied = applyLine(data, usageByTurn, source.toString("utf8", start, end));
    if (!applied.ok) return { ok: false, kind: "corrupt", reason: `line ${line}: ${applied.reason}` };
    start = end + 1;
  }
  finish(data, usageByTurn);
  return wholeEnd === source.length ? { ok: true, data } : { ok: true, data, wholeLength: wholeEnd };
}

function applyLine(data: SessionData, usageByTurn: Map<number, TurnUsage>, lineText: string): { ok: true } | { ok: false; reason: string } {
  let value: { kind?: unknown } & Record<string, unknown>;
  try {
    value = JSON.parse(lineText) as typeof value;
  } catch {
    return { ok: false, reason: "not valid JSON" };
  }
  if (typeof value !== "object" || value === null) return { ok: false, reason: "not a JSON object" };
  const { kind, ...fields } = value;
  switch (kind) {
    case "message": {
      const problem = checkMessage(fields);
      if (problem !== undefined) return { ok: false, reason: `message: ${problem}` };
      const record = fields as unknown as MessageRecord;
      data.messages.push(record);
      if (data.title === "" && record.role === "user") data.title = makeTitle(record.content);
      touch(data, record.timestamp);
      return { ok: true };
    }
    case "command": {
      const problem = checkCommand(fields);
      if (problem !== undefined) return { ok: false, reason: `command: ${problem}` };
      const record = fields as unknown as CommandRecord;
      data.commands.push(record);
      touch(data, record.timestamp);
      return { ok: true };
    }
    case "usage": {
      const problem = checkUsage(fields);
      if (problem !== undefined) return { ok: false, reason: `usage: ${problem}` };
      const { turn, inputTokens, outputTokens, estimated, timestamp } = fields as unknown as UsageLine;
      const existing = usageByTurn.get(turn);
      if (existing) {
        existing.inputTokens += inputTokens;
        existing.outputTokens += outputTokens;
        existing.estimated ||= estimated;
      } else usageByTurn.set(turn, { turn, inputTokens, outputTokens, estimated });
      touch(data, timestamp);
      return { ok: true };
    }
    case "event": {
      const problem = checkEvent(fields);
      if (problem !== undefined) return { ok: false, reason: `event: ${problem}` };
      const record = fields as unknown as SessionEvent;
      data.events.push(record);
      if (record.type === MODEL_CHANGED) {
        const to = modelFrom(record.data, "to");
        if (to) {
          data.provider = to.provider;
          data.model = to.model;
        }
      }
      touch(data, record.timestamp);
      return { ok: true };
    }
    default:
      return { ok: false, reason: `unknown record kind ${JSON.stringify(kind)}` };
  }
}

/** The `from` or `to` side of a model-changed event's data, when it has one. */
function modelFrom(data: unknown, side: "from" | "to"): { provider: string; model: string } | undefined {
  const value = (data as Record<string, unknown> | undefined)?.[side] as { provider?: unknown; model?: unknown } | undefined;
  return typeof value?.provider === "string" && typeof value.model === "string" ? { provider: value.provider, model: value.model } : undefined;
}

function touch(data: SessionData, timestamp: string): void {
  if (timestamp > data.updatedAt) data.updatedAt = timestamp;
}

function finish(data: SessionData, usageByTurn: Map<number, TurnUsage>): void {
  const totals = data.usage.totals;
  for (const turn of [...usageByTurn.values()].sort((left, right) => left.turn - right.turn)) {
    data.usage.turns.push(turn);
    totals.inputTokens += turn.inputTokens;
    totals.outputTokens += turn.outputTokens;
    totals.estimated ||= turn.estimated;
  }
}
