/**
 * Wires an interpreter for one workspace: the registry of protocols, the environment they work
 * in, the permission policy and the manager. Used by replay, chat and the fuzz targets.
 */
import path from "node:path";
import { Workspace } from "../tools/workspace.js";
import { ProtocolManager, type ManagerEvent, type RunWatcher } from "./manager/manager.js";
import { PermissionPolicy, type PermissionAsker, type PermissionMode, type PermissionRules } from "./manager/permissions.js";
import type { ProtocolEnvironment } from "../protocols/contract/protocol.js";
import type { ClioConfig } from "./config/schema.js";
import { log, logs } from "./log.js";
import { loadProtocols } from "./protocol-sources.js";
import { loadBuiltinProtocols, type ProtocolRegistry } from "./registry.js";
import { version } from "./version.js";

export interface RuntimeOptions {
  workspace: string;
  permissionMode: PermissionMode;
  rules?: PermissionRules;
  asker?: PermissionAsker;
  /** Per-protocol settings, keyed by protocol name. */
  protocolConfig?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  registry?: ProtocolRegistry;
  /** MCP servers and shell protocols from config, added to the built-in protocols (unless `registry` is given). */
  extensions?: Partial<Pick<ClioConfig, "mcpServers" | "shellProtocols">>;
  outputLimit?: number;
  onEvent?: (event: ManagerEvent) => void;
  watchRun?: RunWatcher;
}

export interface Runtime {
  manager: ProtocolManager;
  registry: ProtocolRegistry;
  environment: ProtocolEnvironment;
  permissions: PermissionPolicy;
}

/** The actions that read one file by path (their first parameter is a path): deny rules on them hide paths everywhere. */
function fileReaders(registry: ProtocolRegistry): { protocol: string; action: string }[] {
  const readers: { protocol: string; action: string }[] = [];
  for (const protocol of registry.all()) {
    for (const [action, definition] of Object.entries(protocol.actions)) {
      const first = Object.values(definition.parameters)[0];
      if (definition.permission === "read" && first?.path === true) readers.push({ protocol: protocol.name, action });
    }
  }
  return readers;
}

export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const registry =
    options.registry ??
    (options.extensions
      ? await loadProtocols({ ...options.extensions, cwd: path.resolve(options.workspace), env: options.env ?? process.env, log: (level, message) => log[level](message) })
      : await loadBuiltinProtocols());
  const permissions = new PermissionPolicy(options.permissionMode, options.rules, options.asker);
  const readers = fileReaders(registry);
  const workspace = await Workspace.open(options.workspace, {
    // Without deny rules nothing is hidden, and the code index, walks and listings need not ask of every path.
    ...(permissions.mayDenyReading ? { hidden: (relative: string) => permissions.deniesReading(relative, readers) } : {}),
    // Plan mode writes nothing in the workspace, clio's own state included.
    mayKeepState: () => permissions.mode !== "plan",
  });
  const environment: ProtocolEnvironment = {
    workspace,
    config: options.protocolConfig ?? {},
    env: options.env ?? process.env,
    now: options.now ?? Date.now,
    userAgent: `clio/${version}`,
  };
  const manager = new ProtocolManager({
    registry,
    environment,
    permissions,
    ...(options.outputLimit === undefined ? {} : { outputLimit: options.outputLimit }),
    ...(options.watchRun ? { watchRun: options.watchRun } : {}),
    onEvent: (event) => {
      logEvent(event);
      options.onEvent?.(event);
    },
  });
  return { manager, registry, environment, permissions };
}

/** Each command's start and outcome in the log (decisions and timings; never file contents). */
function logEvent(event: ManagerEvent): void {
  if (event.type === "command-started") {
    if (!logs("debug")) return;
    log.debug("command started", { id: event.id, command: `${event.protocol}.${event.action}`, permission: event.permissionClass, description: event.description });
    return;
  }
  if (event.type !== "command-finished") return;
  const { result } = event;
  // Only what will be written is put together (a replay finishes thousands of commands).
  if (!logs(result.ok ? "info" : "warn")) return;
  const fields = {
    id: result.id,
    command: `${result.protocol}.${result.action ?? ""}`,
    ok: result.ok,
    ms: result.durationMs,
    ...(result.error ? { error: result.error.code, message: result.error.message.split("\n")[0] } : {}),
  };
  if (result.ok) log.info("command finished", fields);
  else log.warn("command failed", fields);
}
