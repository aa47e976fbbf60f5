/**
 * Turning flags, environment and config files into a ready conversation: the provider, the
 * runtime (workspace, protocols, permissions), the session store and the session to continue.
 */
import { ApplicationError } from "../errors.js";
import { isLoopbackHost } from "../../tools/network/addresses.js";
import { Conversation, readSystemPromptFile } from "../agent/conversation.js";
import type { AgentEvent, Sampling } from "../agent/agent.js";
import { checkRunner, type CheckRunner } from "../agent/checks.js";
import { loadConfig, rememberTrustedFolder, reportProjectTrust, trustQuestion, type ClioConfig, type ResolvedConfig } from "../config/index.js";
import type { ManagerEvent } from "../manager/manager.js";
import type { PermissionAsker } from "../manager/permissions.js";
import { log, logFileFor, logs, startLogging } from "../log.js";
import { createProvider, describeSource, resolveProviderSettings, type CreateProviderOptions, type ProviderSettings } from "../providers/index.js";
import { loggedProvider } from "../providers/logged.js";
import { createRuntime, type Runtime } from "../runtime.js";
import { SessionStore, type Session, type SessionMode } from "../sessions/index.js";

/** The chat flags, as commander hands them over. */
export interface ChatFlags {
  provider?: string;
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  api?: "chat" | "completions";
  permissionMode?: ClioConfig["permissionMode"];
  workspace?: string;
  maxTurns?: number;
  contextWindow?: number;
  /** Seconds to wait for the server's first byte, and for each next chunk. */
  requestTimeout?: number;
  idleTimeout?: number;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stop?: string[];
  systemPromptFile?: string;
  systemPromptMode?: "extend" | "replace";
  continue?: boolean;
  resume?: string;
  /** With continue or resume: go on in a copy of the session under a new id. */
  forkSession?: boolean;
  sessionDir?: string;
  /** A reply script for the scripted provider. */
  script?: string;
  /** Trust the project folder for this run (--trust-project). */
  trustProject?: boolean;
}

export interface ChatSetup {
  config: ResolvedConfig;
  settings: ProviderSettings;
  /** Timeouts every provider of this chat is made with (also after /model). */
  providerOptions: CreateProviderOptions;
  conversation: Conversation;
  runtime: Runtime;
  store: SessionStore;
}

export interface ChatSetupHooks {
  asker?: PermissionAsker;
  onAgentEvent?: (event: AgentEvent) => void;
  onManagerEvent?: (event: ManagerEvent) => void;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * Asks the person (once per folder) whether a project's config may loosen permissions;
   * absent without a terminal, when the loosenings are ignored with a warning.
   */
  confirmTrust?: (question: string) => Promise<boolean>;
  /** Where warnings go (default stderr). */
  warn?: (text: string) => void;
  /** What the session records it was started by (default chat); `--continue` in a chat prefers chats. */
  mode?: SessionMode;
}

export async function loadChatConfig(flags: ChatFlags, env: NodeJS.ProcessEnv, cwd: string): Promise<ResolvedConfig> {
  return loadConfig({
    cwd,
    env,
    ...(flags.trustProject ? { trustProject: true } : {}),
    flags: {
      provider: flags.provider,
      baseUrl: flags.baseUrl,
      apiKey: flags.apiKey,
      model: flags.model,
      api: flags.api,
      permissionMode: flags.permissionMode,
      workspace: flags.workspace,
      maxTurns: flags.maxTurns,
      contextWindow: flags.contextWindow,
      requestTimeout: flags.requestTimeout,
      idleTimeout: flags.idleTimeout,
      temperature: flags.temperature,
      topP: flags.topP,
      maxTokens: flags.maxTokens,
      stop: flags.stop,
      systemPromptFile: flags.systemPromptFile,
      systemPromptMode: flags.systemPromptMode,
      sessionDir: flags.sessionDir,
    },
  });
}

