/**
 * A conversation: one agent bound to a provider, a runtime and a session, with the operations
 * the terminal's slash commands need (switch model or mode, clear, resume). Both the chat and
 * the one-shot `-p` mode drive it.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ApplicationError } from "../errors.js";
import type { ModelProvider } from "../providers/types.js";
import type { Runtime } from "../runtime.js";
import type { Session, SessionMode, SessionStore } from "../sessions/index.js";
import type { ManagerEvent } from "../manager/manager.js";
import type { PermissionClass } from "../../protocols/contract/protocol.js";
import { Agent, type AgentEvent, type PromptOutcome, type Sampling } from "./agent.js";
import { Checkpoints } from "./checkpoints.js";
import type { CheckRunner } from "./checks.js";
import { readInstructions } from "./context-files.js";
import { sessionHistory, sessionRecorder } from "./session-recorder.js";
import { buildSystemPrompt } from "./system-prompt.js";

export interface ConversationOptions {
  provider: ModelProvider;
  runtime: Runtime;
  store?: SessionStore;
  /** A session to continue; otherwise one is made at the first prompt. */
  session?: Session;
  /** What a session made here records it was started by. */
  sessionMode?: SessionMode;
  maxTurns: number;
  contextWindow?: number;
  sampling?: Sampling;
  /** Checks run after the model changes files. */
  checks?: CheckRunner;
  /** The person's own system prompt: read at every prompt, it extends or replaces the built-in one. */
  systemPromptFile?: { path: string; mode: "extend" | "replace" };
  /** Lines relevant to a prompt for the system prompt; default: what the protocols contribute (memories). */
  memories?: (prompt: string) => Promise<string[]>;
  onEvent?: (event: AgentEvent) => void;
}

export class Conversation {
  provider: ModelProvider;
  session: Session | undefined;
  /** Undo for the files this session changed; opened with the session. */
  checkpoints: Checkpoints | undefined;
  private agent: Agent;

  constructor(private readonly options: ConversationOptions) {
    this.provider = options.provider;
    this.session = options.session;
    this.agent = this.makeAgent();
  }

  /** The configured checks, if any. */
  get checks(): CheckRunner | undefined {
    return this.options.checks;
  }

  get history() {
    return this.agent.history;
  }

  get usage(): { inputTokens: number; outputTokens: number } {
    return { inputTokens: this.agent.totalInputTokens, outputTokens: this.agent.totalOutputTokens };
  }

  async prompt(text: string, signal?: AbortSignal): Promise<PromptOutcome> {
    await this.beginCheckpoint(text);
    try {
      return await this.agent.prompt(text, signal);
    } finally {
      await this.checkpoints?.flush();
    }
  }

  /** Summarises the older turns into one message now; how many messages it replaced. */
  compact(signal: AbortSignal): Promise<number> {
    return this.agent.compact(signal);
  }

  /** Adds what the person did themselves (a `!command` and its output) to the conversation. */
  async addContext(content: string): Promise<void> {
    await this.start();
    await this.agent.addContext(content);
  }

  /** Starts a checkpoint for what comes next (a prompt, or a command the person typed). */
  async beginCheckpoint(label: string): Promise<void> {
    await this.start();
    (await this.openCheckpoints())?.begin(label);
  }

  /** The session's checkpoints (read from beside the session file on first use); none before a session exists. */
  async openCheckpoints(): Promise<Checkpoints | undefined> {
    if (!this.checkpoints && this.session) this.checkpoints = await Checkpoints.open(this.session.file, this.options.runtime.environment.workspace);
    return this.checkpoints;
  }

  /** A command the person runs (`!cmd`): a checkpoint of its own, watched for the files it changes; call the result when it ends. */
  async watchOwnCommand(label: string): Promise<() => Promise<void>> {
    await this.beginCheckpoint(label);
    return (await (await this.openCheckpoints())?.watch()) ?? (async () => undefined);
  }

