/**
 * The folder of sessions: one `<id>.jsonl` journal per conversation (`<id>.json` from clio
 * before session format 2, moved to a journal when opened), `<id>.lock` while a clio process
 * has it open. Ids sort by time: `20261122-0243-a1b2c3` (UTC date and minute, then random).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { ClioError } from "../../grammar/errors.js";
import { writeAtomically } from "../../tools/atomic-file.js";
import { ApplicationError } from "../errors.js";
import { parseJsonText } from "../config/json-text.js";
import { SESSION_FORMAT_VERSION, type SessionData, type SessionMode, decodeSession, newerVersionError } from "./format.js";
import { headerLine, isJournal, journalText, readJournal } from "./journal.js";
import { type LockOptions, SessionLock } from "./lock.js";
import { Session, type SessionWriter } from "./session.js";
import { randomHex } from "../../tools/node-crypto.js";

const ID_PATTERN = /^\d{8}-\d{4}-[0-9a-f]{6}$/;
const SESSION_FILE_PATTERN = /^(\d{8}-\d{4}-[0-9a-f]{6})\.jsonl?$/;
/** The event a forked session starts with; `data.from` names the original. */
export const SESSION_FORKED = "session-forked";
const LIST_HINT = 'Run "clio sessions" to see the ids; a unique prefix such as "20261122-0243" is enough.';

export interface SessionStoreOptions {
  /** The clock (epoch ms); default `Date.now`. */
  now?: () => number;
  /** Six lower-case hex digits for a new id; default random. */
  randomSuffix?: () => string;
  /** Makes the appending writer for a session file; default node:fs appends. */
  openWriter?: (file: string) => SessionWriter;
  /** Command outputs longer than this keep their head and tail only; default 32,000 characters. */
  maxOutputChars?: number;
  /** Seams for the lock (pid, host name, liveness check). */
  lock?: LockOptions;
}

export interface SessionSummary {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  workspace: string;
  provider: string;
  model: string;
  /** Absent for sessions written before clio recorded it. */
  mode?: SessionMode;
  messageCount: number;
  file: string;
}

/** A file `list` could not read: corrupt, or from a newer clio. */
export interface UnreadableSession {
  file: string;
  code: "corrupt_file" | "unsupported_version";
  message: string;
}

export interface SessionListing {
  /** Newest first (by last update). */
  sessions: SessionSummary[];
  /** Files skipped, so `clio sessions` can mention them. */
  unreadable: UnreadableSession[];
}

export class SessionStore {
  private readonly now: () => number;
  private readonly randomSuffix: () => string;
  private readonly openWriter: (file: string) => SessionWriter;
  private readonly maxOutputChars: number;

  /** @param directory the session folder (the CLI resolves `sessionDir` from config). */
  constructor(
    readonly directory: string,
    private readonly options: SessionStoreOptions = {},
  ) {
    this.directory = path.resolve(directory);
    this.now = options.now ?? Date.now;
    this.randomSuffix = options.randomSuffix ?? (() => randomHex(3));
    this.openWriter = options.openWriter ?? appendingWriter;
    this.maxOutputChars = options.maxOutputChars ?? 32_000;
  }

  /** Starts a new session, saved at once and locked to this process. */
  async create(input: { workspace: string; provider: string; model: string; mode?: SessionMode }): Promise<Session> {
    const { id, lock } = await this.claimNewId();
    const timestamp = new Date(this.now()).toISOString();
    const data: SessionData = {
      version: SESSION_FORMAT_VERSION,
      id,
      ...(input.mode ? { mode: input.mode } : {}),
      createdAt: timestamp,
      updatedAt: timestamp,
      workspace: path.resolve(input.workspace),
      provider: input.provider,
      model: input.model,
      title: "",
      messages: [],
      commands: [],
      usage: { turns: [], totals: { inputTokens: 0, outputTokens: 0, estimated: false } },
      events: [],
    };
    const file = this.sessionFile(id);
    const writer = this.openWriter(file);
    const header = headerLine(data);
    try {
      await writer.append(header);
    } catch (error) {
      await fs.rm(file, { force: true });
      lock.release();
      throw new ApplicationError(
        "internal_error",
        `Could not create a session in ${this.directory}: ${(error as Error).message}`,
        "Check that the session folder is writable (sessionDir in clio config).",
      );
    }
    return new Session({ file, data, writer, lock, now: this.now, maxOutputChars: this.maxOutputChars, length: Buffer.byteLength(header) });
  }