export function providerSettingsFrom(resolved: ResolvedConfig, flags: ChatFlags, env: NodeJS.ProcessEnv): ProviderSettings {
  const { config, sources } = resolved;
  refuseForeignServer(resolved);
  const fromConfig = (key: keyof typeof sources) => sources[key] !== "default" && sources[key] !== "flag";
  return resolveProviderSettings({
    flags: {
      ...(flags.provider ? { provider: flags.provider } : {}),
      ...(flags.model ? { model: flags.model } : {}),
      ...(flags.baseUrl ? { baseURL: flags.baseUrl } : {}),
      ...(flags.api ? { api: flags.api } : {}),
      ...(flags.contextWindow ? { contextWindow: flags.contextWindow } : {}),
      ...(flags.script ? { script: flags.script } : {}),
    },
    env,
    config: {
      ...(config.provider && fromConfig("provider") ? { provider: config.provider } : {}),
      ...(config.model && fromConfig("model") ? { model: config.model } : {}),
      ...(config.baseUrl && fromConfig("baseUrl") ? { baseURL: config.baseUrl } : {}),
      ...(fromConfig("api") ? { api: config.api } : {}),
      ...(config.apiKey ? { apiKey: config.apiKey } : {}),
      ...(config.contextWindow && fromConfig("contextWindow") ? { contextWindow: config.contextWindow } : {}),
    },
  });
}

/**
 * A repository's own `.clio/config.json` must not send the person's API key to a server of the
 * repository's choosing: a project file may name a model server on this machine (a local
 * llama.cpp, Ollama, vLLM) by a loopback address literal or `localhost`, checked as an address
 * after URL parsing (so `http://127.0.0.1.evil.example` is foreign); any other one must come
 * from the person (flag, environment, user config).
 */
function refuseForeignServer(resolved: ResolvedConfig): void {
  const source = resolved.sources.baseUrl;
  const baseUrl = resolved.config.baseUrl;
  if (!source.startsWith("project:") || baseUrl === undefined) return;
  let host: string | undefined;
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    // An unparsable URL is refused below like any other foreign server.
  }
  if (host !== undefined && isLoopbackHost(host)) return;
  throw new ApplicationError(
    "not_configured",
    `The project's own ${source.slice("project:".length)} points clio at ${baseUrl}; clio will not send your API key to a server a repository chose.`,
    `If you trust it, pass --base-url ${baseUrl} yourself (or set CLIO_BASE_URL, or put it in ~/.clio/config.json).`,
  );
}

/**
 * An untrusted folder whose config loosens permissions: the chat asks once (a yes is remembered
 * in the person's config and the config is read again); otherwise the loosenings stay ignored
 * and a warning says how to trust the folder.
 */
async function settleTrust(resolved: ResolvedConfig, flags: ChatFlags, env: NodeJS.ProcessEnv, hooks: ChatSetupHooks): Promise<ResolvedConfig> {
  const warn = hooks.warn ?? ((text: string) => void process.stderr.write(`${text}\n`));
  const project = resolved.project;
  if (project && !project.trusted && project.loosenings.length > 0 && hooks.confirmTrust && (await hooks.confirmTrust(trustQuestion(project)))) {
    await rememberTrustedFolder(resolved.files.user, project.root);
    const again = await loadChatConfig(flags, env, hooks.cwd ?? process.cwd());
    reportProjectTrust(again.project, again.files.user, warn);
    return again;
  }
  reportProjectTrust(project, resolved.files.user, warn);
  return resolved;
}

