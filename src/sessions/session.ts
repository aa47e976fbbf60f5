/**
 * An open session: the handle the agent loop writes to. Every record is saved before its
 * promise resolves, so a crash loses at most the record being written. Saving appends the
 * record's line to the journal (journal.ts), so it costs the same at turn 10 and at turn 1,000.
 */
import { ApplicationError } from "../errors.js";
import { type CommandArgument, type CommandRecord, type MessageRecord, type MessageRole, type SessionData, type SessionEvent, type UsageTotals, makeTitle } from "./format.js";
import { MODEL_CHANGED, commandLine, eventLine, messageLine, usageLine } from "./journal.js";
import type { SessionLock } from "./lock.js";

/** Writes to the end of a session file; the default appends with node:fs. */
export interface SessionWriter {
  /** Adds `text` (whole lines) at the end of the file. */
  append(text: string): Promise<void>;
  /** Cuts the file back to `length` bytes (dropping what a failed append may have left). */
  truncate(length: number): Promise<void>;
}

export interface MessageInput {
  role: MessageRole;
  content: string;
  /** Reasoning beside an assistant message (recorded, never sent back). */
  reasoning?: string;
  turn: number;
  /** ISO 8601; default now. */
  timestamp?: string;
}

export interface CommandInput {
  protocol: string;
  action: string;
  /** The arguments as given (decoded values). Buffers are stored as `{ base64 }`; `undefined` is left out. */
  args?: Record<string, unknown>;
  description?: string;
  ok: boolean;
  /** The result text; shortened in the middle when over the store's `maxOutputChars`. */
  output?: string;
  error?: { code: string; message: string; hint?: string };
  durationMs: number;
  turn: number;
  timestamp?: string;
}

export interface UsageInput {
  turn: number;
  inputTokens: number;
  outputTokens: number;
  /** Default false: the provider reported the counts. */
  estimated?: boolean;
}

export interface EventInput {
  type: string;
  turn?: number;
  data?: unknown;
}

/** What a Session needs from the store that opened it. */
export interface SessionParts {
  file: string;
  data: SessionData;
  writer: SessionWriter;
  lock: SessionLock;
  now: () => number;
  maxOutputChars: number;
  /** The file's length in bytes when opened: appends go after it. */
  length: number;
  /** Set when the file was in an older format (it was rewritten in the current one when opened). */
  migratedFrom?: number;
}

export class Session {
  private readonly state: SessionData;
  /** The chain of saves: each waits for the one before, so lines land in the order they were made. */
  private saving: Promise<void> = Promise.resolve();
  /** Lines made but not yet on disk (after a failed append), written before the next line. */
  private unsaved = "";
  /** Bytes of the file known to be whole lines. */
  private savedLength: number;
  private isClosed = false;
  private nextSequence: number;

  constructor(private readonly parts: SessionParts) {
    this.state = parts.data;
    this.savedLength = parts.length;
    const data = parts.data;
    this.nextSequence = 1 + highest<{ sequence: number }>([data.messages, data.commands, data.events], (record) => record.sequence);
  }

  get id(): string {
    return this.parts.data.id;
  }

  /** The session file's absolute path. */
  get file(): string {
    return this.parts.file;
  }

  /** The session as stored. Read it; change it only through the methods. */
  get data(): Readonly<SessionData> {
    return this.state;
  }

  get title(): string {
    return this.state.title;
  }

  /** The highest turn number recorded so far (0 for a new session): a continued session goes on at `lastTurn + 1`. */
  get lastTurn(): number {
    const data = this.state;
    return highest<{ turn: number }>([data.messages, data.commands, data.usage.turns], (record) => record.turn);
  }

  get closed(): boolean {
    return this.isClosed;
  }

  get migratedFrom(): number | undefined {
    return this.parts.migratedFrom;
  }

  /** Records a message; the first user message also becomes the title. */
  appendMessage(input: MessageInput): Promise<MessageRecord> {
    return this.save((data) => {
      const record: MessageRecord = {
        sequence: this.nextSequence++,
        role: input.role,
        content: input.content,
        ...(input.reasoning ? { reasoning: input.reasoning } : {}),
        timestamp: input.timestamp ?? this.timestamp(),
        turn: input.turn,
      };
      data.messages.push(record);
      if (data.title === "" && input.role === "user") data.title = makeTitle(input.content);
      return { result: record, line: messageLine(record), timestamp: record.timestamp };
    });
  }

  /** Records a command and its result. */
  appendCommand(input: CommandInput): Promise<CommandRecord> {
    return this.save((data) => {
      const record: CommandRecord = {
        sequence: this.nextSequence++,
        protocol: input.protocol,
        action: input.action,
        args: normalizeArguments(input.args ?? {}),
        description: input.description ?? "",
        ok: input.ok,
        ...shortenOutput(input.output ?? "", this.parts.maxOutputChars),
        durationMs: input.durationMs,
        turn: input.turn,
        timestamp: input.timestamp ?? this.timestamp(),
      };
      if (input.error) {
        record.error = { code: input.error.code, message: input.error.message };
        if (input.error.hint !== undefined) record.error.hint = input.error.hint;
      }
      data.commands.push(record);
      return { result: record, line: commandLine(record), timestamp: record.timestamp };
    });
  }

