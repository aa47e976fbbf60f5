/**
 * EXEC — running commands in the workspace: to completion (run, script) or in the background
 * (background, output, kill, list).
 *
 * Every command runs under `/bin/sh -c` (scripts under their interpreter) as the leader of its
 * own process group, with stdin closed (a command waiting for input ends at once), in a folder
 * inside the workspace. On timeout or cancel the whole group gets SIGTERM, then SIGKILL a
 * second later. Processes a finished `run` leaves behind (`server &`) are stopped: use
 * `background` for servers and watchers. Background jobs die with clio (dispose, a process
 * exit hook, and on SIGTERM or SIGHUP). A command that exits non-zero is a failed result (`exec_failed`) carrying its
 * exit code and output.
 *
 * Commands and jobs run in a bubblewrap sandbox when `bwrap` is installed (tools/exec/sandbox.ts):
 * only the workspace, the temp folder and `writablePaths` are writable, and nothing they start
 * outlives them (run) or clio (background). Without bwrap, EXEC says so once.
 *
 * Children never see credentials: provider API keys, any variable named like `*_KEY`,
 * `*_TOKEN`, `*_SECRET`, `*_PASSWORD`, connection strings, webhooks, cookies, agent sockets,
 * and any value that looks like one (see tools/exec/environment.ts) are removed;
 * `environment` {include, exclude} adjusts that.
 * Settings (`config.EXEC`): `sandbox` (false turns it off), `writablePaths`, `network`
 * ("allow", default, or "none"), `passEnv` (names to pass anyway), `defaultTimeout` (s, 120),
 * `maxTimeout` (s, 3600), `outputLimit` (bytes kept per stream, 1 MB), `shownLimit`
 * (characters of each stream shown to the model, head and tail, 8000; the capture itself is in
 * the result's data).
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { defineAction, defineProtocol, parameter, withWholeOutput, type ParameterDefinition, type ProtocolEnvironment } from "./contract/protocol.js";
import { loadOnce } from "./contract/load-once.js";
import { ProtocolError } from "./contract/errors.js";
import { makeFolder } from "../tools/clio-folder.js";
import { childEnvironment, commandLine } from "../tools/exec/environment.js";
import type { JobStatus, JobTable, RunResult, Spawn } from "../tools/exec/index.js";
import { trimMiddle } from "../tools/exec/output.js";

/** Running processes and jobs, loaded on the first EXEC command rather than at start-up. */
const loadProcessTools = loadOnce(() => import("../tools/exec/index.js"));

export interface ExecOptions {
  /** The spawn seam (node:child_process spawn). */
  spawn?: Spawn;
  /** How long `background` waits at most for a new job's first output (default 300 ms). */
  startupWaitMs?: number;
}

interface ExecSettings {
  sandbox?: unknown;
  writablePaths?: unknown;
  network?: unknown;
  passEnv?: string[];
  environment?: { include?: string[]; exclude?: string[] };
  defaultTimeout?: number;
  maxTimeout?: number;
  outputLimit?: number;
  shownLimit?: number;
}

/** Whether the missing-bubblewrap notice was given (it is given once per protocol state). */
export interface SandboxNotice {
  /** True once EXEC said that bubblewrap is missing (it says so once). */
  toldNoSandbox?: boolean;
}

export interface ExecState extends SandboxNotice {
  jobs: JobTable;
}

/**
 * How one command is started: the program and arguments (maybe inside bwrap), its environment,
 * its tag (only outside the sandbox, whose PID namespace already ends everything the command
 * started), and a one-time notice.
 */
interface Launch {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  tag?: string;
  notice: string;
}

const NO_SANDBOX_NOTICE =
  "(Note: bubblewrap (bwrap) is not installed, so commands run without the sandbox: they can write anywhere you can, and processes that escape their group are found only by their environment tag. Install the Debian package bubblewrap, or set EXEC.sandbox to false to silence this.)";

