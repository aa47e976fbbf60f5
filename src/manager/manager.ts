/**
 * The ProtocolManager: parsed commands become checked, permitted, described, executed actions
 * whose results are data. It is the one catch boundary: a handler that throws becomes an error
 * result, never a crash.
 */
import type { Command, SyntaxError as GrammarSyntaxError } from "../../grammar/ast.js";
import { ClioError } from "../../grammar/errors.js";
import {
  wholeOutputOf,
  type ActionOutput,
  type PermissionClass,
  type PlannedChange,
  type ProtocolDefinition,
  type ProtocolEnvironment,
} from "../../protocols/contract/protocol.js";
import type { CheckedPaths } from "../../tools/workspace.js";
import type { ResultError } from "../errors.js";
import type { ProtocolRegistry } from "../registry.js";
import { actionErrorData, failureResult, safeDescribe, successResult, toErrorData } from "./action-results.js";
import { checkCommand, type CheckResult, type Invocation } from "./check.js";
import { OutputKeeper } from "./kept-outputs.js";
import { checkPaths, permissionSubject, type PermissionSubject } from "./path-forms.js";
import type { PermissionPolicy, PermissionRequest, PermissionVerdict } from "./permissions.js";
import type { CommandResult } from "./result.js";
import { CommandScheduler, HeldStream, runsAlone } from "./scheduler.js";

/** What the manager tells its listener (`ManagerOptions.onEvent`) as commands start, change files, print and finish. */
export type ManagerEvent =
  | { type: "command-started"; id: number; protocol: string; action: string; permissionClass: PermissionClass; description: string }
  /** Just before an action that changes files runs: their text now and after, for checkpoints. */
  | { type: "files-changing"; id: number; protocol: string; action: string; changes: PlannedChange[] }
  /** Output of a running command as it comes, for a person watching. */
  | { type: "command-output"; id: number; text: string }
  | { type: "command-finished"; id: number; result: CommandResult };

/** What a manager works with: the protocols, their environment, the permission policy and its limits. */
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

