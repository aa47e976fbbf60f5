/**
 * The ProtocolManager: parsed commands become checked, permitted, described, executed actions
 * whose results are data. It is the one catch boundary: a handler that throws becomes an error
 * result, never a crash.
 */
import type { Command } from "../../grammar/ast.js";
import { ClioError } from "../../grammar/errors.js";
import { wholeOutputOf, type ActionOutput, type PermissionClass, type PlannedChange, type ProtocolDefinition } from "../../protocols/contract/protocol.js";
import type { CheckedPaths } from "../../tools/workspace.js";
import type { ResultError } from "../errors.js";
import type { ProtocolRegistry } from "../registry.js";
import { actionErrorData, failureResult, safeDescribe, successResult, toErrorData } from "./action-results.js";
import { checkCommand, type CheckResult, type Invocation } from "./check.js";
import { OutputKeeper } from "./kept-outputs.js";
import type { ManagerEvent, ManagerOptions, ReplyCommands, RunWatcher, Submission } from "./manager-types.js";
import { checkPaths } from "./path-forms.js";
import type { PermissionVerdict } from "./permissions.js";
import type { CommandResult } from "./result.js";
import { CommandScheduler, HeldStream, runsAlone } from "./scheduler.js";
import { verdictFor } from "./verdict.js";

export type { ManagerEvent, ManagerOptions, ReplyCommands, RunWatcher, Submission } from "./manager-types.js";

/** Checks, schedules, permits and runs commands; see the file's header. */
export class ProtocolManager {
  private readonly scheduler: CommandScheduler;
  private readonly states = new Map<ProtocolDefinition, Promise<unknown>>();
  /** The states of `states` that are set up, by protocol: what a command that runs at once is given. */
  private readonly readyStates = new Map<ProtocolDefinition, unknown>();
  /** Protocols `prepareFor` has let begin their work. */
  private readonly prepared = new Set<ProtocolDefinition>();
  private nextId = 1;

  constructor(private readonly options: ManagerOptions) {
    this.scheduler = new CommandScheduler(options.concurrency ?? 4, options.environment.workspace);
  }

  get registry(): ProtocolRegistry {
    return this.options.registry;
  }

  /**
   * Lets each protocol with a `prepare` whose name `text` holds begin that work, once per manager;
   * resolves once it has begun. A replay awaits it before its script's first command is parsed (a
   * one-off search's change check starts that much sooner). A name that is only mentioned costs a
   * needless read, never a command; a protocol a deny rule refuses outright is not prepared.
   */
  async prepareFor(text: string): Promise<void> {
    const begun: Promise<void>[] = [];
    for (const definition of this.options.registry.all()) {
      const prepare = definition.prepare;
      if (prepare === undefined || this.prepared.has(definition) || !text.includes(definition.name)) continue;
      // A protocol whose every action a deny rule refuses is left alone.
      if (Object.keys(definition.actions).every((action) => this.options.permissions.refusesAll(definition.name, action))) continue;
      this.prepared.add(definition);
      begun.push(this.stateOf(definition).then((state) => prepare.call(definition, state, this.options.environment)));
    }
    await Promise.all(begun.map((work) => work.catch(() => undefined)));
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
    const result = this.submitAtOnce(submission, signal);
    return result instanceof Promise ? result : Promise.resolve(result);
  }