  /** Before an action runs: the checkpoints watch what a shell command changes. */
  async watchRun(run: { permissionClass: PermissionClass }): Promise<(() => Promise<void>) | undefined> {
    return (await this.openCheckpoints())?.watchRun(run.permissionClass);
  }

  /** The manager's events, for the checkpoints. */
  observe(event: ManagerEvent): void {
    this.checkpoints?.observe(event);
  }

  /** Makes the session now (it is otherwise made at the first prompt), so its id can be told. */
  async start(): Promise<void> {
    if (this.session || !this.options.store) return;
    this.session = await this.options.store.create({
      workspace: this.options.runtime.environment.workspace.root,
      provider: this.provider.name,
      model: this.provider.model,
      ...(this.options.sessionMode ? { mode: this.options.sessionMode } : {}),
    });
    this.agent = this.makeAgent();
  }

  /** Uses another model from now on (the history stays). */
  async switchProvider(provider: ModelProvider): Promise<void> {
    this.provider = provider;
    await this.session?.setModel(provider.name, provider.model);
    this.agent = this.makeAgent();
  }

  /** Starts afresh: an empty history in a new session. */
  async clear(): Promise<void> {
    await this.session?.close();
    this.session = undefined;
    this.checkpoints = undefined;
    this.agent = this.makeAgent([]);
  }

  /** Continues a recorded session (closing the current one). */
  async resume(session: Session): Promise<void> {
    await this.session?.close();
    this.session = session;
    this.checkpoints = undefined;
    this.agent = this.makeAgent();
  }

  /**
   * Goes on in a copy of the current session (its records and checkpoints under a new id); the
   * original stays as it is now. The id of the original, or undefined when no session has started.
   */
  async fork(store: SessionStore): Promise<string | undefined> {
    if (!this.session) return undefined;
    await this.checkpoints?.flush();
    const original = this.session.id;
    await this.resume(await store.fork(original));
    return original;
  }

  async close(): Promise<void> {
    await this.session?.close();
  }

  private makeAgent(history = this.session ? sessionHistory(this.session) : (this.agent?.history ?? [])): Agent {
    const { runtime } = this.options;
    const root = runtime.environment.workspace.root;
    return new Agent({
      provider: this.provider,
      manager: runtime.manager,
      maxTurns: this.options.maxTurns,
      ...(this.options.sampling ? { sampling: this.options.sampling } : {}),
      ...(this.options.checks ? { checks: this.options.checks } : {}),
      ...(this.options.contextWindow ? { contextWindow: this.options.contextWindow } : {}),
      history,
      ...(this.session ? { recorder: sessionRecorder(this.session) } : {}),
      ...(this.options.onEvent ? { onEvent: this.options.onEvent } : {}),
      systemPrompt: async (prompt) => {
        const own = this.options.systemPromptFile;
        const ownText = own ? await readSystemPromptFile(own.path) : undefined;
        if (own?.mode === "replace" && ownText !== undefined) return ownText;
        // Protocols from outside (MCP servers) learn their actions before the model reads them.
        await runtime.registry.discover();
        const built = buildSystemPrompt({
          registry: runtime.registry,
          workspaceName: path.basename(root),
          offers: (protocol, action) => !runtime.permissions.refusesAll(protocol, action),
          instructions: await readInstructions(root),
          memories: await (this.options.memories ?? ((text: string) => runtime.manager.promptContext(text)))(prompt).catch(() => []),
        });
        return ownText === undefined ? built : `${built}\n\n## The person's own instructions\n${ownText.trim()}`;
      },
    });
  }
}

/** The person's system prompt file; a file that cannot be read is a clear error, not a silent default. */
export async function readSystemPromptFile(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new ApplicationError(
      "not_found",
      `The system prompt file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
      "Fix systemPromptFile (or --system-prompt-file), or remove it to use the built-in prompt.",
    );
  }
}