/** Checks, schedules, permits and runs commands; see the file's header. */
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

  /** Checks a command against the registry: an invocation ready to run, or the error. */
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
    const description = safeDescribe(definition, invocation);
    // A command whose turn was cancelled while it waited is not put to the person.
    if (signal.aborted) return this.cancelled(id, invocation, permissionClass, description);
    // Paths are resolved once: the permission rules judge these, and the action uses them.
    const checking = checkPaths(definition, invocation.decoded, this.options.environment.workspace);
    const checkedPaths = checking instanceof Promise ? await checking : checking;
    const preview = definition.preview ? await this.previewOf(invocation, checkedPaths, signal) : undefined;
    // An action that cannot work (a replace whose text is not there) fails without a question.
    if (preview && "error" in preview) return this.refused(id, invocation, permissionClass, description, preview.error);
    const deciding = this.decide(invocation, permissionClass, description, checkedPaths, preview?.changes);
    const verdict = deciding instanceof Promise ? await deciding : deciding;
    if (!verdict.allowed) return this.refused(id, invocation, permissionClass, description, verdict.error);
    if (signal.aborted) return this.cancelled(id, invocation, permissionClass, description);
    // A question may have stood for minutes: the files are looked at again just before the change.
    const again = verdict.asked && definition.preview ? await this.previewOf(invocation, checkedPaths, signal) : preview;
    const changes = again && "changes" in again ? again.changes : undefined;
    if (changes?.length) this.emit({ type: "files-changing", id, protocol, action, changes });
    this.emit({ type: "command-started", id, protocol, action, permissionClass, description });
    // Awaited, not returned: an async function that returns a promise takes two more turns of the queue.
    return await this.execute(id, invocation, permissionClass, description, checkedPaths, signal);
  }

  /** The result of a command refused before it ran (a failed preview, the permission policy). */
  private refused(id: number, invocation: Invocation, permissionClass: PermissionClass, description: string, error: ResultError): CommandResult {
    const start = invocation.command.span.start;
    return { ...this.failed(id, invocation.protocol, invocation.action, permissionClass, error, start, description), args: invocation.decoded };
  }

  /** The result of a command whose turn was cancelled before it started. */
  private cancelled(id: number, invocation: Invocation, permissionClass: PermissionClass, description: string): CommandResult {
    const { protocol, action } = invocation;
    const error: ResultError = { code: "cancelled", message: `${protocol}.${action} was cancelled before it started.` };
    return this.failed(id, protocol, action, permissionClass, error, invocation.command.span.start, description);
  }

  /** Asks the permission policy (at once when it needs no question); a policy that fails refuses (nothing runs). */
  private decide(
    invocation: Invocation,
    permissionClass: PermissionClass,
    description: string,
    checkedPaths: CheckedPaths,
    changes: PlannedChange[] | undefined,
  ): PermissionVerdict | Promise<PermissionVerdict> {
    const { protocol, action, definition } = invocation;
    const { workspace } = this.options.environment;
    const found = permissionSubject(definition, invocation.decoded, {
      workspace,
      permissions: this.options.permissions,
      protocol,
      action,
      permissionClass,
      checked: checkedPaths,
    });
    if (found instanceof Promise) return found.then((paths) => this.verdictOn(permissionRequest(invocation, permissionClass, description, paths, changes)));
    return this.verdictOn(permissionRequest(invocation, permissionClass, description, found, changes));
  }

  /** The policy's verdict on `request`: at once when no question is needed, else the question's promise. */
  private verdictOn(request: PermissionRequest): PermissionVerdict | Promise<PermissionVerdict> {
    const { permissions } = this.options;
    try {
      const atOnce = permissions.decideWithoutAsking(request);
      if (atOnce !== undefined) return atOnce;
    } catch (error) {
      return askingFailed(request, error);
    }
    return permissions.decide(request).catch((error: unknown) => askingFailed(request, error));
  }

  private outputKeeper: OutputKeeper | undefined;

  /** Cuts outputs past the limit and keeps them whole (made on first use). */
  private get outputs(): OutputKeeper {
    const { environment, outputLimit, outputFolder } = this.options;
    this.outputKeeper ??= new OutputKeeper({ environment, outputLimit, outputFolder });
    return this.outputKeeper;
  }

  /** Runs an allowed action's handler: its result (cut to the limit), or what it threw as an error result. */
  private async execute(
    id: number,
    invocation: Invocation,
    permissionClass: PermissionClass,
    description: string,
    checkedPaths: CheckedPaths,
    signal: AbortSignal,
  ): Promise<CommandResult> {
    const { protocol, action, definition } = invocation;
    const watched = this.options.watchRun ? await this.watch({ protocol, action, permissionClass }) : undefined;
    const began = performance.now();
    let result: CommandResult;
    try {
      const state = await this.stateOf(invocation.protocolDefinition);
      // Bound, not a closure: a closure per command costs more where names are kept (tsx, tests).
      const progress = this.emitOutput.bind(this, id);
      const output: unknown = await definition.handler(invocation.args, { state, environment: this.options.environment, signal, progress, checkedPaths });
      const succeeded = successResult(id, invocation, permissionClass, description, output);
      const { wholeOutput } = output as ActionOutput;
      result = this.outputs.needsLimit(succeeded, wholeOutput) ? await this.outputs.limit(succeeded, wholeOutput) : succeeded;
    } catch (error) {
      result = failureResult(id, protocol, action, permissionClass, actionErrorData(error, invocation), invocation.command.span.start, description);
      result.args = invocation.decoded;
      const whole = wholeOutputOf(error);
      if (whole !== undefined) await this.outputs.keepForError(result, whole);
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

  private failed(...details: Parameters<typeof failureResult>): CommandResult {
    const result = failureResult(...details);
    this.emit({ type: "command-finished", id: result.id, result });
    return result;
  }

  /** Tells the listener of output that command `id` printed as it ran. */
  private emitOutput(id: number, text: string): void {
    this.emit({ type: "command-output", id, text });
  }

  private emit(event: ManagerEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // A failing listener must not turn a finished command into a crash.
    }
  }
}

/** What the permission policy is asked: the command, what rules match of it (`paths`), and the changes it would make. */
function permissionRequest(
  { protocol, action }: Invocation,
  permissionClass: PermissionClass,
  description: string,
  paths: PermissionSubject,
  changes: PlannedChange[] | undefined,
): PermissionRequest {
  const request: PermissionRequest = { protocol, action, permissionClass, description };
  if (paths.subject !== undefined) request.subject = paths.subject;
  if (paths.subjectIsPath !== undefined) request.subjectIsPath = paths.subjectIsPath;
  if (paths.pathForms !== undefined) request.pathForms = paths.pathForms;
  if (changes) request.changes = changes;
  return request;
}

/** The refusal when asking for permission failed: nothing runs. */
function askingFailed({ protocol, action }: PermissionRequest, error: unknown): PermissionVerdict {
  return {
    allowed: false,
    error: {
      code: "permission_denied",
      message: `${protocol}.${action} was refused: asking for permission failed (${error instanceof Error ? error.message : String(error)}).`,
      hint: "Nothing ran. Try again, or ask the person to allow it in their permission rules.",
    },
  };
}