  /** Adds token counts to a turn (added up if the turn already has some) and returns the new totals. */
  addUsage(input: UsageInput): Promise<UsageTotals> {
    return this.save((data) => {
      const estimated = input.estimated ?? false;
      const existing = data.usage.turns.find((entry) => entry.turn === input.turn);
      if (existing) {
        existing.inputTokens += input.inputTokens;
        existing.outputTokens += input.outputTokens;
        existing.estimated ||= estimated;
      } else {
        data.usage.turns.push({ turn: input.turn, inputTokens: input.inputTokens, outputTokens: input.outputTokens, estimated });
      }
      const totals = data.usage.totals;
      totals.inputTokens += input.inputTokens;
      totals.outputTokens += input.outputTokens;
      totals.estimated ||= estimated;
      const timestamp = this.timestamp();
      const line = usageLine({ turn: input.turn, inputTokens: input.inputTokens, outputTokens: input.outputTokens, estimated, timestamp });
      return { result: { ...totals }, line, timestamp };
    });
  }

  /** Records something else worth keeping (`model-changed`, `turn-cancelled`, `context-compacted`). */
  addEvent(input: EventInput): Promise<SessionEvent> {
    return this.save((data) => {
      const event: SessionEvent = { sequence: this.nextSequence++, type: input.type, timestamp: this.timestamp() };
      if (input.turn !== undefined) event.turn = input.turn;
      if (input.data !== undefined) event.data = input.data;
      data.events.push(event);
      return { result: event, line: eventLine(event), timestamp: event.timestamp };
    });
  }

  /** Switches the provider and model from here on, recording a `model-changed` event. */
  setModel(provider: string, model: string): Promise<void> {
    return this.save((data) => {
      const from = { provider: data.provider, model: data.model };
      data.provider = provider;
      data.model = model;
      const event: SessionEvent = { sequence: this.nextSequence++, type: MODEL_CHANGED, timestamp: this.timestamp(), data: { from, to: { provider, model } } };
      data.events.push(event);
      return { result: undefined, line: eventLine(event), timestamp: event.timestamp };
    });
  }

  /** Waits for pending saves and releases the lock. Safe to call twice. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    await this.saving.catch(() => undefined);
    this.parts.lock.release();
  }

  /** Applies a change in memory at once, then appends its line after the saves before it. */
  private async save<Result>(change: (data: SessionData) => { result: Result; line: string; timestamp: string }): Promise<Result> {
    if (this.isClosed) {
      throw new ApplicationError("internal_error", `Session ${this.id} is closed; nothing more can be recorded in it.`, "Open the session again to add to it.");
    }
    const { result, line, timestamp } = change(this.state);
    if (timestamp > this.state.updatedAt) this.state.updatedAt = timestamp;
    const write = this.saving.catch(() => undefined).then(() => this.appendLine(line));
    this.saving = write;
    try {
      await write;
    } catch (error) {
      throw new ApplicationError(
        "internal_error",
        `Could not save session ${this.id} to ${this.file}: ${(error as Error).message}`,
        "Check free disk space and the folder's permissions; the record is kept in memory and saved with the next change.",
      );
    }
    return result;
  }

  private async appendLine(line: string): Promise<void> {
    const writer = this.parts.writer;
    const text = this.unsaved + line;
    this.unsaved = text;
    try {
      await writer.append(text);
    } catch (error) {
      // A failed append may have written part of its text: cut it off so the journal stays whole lines.
      await writer.truncate(this.savedLength).catch(() => undefined);
      throw error;
    }
    this.unsaved = "";
    this.savedLength += Buffer.byteLength(text);
  }

  private timestamp(): string {
    return new Date(this.parts.now()).toISOString();
  }
}

/** The highest number `pick` gives over several lists; 0 when they are empty. */
function highest<Item>(lists: readonly (readonly Item[])[], pick: (item: Item) => number): number {
  let best = 0;
  for (const list of lists) for (const item of list) best = Math.max(best, pick(item));
  return best;
}

function normalizeArguments(args: Record<string, unknown>): Record<string, CommandArgument> {
  const normalized: Record<string, CommandArgument> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue;
    if (value instanceof Uint8Array) normalized[key] = { base64: Buffer.from(value).toString("base64") };
    else if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") normalized[key] = value;
    else normalized[key] = JSON.stringify(value);
  }
  return normalized;
}

const OMISSION_NOTE_ROOM = 60;

/** Keeps the head and the tail of a long output with a note of what was left out. */
export function shortenOutput(output: string, limit: number): { output: string; outputLength?: number } {
  if (output.length <= limit) return { output };
  const keep = Math.max(0, limit - OMISSION_NOTE_ROOM);
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  const omitted = output.length - head - tail;
  return {
    output: `${output.slice(0, head)}\n… [${omitted} characters not kept in the session] …\n${tail > 0 ? output.slice(-tail) : ""}`,
    outputLength: output.length,
  };
}
