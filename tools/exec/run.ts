/**
 * Running one command to completion: its own process group, stdin closed, output captured
 * with a cap, and on timeout or abort the whole group stopped (SIGTERM, then SIGKILL).
 * Processes a command leaves behind (`server &`) are stopped when it finishes: long-running
 * work belongs in a background job.
 */
import { spawn as nodeSpawn } from "node:child_process";
import { CappedOutput } from "./output.js";
import { groupAlive, releaseTag, signalGroup, stopGroup, trackGroup, untrackGroup, type Spawn } from "./process-group.js";

export const DEFAULT_OUTPUT_LIMIT = 1024 * 1024;
const DEFAULT_GRACE_MS = 1000;
/** After the command exits, how long its output may take to close before leftovers are stopped. */
const DEFAULT_DRAIN_MS = 250;

export interface RunOptions {
  /** Program and arguments; commands go through `/bin/sh -c`. */
  file: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes kept per stream (head and tail), default 1 MB. */
  outputLimit?: number;
  /** Between SIGTERM and SIGKILL, default 1 s. */
  graceMs?: number;
  drainMs?: number;
  /** Output as it arrives (both streams), for a person watching; the captured text is unaffected. */
  onOutput?: (text: string) => void;
  spawn?: Spawn;
  now?: () => number;
  /** The command's environment tag (see process-group.ts): processes carrying it are killed when it ends. */
  tag?: string;
}

export interface CapturedStream {
  text: string;
  totalBytes: number;
  droppedBytes: number;
}

export interface RunResult {
  /** The process group's id (the shell's pid), when it started. */
  pid?: number;
  /** Exit code, or null when ended by a signal or never started. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: CapturedStream;
  stderr: CapturedStream;
  timedOut: boolean;
  cancelled: boolean;
  /** True when processes the command left running were stopped after it finished. */
  leftoversStopped: boolean;
  /** Why the program could not start (e.g. `spawn python9 ENOENT`). */
  startError?: string;
  durationMs: number;
}

const captured = (output: CappedOutput): CapturedStream => ({ text: output.text(), totalBytes: output.totalBytes, droppedBytes: output.droppedBytes });

/** Runs a program in its own process group and resolves when it and its output are done. Never rejects. */
export function runProcess(options: RunOptions): Promise<RunResult> {
  const now = options.now ?? Date.now;
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const started = now();
  const stdout = new CappedOutput(options.outputLimit ?? DEFAULT_OUTPUT_LIMIT);
  const stderr = new CappedOutput(options.outputLimit ?? DEFAULT_OUTPUT_LIMIT);

  return new Promise((resolve) => {
    let child: ReturnType<Spawn>;
    try {
      child = (options.spawn ?? nodeSpawn)(options.file, [...options.args], {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      // spawn checks some arguments at once (a NUL byte) and throws instead of emitting 'error'.
      resolve({
        exitCode: null,
        signal: null,
        stdout: captured(stdout),
        stderr: captured(stderr),
        timedOut: false,
        cancelled: false,
        leftoversStopped: false,
        startError: (error as Error).message,
        durationMs: now() - started,
      });
      return;
    }
    const pid = child.pid;
    if (pid !== undefined) trackGroup(pid);
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let timedOut = false;
    let cancelled = false;
    let leftoversStopped = false;
    let startError: string | undefined;
    let finished = false;
    const timers: NodeJS.Timeout[] = [];
    const later = (ms: number, action: () => void) => timers.push(setTimeout(action, ms));

    const finish = (): void => {
      if (finished) return;
      finished = true;
      for (const timer of timers) clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      if (pid !== undefined) {
        if (groupAlive(pid)) {
          leftoversStopped = !timedOut && !cancelled;
          void stopGroup(pid, graceMs);
        } else {
          untrackGroup(pid);
        }
      }
      // Processes that left the group (setsid, double forks) still carry the tag.
      if (options.tag !== undefined && releaseTag(options.tag) > 0 && !timedOut && !cancelled) leftoversStopped = true;
      resolve({
        pid,
        exitCode,
        signal: exitSignal,
        stdout: captured(stdout),
        stderr: captured(stderr),
        timedOut,
        cancelled,
        leftoversStopped,
        startError,
        durationMs: now() - started,
      });
    };
    const terminate = (): void => {
      if (pid === undefined) {
        finish();
        return;
      }
      signalGroup(pid, "SIGTERM");
      later(graceMs, () => {
        signalGroup(pid, "SIGKILL");
        // Whatever still holds the output (a process that left the group) no longer delays the result.
        later(500, finish);
      });
    };
    const onAbort = (): void => {
      if (finished || timedOut || cancelled) return;
      cancelled = true;
      terminate();
    };

    const watch = options.onOutput;
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout.push(chunk);
      watch?.(chunk.toString("utf8"));
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr.push(chunk);
      watch?.(chunk.toString("utf8"));
    });
    child.on("error", (error) => {
      startError = error.message;
      finish();
    });
    child.on("exit", (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      later(options.drainMs ?? DEFAULT_DRAIN_MS, finish);
    });
    child.on("close", finish);
    later(options.timeoutMs, () => {
      if (finished || cancelled) return;
      timedOut = true;
      terminate();
    });
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
  });
}
