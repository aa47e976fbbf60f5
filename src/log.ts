/**
 * clio's log: `--debug` or `CLIO_LOG_LEVEL` (error, warn, info, debug; or `logLevel` in config)
 * writes timestamped lines to `clio.log` in the user's clio folder (`~/.clio`, or
 * `$CLIO_HOME/.clio`), and with `--debug` to stderr too. It records requests (never their
 * keys), timings and decisions; anything shaped like a credential is masked before it is written.
 * Off unless asked for: then every call is a cheap no-op.
 */
import { appendFileSync, mkdirSync, renameSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { processState } from "./process-state.js";

export const logLevels = ["error", "warn", "info", "debug"] as const;
export type LogLevel = (typeof logLevels)[number];

/** A log file past this size is moved to `clio.log.1` when logging starts. */
const ROTATE_BYTES = 5 * 1024 * 1024;

interface Sink {
  level: LogLevel;
  file: string;
  stderr: boolean;
}

/** Where log lines go, once logging started: one for the process (process-state.ts). */
const state = processState("log", (): { sink: Sink | undefined } => ({ sink: undefined }));

const rank = (level: LogLevel) => logLevels.indexOf(level);

/** The log file for a home folder (`homeDir/.clio/clio.log`). */
export function logFileFor(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.CLIO_HOME !== undefined && env.CLIO_HOME.trim() !== "" ? env.CLIO_HOME : os.homedir();
  return path.join(home, ".clio", "clio.log");
}

/** True for one of the level names. */
export function isLogLevel(value: string | undefined): value is LogLevel {
  return logLevels.includes(value as LogLevel);
}

/** Starts (or changes) logging. The file is created with 0600: prompts' sizes and paths are nobody else's business. */
export function startLogging(options: { level: LogLevel; file?: string; stderr?: boolean }): void {
  const file = options.file ?? logFileFor();
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    if (statSync(file).size > ROTATE_BYTES) renameSync(file, `${file}.1`);
  } catch {
    // No log yet.
  }
  state.sink = { level: options.level, file, stderr: options.stderr ?? false };
  appendFileSync(file, "", { mode: 0o600 });
}

/** Stops logging (tests). */
export function stopLogging(): void {
  state.sink = undefined;
}

/** Whether a line at `level` would be written. */
export function logs(level: LogLevel): boolean {
  return state.sink !== undefined && rank(level) <= rank(state.sink.level);
}

/** Masks what looks like a secret: `sk-…` keys, bearer tokens, `key=`/`token=` values, GitHub tokens. */
export function maskSecrets(text: string): string {
  return text
    .replace(/\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}/g, "$1-****")
    .replace(/\b(gh[pousr]|github_pat)_[A-Za-z0-9_]{8,}/g, "$1_****")
    .replace(/\b(Bearer|token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, "$1 ****")
    .replace(/\b(api[_-]?key|token|secret|password|authorization)(["']?\s*[:=]\s*["']?)[^\s"',;}]{4,}/gi, "$1$2****");
}

function write(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
  if (!state.sink || rank(level) > rank(state.sink.level)) return;
  const extra = fields === undefined ? "" : ` ${JSON.stringify(fields)}`;
  const text = maskSecrets(`${message}${extra}`).replace(/\r?\n/g, "\\n");
  try {
    appendFileSync(state.sink.file, `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${text}\n`, { mode: 0o600 });
  } catch {
    // A log that cannot be written must not stop the work.
  }
  if (state.sink.stderr) process.stderr.write(`[clio ${level}] ${text}\n`);
}

/** The log: `log.info("provider chosen", { provider: "ollama" })`. */
export const log = {
  error: (message: string, fields?: Record<string, unknown>) => write("error", message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write("warn", message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write("info", message, fields),
  debug: (message: string, fields?: Record<string, unknown>) => write("debug", message, fields),
};