/** Wraps `file args` for the sandbox (or not) and gives it a tagged, credential-free environment. */
async function launchFor(environment: ProtocolEnvironment, state: SandboxNotice, file: string, args: string[], folder: string): Promise<Launch> {
  const tools = await loadProcessTools();
  const settings = settingsOf(environment);
  const sandbox = tools.readSandboxSettings(settings);
  const filter = { include: [...(settings.passEnv ?? []), ...(settings.environment?.include ?? [])], exclude: settings.environment?.exclude ?? [] };
  const env = childEnvironment(environment.env, filter);
  const tagged = () => {
    const tag = tools.newTag();
    return { env: { ...env, [tools.TAG_VARIABLE]: tag }, tag };
  };
  if (!sandbox.enabled) return { file, args, ...tagged(), notice: "" };
  if (!tools.bubblewrapAvailable()) {
    const notice = state.toldNoSandbox ? "" : NO_SANDBOX_NOTICE;
    state.toldNoSandbox = true;
    return { file, args, ...tagged(), notice };
  }
  // clio's own folder exists before the command starts, so the sandbox can keep it read-only.
  await makeFolder(path.join(environment.workspace.root, ".clio"));
  return { ...tools.sandboxed(file, args, { workspace: environment.workspace.root, cwd: folder }, sandbox), env, notice: "" };
}

const settingsOf = (environment: ProtocolEnvironment): ExecSettings => (environment.config.EXEC ?? {}) as ExecSettings;
/** Characters of each stream the model reads: stdout and stderr together stay under the manager's 20,000-character cut. */
const DEFAULT_SHOWN_LIMIT = 8_000;
const shownLimitOf = (environment: ProtocolEnvironment) => settingsOf(environment).shownLimit ?? DEFAULT_SHOWN_LIMIT;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const firstLine = (command: string) => {
  const line = command.trim().split("\n")[0]!;
  return line.length > 60 || command.trim().includes("\n") ? `${line.slice(0, 60)}…` : line;
};

const command = parameter.text("A shell command line (run by /bin/sh -c)");
const cwd = parameter.optionalText('Folder to run in, relative to the workspace root (default ".")');
const timeout = parameter.integer("Seconds before the command is stopped (default 120)", { min: 1, max: 86_400 });
const jobId = parameter.word("A background job's id, e.g. job-1", z.string().min(1));
const argumentList: ParameterDefinition<string[] | undefined> = {
  kind: "json",
  description: 'Arguments appended to the command, each shell-quoted: a JSON list of strings, e.g. ["--grep", "two words"]',
  schema: parameter.json("", z.array(z.string(), { invalid_type_error: "expected a JSON list of strings" })).schema.optional(),
};

/** The real folder a command runs in: inside the workspace, and a folder. */
async function workingFolder(environment: ProtocolEnvironment, input: string | undefined): Promise<string> {
  const { real, relative } = await environment.workspace.resolve(input ?? ".", "read");
  const stat = await fs.stat(real).catch(() => undefined);
  if (stat === undefined) throw new ProtocolError("not_found", `The folder ${relative} does not exist.`, "Give cwd as an existing folder relative to the workspace root.");
  if (!stat.isDirectory()) throw new ProtocolError("not_a_directory", `${relative} is a file, not a folder.`, "Give cwd as a folder.");
  return real;
}

/** A command line as the shell gets it; a NUL byte (which no program argument can hold) is refused. */
function shellLine(commandText: string, args?: string[]): string {
  const line = commandLine(commandText, args);
  if (line.includes("\0")) {
    throw new ProtocolError(
      "invalid_argument",
      "The command contains a NUL byte, which no command line can hold.",
      "Remove the \\u0000 from command and args; to produce NUL bytes, use printf '\\0' in the command.",
    );
  }
  return line;
}

function timeoutMs(environment: ProtocolEnvironment, requested: number | undefined): number {
  const settings = settingsOf(environment);
  const limit = settings.maxTimeout ?? 3600;
  if (requested !== undefined && requested > limit) {
    throw new ProtocolError(
      "invalid_argument",
      `timeout ${requested} s is over the limit of ${limit} s.`,
      `Use timeout up to ${limit}, or start long work with EXEC action=background.`,
    );
  }
  return (requested ?? settings.defaultTimeout ?? 120) * 1000;
}

