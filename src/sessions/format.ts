/**
 * A session's records and format versions. Format 2 is a journal of JSON lines (journal.ts);
 * format 1 was one JSON document per conversation (format 0 its unversioned draft). Files from
 * older versions are migrated when read; files from a newer clio are refused, never rewritten.
 */
import { z } from "zod";
import type { ClioError } from "../../grammar/errors.js";
import { ApplicationError } from "../errors.js";

/** The format version this clio writes. */
export const SESSION_FORMAT_VERSION = 2;

/** The last format that stored a session as one JSON document. */
const DOCUMENT_FORMAT_VERSION = 1;

export type MessageRole = "system" | "user" | "assistant" | "tool";

export interface MessageRecord {
  /** Order of every record (message, command, event) in the session, from 1. */
  sequence: number;
  role: MessageRole;
  content: string;
  /** What the provider sent as reasoning beside an assistant message; never sent back to a model. */
  reasoning?: string;
  /** ISO 8601. */
  timestamp: string;
  turn: number;
}

export interface CommandErrorRecord {
  code: string;
  message: string;
  hint?: string;
}

/**
 * A command argument as given: a string for word, text and json values (the decoded text),
 * a number or boolean when the caller has one, `{ base64 }` for bytes.
 */
export type CommandArgument = string | number | boolean | null | { base64: string };

export interface CommandRecord {
  sequence: number;
  protocol: string;
  action: string;
  args: Record<string, CommandArgument>;
  /** The line a person read, e.g. "Reading src/main.c (247 lines)". */
  description: string;
  ok: boolean;
  /** The result text, shortened in the middle when longer than the store's limit. */
  output: string;
  /** Set when `output` was shortened: the original length in characters. */
  outputLength?: number;
  error?: CommandErrorRecord;
  durationMs: number;
  turn: number;
  timestamp: string;
}

export interface TurnUsage {
  turn: number;
  inputTokens: number;
  outputTokens: number;
  /** True when the counts were estimated (tokenizer) rather than reported by the provider. */
  estimated: boolean;
}

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  /** True when any turn's counts were estimated. */
  estimated: boolean;
}

export interface SessionEvent {
  sequence: number;
  /** Noun-then-verb, e.g. `model-changed`, `turn-cancelled`. */
  type: string;
  timestamp: string;
  turn?: number;
  data?: unknown;
}

/** What a session was started by: the interactive chat, or a `clio -p` run. */
export type SessionMode = "chat" | "print";

export interface SessionData {
  version: typeof SESSION_FORMAT_VERSION;
  id: string;
  /** Absent in sessions written before clio recorded it. */
  mode?: SessionMode;
  createdAt: string;
  updatedAt: string;
  /** Absolute path. */
  workspace: string;
  provider: string;
  model: string;
  /** The first user prompt, on one line and shortened; empty until there is one. */
  title: string;
  messages: MessageRecord[];
  commands: CommandRecord[];
  usage: { turns: TurnUsage[]; totals: UsageTotals };
  events: SessionEvent[];
}

const count = z.number().int().nonnegative();
const timestamp = z.string().min(1);
const commandArgument = z.union([z.string(), z.number(), z.boolean(), z.null(), z.object({ base64: z.string() }).strict()]);
const usageCounts = { inputTokens: count, outputTokens: count, estimated: z.boolean() };

export const messageRecordSchema = z.object({
  sequence: count,
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string(),
  reasoning: z.string().optional(),
  timestamp,
  turn: count,
});

export const commandRecordSchema = z.object({
  sequence: count,
  protocol: z.string(),
  action: z.string(),
  args: z.record(z.string(), commandArgument),
  description: z.string(),
  ok: z.boolean(),
  output: z.string(),
  outputLength: count.optional(),
  error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }).optional(),
  durationMs: z.number().nonnegative(),
  turn: count,
  timestamp,
});

export const sessionEventSchema = z.object({ sequence: count, type: z.string(), timestamp, turn: count.optional(), data: z.unknown().optional() });