  /**
   * Copies a session — its records and its undo checkpoints — under a new id, and opens the
   * copy (locked to this process); the original is only read. The copy starts with an event
   * naming the session it came from.
   */
  async fork(idOrPrefix: string): Promise<Session> {
    const source = await this.read(idOrPrefix);
    const { id, lock } = await this.claimNewId();
    try {
      const timestamp = new Date(this.now()).toISOString();
      const sequence = 1 + Math.max(0, ...[...source.messages, ...source.commands, ...source.events].map((record) => record.sequence));
      const data: SessionData = { ...source, id, createdAt: timestamp, events: [...source.events, { sequence, type: SESSION_FORKED, timestamp, data: { from: source.id } }] };
      const text = journalText(data);
      const checkpoints = path.join(this.directory, `${source.id}.checkpoints`);
      if (await exists(checkpoints)) await fs.cp(checkpoints, path.join(this.directory, `${id}.checkpoints`), { recursive: true });
      const file = this.sessionFile(id);
      await writeAtomically(file, text);
      const read = await readSessionFile(file);
      if (read.kind !== "ok") throw new ApplicationError("internal_error", `The copy of session ${source.id} could not be read back from ${file}.`, "Try again.");
      return new Session({ file, data: read.data, writer: this.openWriter(file), lock, now: this.now, maxOutputChars: this.maxOutputChars, length: read.length });
    } catch (error) {
      await fs.rm(path.join(this.directory, `${id}.checkpoints`), { recursive: true, force: true });
      lock.release();
      throw error;
    }
  }

  /** A new id no session has, locked to this process. */
  private async claimNewId(): Promise<{ id: string; lock: SessionLock }> {
    await fs.mkdir(this.directory, { recursive: true });
    for (let attempt = 0; attempt < 20; attempt++) {
      const id = makeSessionId(this.now(), this.randomSuffix());
      const lock = await SessionLock.acquire(this.lockFile(id), id, this.lockOptions()).catch((error: unknown) => {
        if (ClioError.isInstance(error) && error.code === "locked") return undefined; // that id is taken: draw another
        throw error;
      });
      if (!lock) continue;
      if (!(await exists(this.sessionFile(id))) && !(await exists(this.legacyFile(id)))) return { id, lock };
      lock.release();
    }
    throw new ApplicationError("internal_error", `Could not find a free session id in ${this.directory}.`, "Try again in a moment.");
  }

