/**
 * Wires an interpreter for one workspace: the registry of protocols, the environment they work
 * in, the permission policy and the manager. Used by replay, chat and the fuzz targets.
 */
import { Workspace } from "../tools/workspace.js";
import { ProtocolManager, type ManagerEvent } from "./manager/manager.js";
import { PermissionPolicy, type PermissionAsker, type PermissionMode, type PermissionRules } from "./manager/permissions.js";
import type { ProtocolEnvironment } from "../protocols/contract/protocol.js";
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
  outputLimit?: number;
  onEvent?: (event: ManagerEvent) => void;
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
  const registry = options.registry ?? (await loadBuiltinProtocols());
  const permissions = new PermissionPolicy(options.permissionMode, options.rules, options.asker);
  const readers = fileReaders(registry);
  const workspace = await Workspace.open(options.workspace, {
    hidden: (relative) => permissions.deniesReading(relative, readers),
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
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
  return { manager, registry, environment, permissions };
}