/**
 * The captured output as the model reads it: stdout, then stderr, each trimmed in the middle;
 * and the whole text when anything was trimmed, for the manager to keep.
 */
function shownOutput(result: RunResult, shownLimit: number): { shown: string; whole?: string } {
  const sections = (limit: number) => {
    const parts: string[] = [];
    if (result.stdout.text !== "") parts.push(`--- stdout ---\n${trimMiddle(result.stdout.text, limit).replace(/\n$/, "")}`);
    if (result.stderr.text !== "") parts.push(`--- stderr ---\n${trimMiddle(result.stderr.text, limit).replace(/\n$/, "")}`);
    if (parts.length === 0) parts.push("(no output)");
    if (result.leftoversStopped) parts.push("(The command left processes running; they were stopped. Use EXEC action=background for servers and watchers.)");
    return parts.join("\n");
  };
  const shown = sections(shownLimit);
  const trimmed = result.stdout.text.length > shownLimit || result.stderr.text.length > shownLimit;
  return trimmed ? { shown, whole: sections(Number.POSITIVE_INFINITY) } : { shown };
}

/** Runs a program and turns the outcome into a result, or a ProtocolError carrying the output. */
async function execute(
  context: { environment: ProtocolEnvironment; state: SandboxNotice; signal: AbortSignal; progress?: (text: string) => void },
  spawn: Spawn | undefined,
  label: string,
  file: string,
  args: string[],
  folder: string,
  limitMs: number,
) {
  const { environment, state, signal } = context;
  const settings = settingsOf(environment);
  const { runProcess } = await loadProcessTools();
  const launch = await launchFor(environment, state, file, args, folder);
  const result = await runProcess({
    file: launch.file,
    args: launch.args,
    cwd: folder,
    env: launch.env,
    ...(launch.tag === undefined ? {} : { tag: launch.tag }),
    timeoutMs: limitMs,
    signal,
    outputLimit: settings.outputLimit,
    spawn,
    now: environment.now,
    ...(context.progress ? { onOutput: context.progress } : {}),
  });
  const captured = shownOutput(result, shownLimitOf(environment));
  const shown = `${captured.shown}${launch.notice ? `\n${launch.notice}` : ""}`;
  const whole = captured.whole === undefined ? undefined : `${captured.whole}${launch.notice ? `\n${launch.notice}` : ""}`;
  const failure = (error: ProtocolError) => (whole === undefined ? error : withWholeOutput(error, whole));
  const data = {
    exitCode: result.exitCode,
    signal: result.signal,
    durationMs: result.durationMs,
    stdout: result.stdout,
    stderr: result.stderr,
    leftoversStopped: result.leftoversStopped,
  };
  // Inside the sandbox a missing program is bwrap's failure to exec it.
  const sandboxStartError = launch.file === "bwrap" && result.exitCode === 1 ? /^bwrap: execvp (.*)$/m.exec(result.stderr.text)?.[1] : undefined;
  const startError = result.startError ?? sandboxStartError;
  if (startError !== undefined) {
    throw new ProtocolError("exec_failed", `${label} could not start: ${startError}.`, "Check that the program is installed and on PATH.");
  }
  if (result.timedOut) {
    throw failure(
      new ProtocolError(
        "timeout",
        `${label} timed out after ${seconds(limitMs)}; its whole process group was stopped.\n${shown}`,
        "Give a longer timeout=SECONDS, or start servers and watchers with EXEC action=background.",
      ),
    );
  }
  if (result.cancelled) throw failure(new ProtocolError("cancelled", `${label} was cancelled after ${seconds(result.durationMs)}; its process group was stopped.\n${shown}`));
  if (result.exitCode !== 0) {
    const how = result.exitCode === null ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
    throw failure(new ProtocolError("exec_failed", `${label} ${how} after ${seconds(result.durationMs)}.\n${shown}`));
  }
  const output = `exit code 0 after ${seconds(result.durationMs)}\n${shown}`;
  return {
    output,
    description: `Ran ${label} (exit 0, ${seconds(result.durationMs)})`,
    data,
    ...(whole === undefined ? {} : { wholeOutput: `exit code 0 after ${seconds(result.durationMs)}\n${whole}` }),
  };
}

