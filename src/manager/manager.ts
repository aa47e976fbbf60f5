/**
 * The ProtocolManager: parsed commands become checked, permitted, described, executed actions
 * whose results are data. It is the one catch boundary: a handler that throws becomes an error
 * result, never a crash.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Command, SyntaxError as GrammarSyntaxError } from "../../grammar/ast.js";
import { ClioError } from "../../grammar/errors.js";
import { renderHint } from "../../protocols/contract/hints.js";
import { ToolError } from "../../tools/errors.js";
import type { ResultError } from "../errors.js";
import { makeFolder } from "../../tools/clio-folder.js";
import type { CheckedPaths } from "../../tools/workspace.js";
import {
  wholeOutputOf,
  type ActionDefinition,
  type ActionOutput,
  type PermissionClass,
  type PlannedChange,
  type ProtocolDefinition,
  type ProtocolEnvironment,
} from "../../protocols/contract/protocol.js";
import type { ProtocolRegistry } from "../registry.js";
import { checkCommand, type CheckResult, type Invocation } from "./check.js";
import { checkPaths, permissionSubject } from "./path-forms.js";
import type { PermissionPolicy, PermissionVerdict } from "./permissions.js";
import type { CommandResult } from "./result.js";
import { CommandScheduler, HeldStream, runsAlone } from "./scheduler.js";

export type ManagerEvent =
  | { type: "command-started"; id: number; protocol: string; action: string; permissionClass: PermissionClass; description: string }
  /** Just before an action that changes files runs: their text now and after, for checkpoints. */
  | { type: "files-changing"; id: number; protocol: string; action: string; changes: PlannedChange[] }
  /** Output of a running command as it comes, for a person watching. */
  | { type: "command-output"; id: number; text: string }
  | { type: "command-finished"; id: number; result: CommandResult };

export interface ManagerOptions {
  registry: ProtocolRegistry;
  environment: ProtocolEnvironment;
  permissions: PermissionPolicy;
  /** Characters of output the model reads per command before it is cut (default 20,000). */
  outputLimit?: number;
  /** Where cut outputs are kept whole, relative to the workspace (default `.clio/outputs`). */
  outputFolder?: string;
  /** Read-only commands running at once (default 4). */
  concurrency?: number;
  onEvent?: (event: ManagerEvent) => void;
  /**
   * Called (and awaited) just before an allowed action runs; the function it returns, just after
   * (before command-finished). Undo uses it to see what a shell command changed.
   */
  watchRun?: RunWatcher;
}

/** See `ManagerOptions.watchRun`. */
export type RunWatcher = (run: { protocol: string; action: string; permissionClass: PermissionClass }) => Promise<(() => Promise<void>) | undefined>;

/**
 * Something to run: a command to check and run (with its check result when the caller already
 * has it), or a syntax error to report in its place.
 */
export type Submission = { command: Command; checked?: CheckResult } | { syntaxError: GrammarSyntaxError };

/** One streaming reply's commands (see `ProtocolManager.replyCommands`). */
export interface ReplyCommands {
  /** A command (or syntax error) whose text just arrived. */
  add(submission: Submission): void;
  /** The reply ended whole: held commands start in order, each as `vet` returns it (a refusal, say). */
  release(vet?: (submission: Submission) => Submission): void;
  /** The results of every command started, in order. */
  results(): Promise<CommandResult[]>;
  /** Resolves when every started command has finished (held ones never start). */
  settled(): Promise<void>;
  /** Milliseconds each start took, from arrival to being handed to the scheduler. */
  dispatchDelays: number[];
}

export class ProtocolManager {
  private readonly scheduler: CommandScheduler;
  private readonly states = new Map<ProtocolDefinition, Promise<unknown>>();
  private nextId = 1;

  constructor(private readonly options: ManagerOptions) {
    this.scheduler = new CommandScheduler(options.concurrency ?? 4, options.environment.workspace);
  }

  get registry(): ProtocolRegistry {
    return this.options.registry;
  }

  check(command: Command): CheckResult {
    return checkCommand(command, this.options.registry);
  }