  /**
   * `submit`, whose result comes at once (not as a promise) when the command could run to its end
   * in this call: a refusal, or a read that found a slot free, nothing running alone before it,
   * and a handler that gave its output at once. Its events are told in this call then.
   */
  submitAtOnce(submission: Submission, signal: AbortSignal = new AbortController().signal): CommandResult | Promise<CommandResult> {
    const id = this.nextId++;
    if ("syntaxError" in submission) {
      const { syntaxError } = submission;
      return this.failed(
        id,
        syntaxError.protocol?.toUpperCase() ?? "SYNTAX",
        null,
        null,
        syntaxError.hint === undefined ? { code: "syntax_error", message: syntaxError.message } : { code: "syntax_error", message: syntaxError.message, hint: syntaxError.hint },
        syntaxError.span.start,
      );
    }
    const checked = submission.checked ?? this.check(submission.command);
    const start = submission.command.span.start;
    if (!checked.ok) return this.failed(id, checked.protocol, checked.action ?? null, null, checked.error, start);
    const { invocation } = checked;
    let permissionClass: PermissionClass;
    try {
      permissionClass = this.permissionClassOf(invocation);
    } catch (error) {
      return this.failed(id, invocation.protocol, invocation.action, null, toErrorData(error), start);
    }
    return this.scheduler.scheduleAtOnce(runsAlone(permissionClass, invocation.definition.exclusive), () => this.run(id, invocation, permissionClass, signal));
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
    this.readyStates.clear();
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

  /** Checks a command's paths, asks for permission and runs it: at once when no step has to wait (no preview, no question). */
  private run(id: number, invocation: Invocation, permissionClass: PermissionClass, signal: AbortSignal): CommandResult | Promise<CommandResult> {
    const { definition } = invocation;
    const command: CommandRun = { id, invocation, permissionClass, description: safeDescribe(definition, invocation), signal };
    // A command whose turn was cancelled while it waited is not put to the person.
    if (signal.aborted) return this.cancelled(command);
    // Paths are resolved once: the permission rules judge these, and the action uses them.
    const checking = checkPaths(definition, invocation.decoded, this.options.environment.workspace);
    if (checking instanceof Promise || definition.preview) return this.runLater(command, checking);
    const verdict = this.decide(command, checking, undefined);
    if (verdict instanceof Promise) return this.runLater(command, checking, verdict);
    if (!verdict.allowed) return this.refused(command, verdict.error);
    if (signal.aborted) return this.cancelled(command);
    return this.start(command, checking, undefined);
  }

  /** `run` from where a step has to wait: the paths' check, the preview, or the permission verdict (`deciding`, when asked already). */
  private async runLater(command: CommandRun, checking: CheckedPaths | Promise<CheckedPaths>, deciding?: Promise<PermissionVerdict>): Promise<CommandResult> {
    const { invocation, signal } = command;
    const { definition } = invocation;
    const checkedPaths = await checking;
    const preview = definition.preview ? await this.previewOf(invocation, checkedPaths, signal) : undefined;
    // An action that cannot work (a replace whose text is not there) fails without a question.
    if (preview && "error" in preview) return this.refused(command, preview.error);
    const verdict = await (deciding ?? this.decide(command, checkedPaths, preview?.changes));
    if (!verdict.allowed) return this.refused(command, verdict.error);
    if (signal.aborted) return this.cancelled(command);
    // A question may have stood for minutes: the files are looked at again just before the change.
    const again = verdict.asked && definition.preview ? await this.previewOf(invocation, checkedPaths, signal) : preview;
    const changes = again && "changes" in again ? again.changes : undefined;
    // Awaited, not returned: an async function that returns a promise takes two more turns of the queue.
    return await this.start(command, checkedPaths, changes);
  }

  /** Tells the listener an allowed command starts (and the files it will change), then runs it. */
  private start(command: CommandRun, checkedPaths: CheckedPaths, changes: PlannedChange[] | undefined): CommandResult | Promise<CommandResult> {
    const { id, invocation, permissionClass, description } = command;
    const { protocol, action } = invocation;
    if (changes?.length) this.emit({ type: "files-changing", id, protocol, action, changes });
    this.emit({ type: "command-started", id, protocol, action, permissionClass, description });
    return this.execute(command, checkedPaths);
  }

  /** The result of a command refused before it ran (a failed preview, the permission policy). */
  private refused({ id, invocation, permissionClass, description }: CommandRun, error: ResultError): CommandResult {
    const start = invocation.command.span.start;
    return { ...this.failed(id, invocation.protocol, invocation.action, permissionClass, error, start, description), args: invocation.decoded };
  }

  /** The result of a command whose turn was cancelled before it started. */
  private cancelled({ id, invocation, permissionClass, description }: CommandRun): CommandResult {
    const { protocol, action } = invocation;
    const error: ResultError = { code: "cancelled", message: `${protocol}.${action} was cancelled before it started.` };
    return this.failed(id, protocol, action, permissionClass, error, invocation.command.span.start, description);
  }

  /** Asks the permission policy (at once when it needs no question); a policy that fails refuses (nothing runs). */
  private decide(
    { invocation, permissionClass, description }: CommandRun,
    checkedPaths: CheckedPaths,
    changes: PlannedChange[] | undefined,
  ): PermissionVerdict | Promise<PermissionVerdict> {
    const { permissions, environment } = this.options;
    return verdictFor(permissions, environment.workspace, { invocation, permissionClass, description, checkedPaths, changes });
  }

  private outputKeeper: OutputKeeper | undefined;

  /** Cuts outputs past the limit and keeps them whole (made on first use). */
  private get outputs(): OutputKeeper {
    const { environment, outputLimit, outputFolder } = this.options;
    this.outputKeeper ??= new OutputKeeper({ environment, outputLimit, outputFolder });
    return this.outputKeeper;
  }

  /**
   * Runs an allowed action's handler: its result (cut to the limit), or what it threw as an error
   * result. At once when nothing has to wait: no run watcher, the protocol's state set up, and a
   * handler that gives its output at once.
   */
  private execute(command: CommandRun, checkedPaths: CheckedPaths): CommandResult | Promise<CommandResult> {
    const definition = command.invocation.protocolDefinition;
    if (this.options.watchRun !== undefined || !this.readyStates.has(definition)) return this.executeLater(command, checkedPaths);
    const began = performance.now();
    const outcome = this.outcomeOf(command, this.readyStates.get(definition), checkedPaths);
    if (outcome instanceof Promise) return outcome.then((result) => this.finished(command.id, result, elapsedSince(began)));
    return this.finished(command.id, outcome, elapsedSince(began));
  }

  /** `execute` with a run watcher told before and after, or a protocol state still to set up. */
  private async executeLater(command: CommandRun, checkedPaths: CheckedPaths): Promise<CommandResult> {
    const { protocol, action, protocolDefinition } = command.invocation;
    const watched = this.options.watchRun ? await this.watch({ protocol, action, permissionClass: command.permissionClass }) : undefined;
    const began = performance.now();
    let result: CommandResult;
    try {
      result = await this.outcomeOf(command, await this.stateOf(protocolDefinition), checkedPaths);
    } catch (error) {
      // The protocol's state could not be set up (what the handler gives is already a result).
      result = await this.failedRun(command, error);
    }
    const durationMs = elapsedSince(began);
    await watched?.().catch(() => undefined);
    return this.finished(command.id, result, durationMs);
  }

  /** What the handler gave, as a result (cut to the limit), or what it threw as an error result; at once when it gave its output at once. */
  private outcomeOf(command: CommandRun, state: unknown, checkedPaths: CheckedPaths): CommandResult | Promise<CommandResult> {
    const { id, invocation, signal } = command;
    let output: unknown;
    try {
      // Bound, not a closure: a closure per command costs more where names are kept (tsx, tests).
      const progress = this.emitOutput.bind(this, id);
      output = invocation.definition.handler(invocation.args, { state, environment: this.options.environment, signal, progress, checkedPaths });
      if (!(output instanceof Promise)) {
        const result = this.succeeded(command, output);
        return result instanceof Promise ? result.catch((error: unknown) => this.failedRun(command, error)) : result;
      }
    } catch (error) {
      return this.failedRun(command, error);
    }
    return output.then((given: unknown) => this.succeeded(command, given)).catch((error: unknown) => this.failedRun(command, error));
  }

  /** A handler's output as a result, cut to the limit (then as a promise, which rejects when keeping the whole fails). */
  private succeeded({ id, invocation, permissionClass, description }: CommandRun, output: unknown): CommandResult | Promise<CommandResult> {
    const result = successResult(id, invocation, permissionClass, description, output);
    const { wholeOutput } = output as ActionOutput;
    return this.outputs.needsLimit(result, wholeOutput) ? this.outputs.limit(result, wholeOutput) : result;
  }

  /** What a failed run gives: the error as a result, with a shortened error output kept whole. */
  private failedRun({ id, invocation, permissionClass, description }: CommandRun, error: unknown): CommandResult | Promise<CommandResult> {
    const { protocol, action } = invocation;
    const result = failureResult(id, protocol, action, permissionClass, actionErrorData(error, invocation), invocation.command.span.start, description);
    result.args = invocation.decoded;
    const whole = wholeOutputOf(error);
    return whole === undefined ? result : this.outputs.keepForError(result, whole).then(() => result);
  }

  /** A run's result with its duration, told to the listener. */
  private finished(id: number, result: CommandResult, durationMs: number): CommandResult {
    result.durationMs = durationMs;
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
      const made = Promise.resolve(definition.setup ? definition.setup(this.options.environment) : undefined);
      state = made;
      this.states.set(definition, made);
      // Once set up, the state is at hand for commands that run at once; a failed setup is retried on the next command rather than cached.
      made.then(
        (ready) => {
          if (this.states.get(definition) === made) this.readyStates.set(definition, ready);
        },
        () => this.states.delete(definition),
      );
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

/** One command on its way through `run`: what every step of it reads. */
interface CommandRun {
  id: number;
  invocation: Invocation;
  permissionClass: PermissionClass;
  description: string;
  signal: AbortSignal;
}

/** Milliseconds since `began` (a `performance.now()`), to a tenth. */
function elapsedSince(began: number): number {
  return Math.round((performance.now() - began) * 10) / 10;
}