/**
 * Runs a shell command line in the workspace root exactly as EXEC run does (same environment,
 * timeouts, output limits and containment), for protocols built on EXEC (shell protocols).
 * `timeoutSeconds` is checked against EXEC's limit. Throws ClioError like EXEC run.
 */
export async function runCommandLine(
  environment: ProtocolEnvironment,
  signal: AbortSignal,
  line: string,
  options: { label: string; timeoutSeconds?: number; spawn?: Spawn; notice: SandboxNotice },
) {
  const folder = await workingFolder(environment, undefined);
  return execute(
    { environment, state: options.notice, signal },
    options.spawn,
    options.label,
    "/bin/sh",
    ["-c", shellLine(line)],
    folder,
    timeoutMs(environment, options.timeoutSeconds),
  );
}

function jobLine(status: JobStatus, now: number): string {
  const state = status.running
    ? `running for ${seconds(now - status.startedAt)}`
    : status.startError !== undefined
      ? `failed to start (${status.startError})`
      : status.exitCode === null
        ? `ended by ${status.signal}`
        : `exited with code ${status.exitCode}`;
  return `${status.id} ${state}: ${firstLine(status.command)}`;
}

/** Makes the EXEC protocol over the given spawn seam. */
export function createExecProtocol(options: ExecOptions = {}) {
  return defineProtocol<ExecState>({
    name: "EXEC",
    summary: "Run shell commands and scripts in the workspace (to completion, or as background jobs).",
    aliases: {
      execute_command: { action: "run", parameters: { cmd: "command" }, ignore: ["requires_approval", "task_progress"] },
      run_command: { action: "run", parameters: { cmd: "command", CommandLine: "command" } },
      run_terminal_cmd: { action: "run", parameters: { cmd: "command" } },
      run_shell_command: { action: "run", parameters: { cmd: "command", directory: "cwd", dir_path: "cwd" }, ignore: ["description"] },
      bash: { action: "run", parameters: { cmd: "command" } },
      shell: { action: "run", parameters: { cmd: "command" } },
    },
    setup: async (environment) => {
      const { JobTable } = await loadProcessTools();
      return { jobs: new JobTable({ spawn: options.spawn, now: environment.now }) };
    },
    dispose: (state) => state.jobs.dispose(),
    actions: {
      run: defineAction({
        summary: "Run a shell command to completion (stdin closed, default timeout 120 s); a non-zero exit fails with the exit code and output.",
        permission: "exec",
        parameters: { command, args: argumentList, timeout, cwd },
        describe: (args) => `Running ${firstLine(commandLine(args.command, args.args))} (timeout ${args.timeout ?? 120} s)`,
        async handler(args, context) {
          const line = shellLine(args.command, args.args);
          const folder = await workingFolder(context.environment, args.cwd);
          return execute(context, options.spawn, firstLine(line), "/bin/sh", ["-c", line], folder, timeoutMs(context.environment, args.timeout));
        },
      }),

      script: defineAction({
        summary: "Run a multi-line script (content) with an interpreter (default sh; e.g. bash, python3, node), like run.",
        permission: "exec",
        parameters: {
          content: parameter.text("The script's text"),
          interpreter: parameter.word(
            "The program that runs the script (default sh)",
            z
              .string()
              .regex(/^[A-Za-z0-9_.+/-]+$/, "expected a program name such as python3")
              .optional(),
          ),
          timeout,
          cwd,
        },
        describe: (args) => `Running a ${args.interpreter ?? "sh"} script (${args.content.split("\n").length} lines, timeout ${args.timeout ?? 120} s)`,
        async handler(args, context) {
          const { environment } = context;
          const folder = await workingFolder(environment, args.cwd);
          const limitMs = timeoutMs(environment, args.timeout);
          const interpreter = args.interpreter ?? "sh";
          const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "clio-script-"));
          try {
            const file = path.join(scratch, "script");
            await fs.writeFile(file, args.content, { mode: 0o700 });
            return await execute(context, options.spawn, `${interpreter} script`, interpreter, [file], folder, limitMs);
          } finally {
            await fs.rm(scratch, { recursive: true, force: true });
          }
        },
      }),

      background: defineAction({
        summary: "Start a long-running command (server, watcher) as a background job; returns its id (job-1). It dies when clio exits.",
        permission: "exec",
        parameters: { command, cwd },
        describe: (args) => `Starting ${firstLine(args.command)} in the background`,
        async handler(args, { environment, state }) {
          const line = shellLine(args.command);
          const folder = await workingFolder(environment, args.cwd);
          const launch = await launchFor(environment, state, "/bin/sh", ["-c", line], folder);
          const started = state.jobs.start(line, { cwd: folder, env: launch.env, launch, ...(launch.tag === undefined ? {} : { tag: launch.tag }) });
          // A moment for the first output (or an immediate failure) to show.
          const until = Date.now() + (options.startupWaitMs ?? 300);
          const quiet = () => {
            const job = state.jobs.statusOf(started.id);
            return job.running && job.unreadBytes === 0;
          };
          while (Date.now() < until && quiet()) await new Promise((resolve) => setTimeout(resolve, 20));
          const { status, text } = state.jobs.read(started.id);
          const first = text === "" ? "(no output yet)" : trimMiddle(text, shownLimitOf(environment));
          const output = `${jobLine(status, environment.now())}\n${first}\nRead new output with EXEC action=output id=${status.id}; stop it with action=kill id=${status.id}.${launch.notice ? `\n${launch.notice}` : ""}`;
          return { output, description: `Started ${status.id}: ${firstLine(args.command)}`, data: status };
        },
      }),

      output: defineAction({
        summary: "Show a background job's new output since the last look, and whether it is still running.",
        permission: "read",
        parameters: { id: jobId },
        describe: (args) => `Reading the output of ${args.id}`,
        async handler(args, { environment, state }) {
          const { status, text, droppedBytes } = state.jobs.read(args.id);
          const dropped = droppedBytes > 0 ? `(… ${droppedBytes.toLocaleString("en-US")} older bytes were dropped; look more often.)\n` : "";
          const body = text === "" ? "(no new output)" : trimMiddle(text, shownLimitOf(environment));
          return { output: `${jobLine(status, environment.now())}\n${dropped}${body}`, description: `Read ${args.id} (${status.running ? "running" : "ended"})`, data: status };
        },
      }),

      kill: defineAction({
        summary: "Stop a background job and everything it started (SIGTERM, then SIGKILL).",
        permission: "exec",
        parameters: { id: jobId },
        describe: (args) => `Stopping ${args.id}`,
        async handler(args, { environment, state }) {
          const status = await state.jobs.kill(args.id);
          const { text } = state.jobs.read(args.id);
          const rest = text === "" ? "" : `\n${trimMiddle(text, shownLimitOf(environment))}`;
          return { output: `${jobLine(status, environment.now())}${rest}`, description: `Stopped ${args.id}`, data: status };
        },
      }),

      list: defineAction({
        summary: "List background jobs with their status.",
        permission: "read",
        parameters: {},
        describe: () => "Listing background jobs",
        async handler(_args, { environment, state }) {
          const jobs = state.jobs.list();
          const output = jobs.length === 0 ? "No background jobs." : jobs.map((status) => jobLine(status, environment.now())).join("\n");
          return { output, description: `Listed ${jobs.length} background job${jobs.length === 1 ? "" : "s"}`, data: jobs };
        },
      }),
    },
  });
}

export const execProtocol = createExecProtocol();