  /** The permission class of a checked invocation. */
  permissionClassOf(invocation: Invocation): PermissionClass {
    const permission = invocation.definition.permission;
    return typeof permission === "function" ? permission(invocation.args) : permission;
  }

  /**
   * The commands of one streaming reply, ordered by the scheduler's rules (`HeldStream`): read-only
   * ones start as they arrive, everything from the first that must run alone waits for `release`.
   */
  replyCommands(signal: AbortSignal): ReplyCommands {
    const started: Promise<CommandResult>[] = [];
    const dispatchDelays: number[] = [];
    const stream = new HeldStream<Submission>((submission) => {
      const arrived = performance.now();
      started.push(this.submit(submission, signal));
      dispatchDelays.push(performance.now() - arrived);
    });
    return {
      add: (submission) => stream.add(submission, () => this.mustHold(submission)),
      release: (vet) => stream.release(vet),
      results: () => Promise.all(started),
      settled: async () => {
        await Promise.allSettled(started);
      },
      dispatchDelays,
    };
  }

  /**
   * True for a submission that must run alone. A command is checked here, once (the check is kept
   * on the submission for `submit`); one whose class cannot be told is held like a write.
   */
  private mustHold(submission: Submission): boolean {
    if ("syntaxError" in submission) return false;
    submission.checked ??= this.check(submission.command);
    if (!submission.checked.ok) return false;
    const { invocation } = submission.checked;
    try {
      return runsAlone(this.permissionClassOf(invocation), invocation.definition.exclusive);
    } catch {
      return true;
    }
  }

  /**
   * Checks and runs one command under the ordering rules, resolving to its result.
   * Never rejects.
   */
  submit(submission: Submission, signal: AbortSignal = new AbortController().signal): Promise<CommandResult> {
    const id = this.nextId++;
    if ("syntaxError" in submission) {
      const { syntaxError } = submission;
      return Promise.resolve(
        this.failed(
          id,
          syntaxError.protocol?.toUpperCase() ?? "SYNTAX",
          null,
          null,
          syntaxError.hint === undefined ? { code: "syntax_error", message: syntaxError.message } : { code: "syntax_error", message: syntaxError.message, hint: syntaxError.hint },
          syntaxError.span.start,
        ),
      );
    }
    const checked = submission.checked ?? this.check(submission.command);
    const start = submission.command.span.start;
    if (!checked.ok) {
      return Promise.resolve(this.failed(id, checked.protocol, checked.action ?? null, null, checked.error, start));
    }
    const { invocation } = checked;
    let permissionClass: PermissionClass;
    try {
      permissionClass = this.permissionClassOf(invocation);
    } catch (error) {
      return Promise.resolve(this.failed(id, invocation.protocol, invocation.action, null, toErrorData(error), start));
    }
    return this.scheduler.schedule(runsAlone(permissionClass, invocation.definition.exclusive), () => this.run(id, invocation, permissionClass, signal));
  }

  /** Runs commands in order, returning their results in the same order. */
  async runAll(submissions: Submission[], signal?: AbortSignal): Promise<CommandResult[]> {
    return Promise.all(submissions.map((submission) => this.submit(submission, signal)));
  }

  /** What the protocols contribute to the system prompt for `prompt`; a failing one adds nothing. */
  async promptContext(prompt: string, tokenBudget = 600): Promise<string[]> {
    const contributors = this.options.registry.all().filter((definition) => definition.promptContext);
    const parts = await Promise.all(
      contributors.map(async (definition) => {
        try {
          return await definition.promptContext!(await this.stateOf(definition), prompt, Math.floor(tokenBudget / contributors.length));
        } catch {
          return [];
        }
      }),
    );
    return parts.flat();
  }

  /** Releases every protocol's state (kills background jobs) and stops what discovery started (MCP servers). */
  async dispose(): Promise<void> {
    const entries = [...this.states.entries()];
    this.states.clear();
    await Promise.all([
      this.options.registry.close(),
      ...entries.map(async ([definition, state]) => {
        try {
          await definition.dispose?.(await state);
        } catch {
          // A protocol that fails to clean up must not keep the others from cleaning up.
        }
      }),
    ]);
  }