export async function setUpChat(flags: ChatFlags, hooks: ChatSetupHooks = {}): Promise<ChatSetup> {
  const env = hooks.env ?? process.env;
  const config = await settleTrust(await loadChatConfig(flags, env, hooks.cwd ?? process.cwd()), flags, env, hooks);
  if (config.config.logLevel !== undefined && !logs("error")) startLogging({ level: config.config.logLevel, file: logFileFor(env) });
  const settings = providerSettingsFrom(config, flags, env);
  log.info("settings", {
    provider: settings.provider,
    model: settings.model,
    api: settings.api,
    baseURL: settings.baseURL,
    from: Object.fromEntries(Object.entries(settings.sources).map(([key, source]) => [key, describeSource(source)])),
    files: config.files,
  });
  const providerOptions = providerOptionsFrom(config.config);
  const provider = loggedProvider(await createProvider(settings, { ...providerOptions, env }), settings.baseURL);
  let conversation: Conversation | undefined;
  const runtime = await createRuntime({
    workspace: config.config.workspace,
    permissionMode: config.config.permissionMode,
    rules: config.config.permissions,
    protocolConfig: config.config.protocols,
    extensions: { mcpServers: config.config.mcpServers, shellProtocols: config.config.shellProtocols },
    env,
    ...(hooks.asker ? { asker: hooks.asker } : {}),
    // Every change to files is checkpointed for undo, whoever else listens.
    onEvent: (event) => {
      conversation?.observe(event);
      hooks.onManagerEvent?.(event);
    },
    watchRun: async (run) => conversation?.watchRun(run),
  });
  for (const warning of [...config.warnings, ...runtime.registry.warnings]) {
    log.warn(warning);
    process.stderr.write(`clio: ${warning}\n`);
  }
  // A system prompt file that cannot be read is a usage error now, not a failure at the first prompt.
  if (config.config.systemPromptFile) await readSystemPromptFile(config.config.systemPromptFile);
  const store = new SessionStore(config.config.sessionDir);
  const mode = hooks.mode ?? "chat";
  const session = await sessionToContinue(store, flags, runtime.environment.workspace.root, mode);
  conversation = new Conversation({
    provider,
    runtime,
    store,
    sessionMode: mode,
    ...(session ? { session } : {}),
    maxTurns: config.config.maxTurns,
    contextWindow: config.config.contextWindow ?? settings.contextWindow,
    sampling: samplingFrom(config.config, settings.sampling),
    ...(config.config.systemPromptFile ? { systemPromptFile: { path: config.config.systemPromptFile, mode: config.config.systemPromptMode ?? "extend" } } : {}),
    ...withChecks(checkRunner(config.config.checks, runtime.permissions, runtime.environment.workspace.root)),
    ...(hooks.onAgentEvent ? { onEvent: hooks.onAgentEvent } : {}),
  });
  return { config, settings, providerOptions, conversation, runtime, store };
}

/**
 * The session `--resume` or `--continue` names (in a chat, `--continue` takes the latest chat
 * over a later `-p` run), opened, or copied under a new id with `--fork-session`.
 */
async function sessionToContinue(store: SessionStore, flags: ChatFlags, workspace: string, mode: SessionMode): Promise<Session | undefined> {
  let id = flags.resume;
  if (id === undefined && flags.continue) {
    const latest = await store.latest(workspace, mode === "chat" ? "chat" : undefined);
    if (!latest) {
      throw new ApplicationError(
        "not_found",
        `There is no earlier session for ${workspace} to continue.`,
        "Start a new one without --continue, or list sessions with `clio sessions list`.",
      );
    }
    id = latest.id;
  }
  if (id === undefined) {
    if (!flags.forkSession) return undefined;
    throw new ApplicationError("invalid_argument", "--fork-session copies the session you continue, and none was named.", "Add --continue (-c) or --resume ID.");
  }
  return flags.forkSession ? store.fork(id) : store.open(id);
}

function withChecks(checks: CheckRunner | undefined): { checks?: CheckRunner } {
  return checks ? { checks } : {};
}

/** The timeouts, from seconds in config to the provider's milliseconds. */
export function providerOptionsFrom(config: ClioConfig): CreateProviderOptions {
  return { timeoutMs: Math.round(config.requestTimeout * 1000), idleTimeoutMs: Math.round(config.idleTimeout * 1000) };
}

/** The sampling settings a request carries: each one set by config, environment or a flag, else the preset's. */
export function samplingFrom(config: ClioConfig, presetDefaults: ProviderSettings["sampling"]): Sampling {
  const temperature = config.temperature ?? presetDefaults.temperature;
  const topP = config.topP ?? presetDefaults.topP;
  const maxTokens = config.maxTokens ?? presetDefaults.maxTokens;
  return {
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { topP } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(config.stop?.length ? { stop: config.stop } : {}),
  };
}