/** Format 1, one JSON document, checked when an older file is read. */
const documentSchema = z.object({
  version: z.literal(DOCUMENT_FORMAT_VERSION),
  id: z.string().min(1),
  createdAt: timestamp,
  updatedAt: timestamp,
  workspace: z.string(),
  provider: z.string(),
  model: z.string(),
  title: z.string(),
  messages: z.array(messageRecordSchema),
  commands: z.array(commandRecordSchema),
  usage: z.object({ turns: z.array(z.object({ turn: count, ...usageCounts })), totals: z.object(usageCounts) }),
  events: z.array(sessionEventSchema),
});

/**
 * Upgrades, by the version they start from. `migrations[0]` turns version 0 into version 1.
 * Version 0 is the unversioned draft shape written before release: `created`/`updated` as
 * epoch milliseconds, messages of `{ role, content }` only, no commands, usage or events.
 */
const migrations: Array<(data: Record<string, unknown>) => Record<string, unknown>> = [
  (draft) => {
    const isoFromEpoch = (value: unknown): string => new Date(typeof value === "number" ? value : 0).toISOString();
    const createdAt = isoFromEpoch(draft.created);
    const oldMessages = Array.isArray(draft.messages) ? (draft.messages as Array<Record<string, unknown>>) : [];
    let turn = 0;
    const messages = oldMessages.map((message, index) => {
      if (message.role === "user") turn++;
      return { sequence: index + 1, role: message.role, content: message.content, timestamp: createdAt, turn: Math.max(turn, 1) };
    });
    const firstPrompt = oldMessages.find((message) => message.role === "user");
    return {
      version: 1,
      id: draft.id,
      createdAt,
      updatedAt: isoFromEpoch(draft.updated ?? draft.created),
      workspace: draft.workspace ?? "",
      provider: draft.provider ?? "unknown",
      model: draft.model ?? "unknown",
      title: typeof firstPrompt?.content === "string" ? makeTitle(firstPrompt.content) : "",
      messages,
      commands: [],
      usage: { turns: [], totals: { inputTokens: 0, outputTokens: 0, estimated: false } },
      events: [],
    };
  },
];

/** The reasons a stored document cannot be used. */
export type DecodeFailure = { kind: "corrupt"; reason: string } | { kind: "newer"; version: number };

/**
 * Checks a parsed format-0 or format-1 document and brings it to the current shape (format 2
 * holds the same records; only the way they are stored changed).
 */
export function decodeSession(document: unknown): { ok: true; data: SessionData; migratedFrom: number } | { ok: false; failure: DecodeFailure } {
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    return { ok: false, failure: { kind: "corrupt", reason: "the file does not hold a JSON object" } };
  }
  let data = document as Record<string, unknown>;
  const original = data.version === undefined ? 0 : data.version;
  if (typeof original !== "number" || !Number.isInteger(original) || original < 0) {
    return { ok: false, failure: { kind: "corrupt", reason: `the format version ${JSON.stringify(original)} is not a version number` } };
  }
  if (original > SESSION_FORMAT_VERSION) return { ok: false, failure: { kind: "newer", version: original } };
  if (original > DOCUMENT_FORMAT_VERSION) return { ok: false, failure: { kind: "corrupt", reason: `format ${original} is stored as JSON lines, not as one document` } };
  for (let version = original; version < DOCUMENT_FORMAT_VERSION; version++) data = migrations[version]!(data);
  const checked = documentSchema.safeParse(data);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    return { ok: false, failure: { kind: "corrupt", reason: `${issue.path.join(".") || "the document"}: ${issue.message}` } };
  }
  return { ok: true, data: { ...checked.data, version: SESSION_FORMAT_VERSION }, migratedFrom: original };
}

/** The error for a file written by a newer clio. */
export function newerVersionError(file: string, version: number): ClioError {
  return new ApplicationError(
    "unsupported_version",
    `${file} is in session format ${version}, written by a newer clio; this clio reads formats up to ${SESSION_FORMAT_VERSION}.`,
    "Upgrade clio to open this session; the file was left untouched.",
  );
}

const TITLE_LENGTH = 80;

/** The first prompt on one line, at most 80 characters. */
export function makeTitle(prompt: string): string {
  const line = prompt.replace(/\s+/g, " ").trim();
  return line.length <= TITLE_LENGTH ? line : `${line.slice(0, TITLE_LENGTH - 1).trimEnd()}…`;
}