  private async run(id: number, invocation: Invocation, permissionClass: PermissionClass, signal: AbortSignal): Promise<CommandResult> {
    const { protocol, action, definition } = invocation;
    const start = invocation.command.span.start;
    const description = safeDescribe(definition, invocation);
    const cancelled = () =>
      this.failed(id, protocol, action, permissionClass, { code: "cancelled", message: `${protocol}.${action} was cancelled before it started.` }, start, description);
    // A command whose turn was cancelled while it waited is not put to the person.
    if (signal.aborted) return cancelled();
    // Paths are resolved once: the permission rules judge these, and the action uses them.
    const checkedPaths = await checkPaths(definition, invocation.decoded, this.options.environment.workspace);
    const preview = await this.previewOf(invocation, checkedPaths, signal);
    // An action that cannot work (a replace whose text is not there) fails without a question.
    if (preview && "error" in preview) return { ...this.failed(id, protocol, action, permissionClass, preview.error, start, description), args: invocation.decoded };
    const verdict = await this.options.permissions
      .decide({
        protocol,
        action,
        permissionClass,
        description,
        ...(await permissionSubject(definition, invocation.decoded, {
          workspace: this.options.environment.workspace,
          permissions: this.options.permissions,
          protocol,
          action,
          permissionClass,
          checked: checkedPaths,
        })),
        ...(preview ? { changes: preview.changes } : {}),
      })
      .catch(
        (error: unknown): PermissionVerdict => ({
          allowed: false,
          error: {
            code: "permission_denied",
            message: `${protocol}.${action} was refused: asking for permission failed (${error instanceof Error ? error.message : String(error)}).`,
            hint: "Nothing ran. Try again, or ask the person to allow it in their permission rules.",
          },
        }),
      );
    if (!verdict.allowed) return { ...this.failed(id, protocol, action, permissionClass, verdict.error, start, description), args: invocation.decoded };
    if (signal.aborted) return cancelled();
    // A question may have stood for minutes: the files are looked at again just before the change.
    const again = verdict.asked ? await this.previewOf(invocation, checkedPaths, signal) : preview;
    const changes = again && "changes" in again ? again.changes : undefined;
    if (changes?.length) this.emit({ type: "files-changing", id, protocol, action, changes });
    this.emit({ type: "command-started", id, protocol, action, permissionClass, description });
    const watched = await this.watch({ protocol, action, permissionClass });
    const began = performance.now();
    let result: CommandResult;
    try {
      const state = await this.stateOf(invocation.protocolDefinition);
      const progress = (text: string) => this.emit({ type: "command-output", id, text });
      const output: unknown = await definition.handler(invocation.args, { state, environment: this.options.environment, signal, progress, checkedPaths });
      if (!isActionOutput(output)) {
        throw new Error(`${protocol}.${action} returned ${describeValue(output)} instead of { output: text } (a fault in the protocol)`);
      }
      const base: CommandResult = {
        id,
        ok: true,
        protocol,
        action,
        args: invocation.decoded,
        permissionClass,
        description: output.description ?? description,
        output: output.output,
        durationMs: 0,
        truncated: false,
        line: start.line,
        column: start.column,
      };
      if (output.data !== undefined) base.data = output.data;
      if (Array.isArray(output.display) && output.display.every((line) => typeof line === "string")) base.display = output.display;
      result = await this.limitOutput(base, output.wholeOutput);
    } catch (error) {
      result = this.result(id, protocol, action, permissionClass, actionErrorData(error, invocation), start, description);
      result.args = invocation.decoded;
      const whole = wholeOutputOf(error);
      if (whole !== undefined && result.error) {
        const kept = await this.keepWhole(result.id, whole);
        if (kept) result.fullOutputPath = kept;
        result.error = { ...result.error, message: `${result.error.message}\n${shortenedNote(whole.length, kept, this.options.outputFolder)}` };
      }
    }
    result.durationMs = Math.round((performance.now() - began) * 10) / 10;
    await watched?.().catch(() => undefined);
    this.emit({ type: "command-finished", id, result });
    return result;
  }