  /**
   * Opens a session by id or unique prefix and locks it to this process. A torn last line (a
   * crash mid-save) is cut off; a file in an older format is rewritten as a journal.
   * Throws `not_found`, `ambiguous_match`, `locked`, `corrupt_file` (the file is moved aside
   * to `<file>.corrupt-<time>`) or `unsupported_version`.
   */
  async open(idOrPrefix: string): Promise<Session> {
    const id = await this.resolveId(idOrPrefix);
    const lock = await SessionLock.acquire(this.lockFile(id), id, this.lockOptions());
    try {
      const file = await this.storedFile(id);
      const outcome = await this.readForOpen(id, file);
      const journal = this.sessionFile(id);
      let length: number;
      if (outcome.migratedFrom !== undefined) {
        const text = journalText(outcome.data);
        await writeAtomically(journal, text);
        await fs.rm(file, { force: true });
        length = Buffer.byteLength(text);
      } else if (outcome.wholeLength !== undefined) {
        await fs.truncate(journal, outcome.wholeLength);
        length = outcome.wholeLength;
      } else length = outcome.length;
      const parts = { file: journal, data: outcome.data, writer: this.openWriter(journal), lock, now: this.now, maxOutputChars: this.maxOutputChars, length };
      return new Session(outcome.migratedFrom === undefined ? parts : { ...parts, migratedFrom: outcome.migratedFrom });
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  /**
   * Every readable session, newest first; corrupt or newer-format files are reported, not thrown.
   * `workspace` matches the path as given or its real path (symlinks expanded).
   */
  async list(filter: { workspace?: string } = {}): Promise<SessionListing> {
    const workspaces = filter.workspace === undefined ? undefined : await samePlaceNames(filter.workspace);
    const ids = await this.sessionIds();
    const sessions: SessionSummary[] = [];
    const unreadable: UnreadableSession[] = [];
    await Promise.all(
      ids.map(async (id) => {
        const file = await this.storedFile(id);
        const outcome = await readSessionFile(file);
        if (outcome.kind === "missing") return;
        if (outcome.kind === "corrupt") unreadable.push({ file, code: "corrupt_file", message: outcome.reason });
        else if (outcome.kind === "newer") unreadable.push({ file, code: "unsupported_version", message: newerVersionError(file, outcome.version).message });
        else if (workspaces === undefined || workspaces.has(outcome.data.workspace)) sessions.push(summarize(outcome.data, file));
      }),
    );
    sessions.sort((left, right) => right.updatedAt.localeCompare(left.updatedAt) || right.id.localeCompare(left.id));
    unreadable.sort((left, right) => left.file.localeCompare(right.file));
    return { sessions, unreadable };
  }

  /**
   * Reads a session without locking it or changing anything (for `clio sessions show` and
   * export while another clio may have it open). Throws `not_found`, `ambiguous_match`,
   * `corrupt_file` (the file is left where it is) or `unsupported_version`.
   */
  async read(idOrPrefix: string): Promise<SessionData> {
    const id = await this.resolveId(idOrPrefix);
    const file = await this.storedFile(id);
    const { data } = await this.readChecked(id, file, async (reason) => {
      throw new ApplicationError("corrupt_file", `Session ${id} could not be read (${reason}): ${file}.`, "Open it with clio to move the damaged file aside, or delete it.");
    });
    return data;
  }

  /**
   * The most recently updated session in this workspace (for `--continue`); with `prefer`, the
   * latest of that mode when there is one (sessions older than the mode record count as chats).
   */
  async latest(workspace: string, prefer?: SessionMode): Promise<SessionSummary | undefined> {
    const { sessions } = await this.list({ workspace });
    return sessions.find((session) => prefer === undefined || (session.mode ?? "chat") === prefer) ?? sessions[0];
  }

  /** Deletes a session by id or unique prefix; refused (`locked`) while another process has it open. Returns the id. */
  async delete(idOrPrefix: string): Promise<string> {
    const id = await this.resolveId(idOrPrefix);
    const lock = await SessionLock.acquire(this.lockFile(id), id, this.lockOptions());
    try {
      await fs.rm(this.sessionFile(id), { force: true });
      await fs.rm(this.legacyFile(id), { force: true });
      // The session's undo checkpoints go with it.
      await fs.rm(path.join(this.directory, `${id}.checkpoints`), { recursive: true, force: true });
    } finally {
      lock.release();
    }
    return id;
  }

  /** The full id for an id or unique prefix. */
  async resolveId(idOrPrefix: string): Promise<string> {
    const prefix = idOrPrefix.trim();
    if (prefix === "") throw new ApplicationError("invalid_argument", "No session id was given.", LIST_HINT);
    const matches = (await this.sessionIds()).filter((id) => id.startsWith(prefix));
    if (matches.length === 1) return matches[0]!;
    if (matches.length === 0) {
      throw new ApplicationError("not_found", `No session matches "${prefix}" in ${this.directory}.`, LIST_HINT);
    }
    const shown = matches.slice(0, 10).join(", ");
    const more = matches.length > 10 ? ` and ${matches.length - 10} more` : "";
    throw new ApplicationError("ambiguous_match", `"${prefix}" matches ${matches.length} sessions: ${shown}${more}.`, "Give more of the id so that it matches one session.");
  }

  private async readForOpen(id: string, file: string): Promise<ReadSession> {
    return this.readChecked(id, file, async (reason) => {
      const aside = `${file}.corrupt-${new Date(this.now()).toISOString().replace(/[:.]/g, "-")}`;
      await fs.rename(file, aside);
      throw new ApplicationError(
        "corrupt_file",
        `Session ${id} could not be read (${reason}); the file was moved aside to ${aside}.`,
        `This session cannot be continued; start a new one. The damaged file is kept at ${aside} for inspection.`,
      );
    });
  }

  /** Reads and checks a session file; `onCorrupt` decides what happens to a damaged one (it must throw). */
  private async readChecked(id: string, file: string, onCorrupt: (reason: string) => Promise<never>): Promise<ReadSession> {
    const outcome = await readSessionFile(file);
    switch (outcome.kind) {
      case "ok":
        return outcome;
      case "missing":
        throw new ApplicationError("not_found", `Session ${id} no longer exists in ${this.directory}.`, LIST_HINT);
      case "newer":
        throw newerVersionError(file, outcome.version);
      case "corrupt":
        return onCorrupt(outcome.reason);
    }
  }

  private async sessionIds(): Promise<string[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    return [...new Set(names.flatMap((name) => SESSION_FILE_PATTERN.exec(name)?.[1] ?? []))].sort();
  }

  /** The journal of a session (where it is written). */
  private sessionFile(id: string): string {
    return path.join(this.directory, `${id}.jsonl`);
  }

  /** A session's file from clio before session format 2. */
  private legacyFile(id: string): string {
    return path.join(this.directory, `${id}.json`);
  }

  /** The file a session is stored in now: its journal, or its older file until that is moved. */
  private async storedFile(id: string): Promise<string> {
    const journal = this.sessionFile(id);
    return (await exists(journal)) ? journal : this.legacyFile(id);
  }

  private lockFile(id: string): string {
    return path.join(this.directory, `${id}.lock`);
  }

  private lockOptions(): LockOptions {
    return { now: this.now, ...this.options.lock };
  }
}

/** `20261122-0243-a1b2c3`: UTC date and minute, then six hex digits. */
export function makeSessionId(epochMs: number, suffix: string): string {
  const iso = new Date(epochMs).toISOString(); // 2026-11-22T02:43:10.000Z
  const id = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}-${suffix}`;
  if (!ID_PATTERN.test(id)) throw new ApplicationError("internal_error", `Bad session id suffix "${suffix}": expected six lower-case hex digits.`);
  return id;
}

interface ReadSession {
  kind: "ok";
  data: SessionData;
  /** The file's length in bytes. */
  length: number;
  /** Set for a file in an older format. */
  migratedFrom?: number;
  /** Set when the journal's last line is torn: the bytes of whole lines before it. */
  wholeLength?: number;
}

type ReadOutcome = ReadSession | { kind: "missing" } | { kind: "corrupt"; reason: string } | { kind: "newer"; version: number };

async function readSessionFile(file: string): Promise<ReadOutcome> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    throw error;
  }
  const length = bytes.length;
  if (isJournal(bytes)) {
    const read = readJournal(bytes);
    if (!read.ok) return read.kind === "newer" ? { kind: "newer", version: read.version } : { kind: "corrupt", reason: read.reason };
    return read.wholeLength === undefined ? { kind: "ok", data: read.data, length } : { kind: "ok", data: read.data, length, wholeLength: read.wholeLength };
  }
  const parsed = parseJsonText(bytes.toString("utf8"));
  if (!parsed.ok) return { kind: "corrupt", reason: `invalid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.message}` };
  const decoded = decodeSession(parsed.value);
  if (decoded.ok) return { kind: "ok", data: decoded.data, length, migratedFrom: decoded.migratedFrom };
  return decoded.failure.kind === "newer" ? { kind: "newer", version: decoded.failure.version } : { kind: "corrupt", reason: decoded.failure.reason };
}

/** The default writer: appends with node:fs (one write per call, the file opened in append mode). */
function appendingWriter(file: string): SessionWriter {
  return {
    append: (text) => fs.appendFile(file, text, "utf8"),
    truncate: (length) => fs.truncate(file, length),
  };
}

function summarize(data: SessionData, file: string): SessionSummary {
  return {
    id: data.id,
    title: data.title,
    createdAt: data.createdAt,
    updatedAt: data.updatedAt,
    workspace: data.workspace,
    provider: data.provider,
    model: data.model,
    ...(data.mode ? { mode: data.mode } : {}),
    messageCount: data.messages.length,
    file,
  };
}

/** The absolute path and the real path of a folder (the same when there is no symlink). */
async function samePlaceNames(folder: string): Promise<Set<string>> {
  const absolute = path.resolve(folder);
  const real = await fs.realpath(absolute).catch(() => absolute);
  return new Set([absolute, real]);
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