  /** The watcher's after-function for this run; a watcher that fails watches nothing (the action still runs). */
  private async watch(run: Parameters<RunWatcher>[0]): Promise<(() => Promise<void>) | undefined> {
    try {
      return await this.options.watchRun?.(run);
    } catch {
      return undefined;
    }
  }

  /**
   * What the action would change; the error when the preview found the action cannot work;
   * undefined when it declares no preview or the preview itself broke (the handler decides then).
   */
  private async previewOf(invocation: Invocation, checkedPaths: CheckedPaths, signal: AbortSignal): Promise<{ changes: PlannedChange[] } | { error: ResultError } | undefined> {
    const preview = invocation.definition.preview;
    if (!preview) return undefined;
    try {
      const state = await this.stateOf(invocation.protocolDefinition);
      return { changes: await preview(invocation.args, { state, environment: this.options.environment, signal, checkedPaths }) };
    } catch (error) {
      return ClioError.isInstance(error) && error.code !== "internal_error" ? { error: actionErrorData(error, invocation) } : undefined;
    }
  }

  private stateOf(definition: ProtocolDefinition): Promise<unknown> {
    let state = this.states.get(definition);
    if (!state) {
      state = Promise.resolve(definition.setup ? definition.setup(this.options.environment) : undefined);
      this.states.set(definition, state);
      // A failed setup is retried on the next command rather than cached.
      state.catch(() => this.states.delete(definition));
    }
    return state;
  }

  /**
   * Cuts an output past the limit; the whole text (or the `whole` the action shortened itself)
   * is kept in a file the model can read in pieces.
   */
  private async limitOutput(result: CommandResult, whole?: string): Promise<CommandResult> {
    const limit = this.options.outputLimit ?? 20_000;
    if (result.output.length <= limit) {
      if (whole === undefined || whole.length <= result.output.length) return result;
      const kept = await this.keepWhole(result.id, whole);
      if (kept) result.fullOutputPath = kept;
      result.output = `${result.output}\n${shortenedNote(whole.length, kept, this.options.outputFolder)}`;
      result.truncated = true;
      return result;
    }
    const text = whole !== undefined && whole.length > result.output.length ? whole : result.output;
    const kept = await this.keepWhole(result.id, text);
    if (kept) result.fullOutputPath = kept;
    const note = kept
      ? `[output cut at ${limit.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters; the whole output is in ${kept} — read it in pieces with a line offset and limit]`
      : `[output cut at ${limit.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters; the rest could not be kept in ${this.options.outputFolder ?? ".clio/outputs"} — ask for a smaller part (a line range, a narrower search)]`;
    // Never cut between the two halves of a surrogate pair (an emoji): a lone half is not valid text.
    const end = /[\uD800-\uDBFF]/.test(result.output[limit - 1] ?? "") ? limit - 1 : limit;
    result.output = `${result.output.slice(0, end)}\n${note}`;
    result.truncated = true;
    return result;
  }

  /** Keeps a whole output under the outputs folder; its workspace-relative path, or undefined when it cannot be kept. */
  private async keepWhole(id: number, text: string): Promise<string | undefined> {
    const folder = this.options.outputFolder ?? ".clio/outputs";
    const name = `${new Date(this.options.environment.now()).toISOString().replace(/[:.]/g, "-")}-${id}.txt`;
    const relative = path.posix.join(folder, name);
    try {
      if (!this.options.environment.workspace.mayKeepState()) throw new Error("plan mode writes nothing in the workspace");
      // Kept only where the folder really lies inside the workspace (.clio may be a symlink):
      // resolving throws for a path that leads outside.
      const { real } = await this.options.environment.workspace.resolve(relative);
      await makeFolder(path.dirname(real));
      await fs.writeFile(real, text, { flag: "wx" });
      await pruneKeptOutputs(path.dirname(real), path.basename(real));
      return relative;
    } catch {
      return undefined;
    }
  }

  private failed(...details: Parameters<ProtocolManager["result"]>): CommandResult {
    const result = this.result(...details);
    this.emit({ type: "command-finished", id: result.id, result });
    return result;
  }

  private result(
    id: number,
    protocol: string,
    action: string | null,
    permissionClass: PermissionClass | null,
    error: ResultError,
    start: { line: number; column: number },
    description?: string,
  ): CommandResult {
    return {
      id,
      ok: false,
      protocol,
      action,
      permissionClass,
      description: description ?? (action ? `${protocol}.${action}` : protocol),
      output: "",
      error,
      durationMs: 0,
      truncated: false,
      line: start.line,
      column: start.column,
    };
  }

  private emit(event: ManagerEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // A failing listener must not turn a finished command into a crash.
    }
  }
}

function safeDescribe(definition: ActionDefinition, invocation: Invocation): string {
  try {
    return definition.describe(invocation.args);
  } catch {
    return `${invocation.protocol}.${invocation.action}`;
  }
}

function isActionOutput(value: unknown): value is ActionOutput {
  return typeof value === "object" && value !== null && typeof (value as { output?: unknown }).output === "string";
}

function describeValue(value: unknown): string {
  if (value === null || typeof value !== "object") return String(value);
  const output = (value as { output?: unknown }).output;
  return output === undefined ? "an object without output" : `an output of type ${typeof output}`;
}

/** The note under an output the action shortened in the middle. */
function shortenedNote(length: number, kept: string | undefined, folder = ".clio/outputs"): string {
  return kept
    ? `[the output above is shortened; the whole output (${length.toLocaleString("en-US")} characters) is in ${kept} — read it with FILE_OP action=read and a line offset and limit]`
    : `[the output above is shortened; the whole output could not be kept in ${folder}]`;
}

/** Whole outputs kept beside the cut ones; older ones are removed as new ones come. */
export const KEPT_OUTPUTS = 100;
const KEPT_OUTPUT_NAME = /^(\d{4}-\d{2}-\d{2}T[\d-]+Z)-(\d+)\.txt$/;

/**
 * Removes all but the newest KEPT_OUTPUTS whole outputs, ordered by the time and result id in
 * their names; the one just written (`keep`) always stays, even if the clock went back.
 */
async function pruneKeptOutputs(folder: string, keep: string): Promise<void> {
  try {
    const kept = (await fs.readdir(folder))
      .map((name) => ({ name, match: KEPT_OUTPUT_NAME.exec(name) }))
      .filter((entry): entry is { name: string; match: RegExpExecArray } => entry.match !== null && entry.name !== keep)
      .sort((left, right) => left.match[1]!.localeCompare(right.match[1]!) || Number(left.match[2]) - Number(right.match[2]));
    const excess = kept.length + 1 - KEPT_OUTPUTS;
    await Promise.all(kept.slice(0, Math.max(0, excess)).map(({ name }) => fs.rm(path.join(folder, name), { force: true })));
  } catch {
    // Pruning is housekeeping: a folder that cannot be listed keeps its files.
  }
}

/** What an action threw, as error data: its hint written in the language of the protocol that ran. */
function actionErrorData(error: unknown, invocation: Invocation): ResultError {
  if (ClioError.isInstance(error)) error.caller ??= `${invocation.protocol}.${invocation.action}`;
  const data = toErrorData(error);
  if (ToolError.isInstance(error) && error.hintParts) data.hint = renderHint(invocation.protocolDefinition, error.hintParts);
  return data;
}

/** Any thrown value as error data: typed tool errors keep their code, anything else is internal. */
export function toErrorData(error: unknown): ResultError {
  // Every layer's error class narrows its code to that layer's share of ErrorCode.
  if (ClioError.isInstance(error)) return error.toData() as ResultError;
  if (error instanceof Error && error.name === "AbortError") return { code: "cancelled", message: "The command was cancelled." };
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: "internal_error",
    message: `The command failed unexpectedly: ${message}`,
    hint: "This is a fault in clio or the tool, not in how the command was written; try another way or report it.",
  };
}
