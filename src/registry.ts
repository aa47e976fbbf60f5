/**
 * The set of protocols a manager knows, looked up by name case-insensitively.
 * Shared code asks the registry; it never names a protocol itself.
 */
import type { ActionDefinition, ProtocolDefinition } from "../protocols/contract/protocol.js";

export class ProtocolRegistry {
  private readonly byName = new Map<string, ProtocolDefinition>();

  constructor(definitions: Iterable<ProtocolDefinition> = []) {
    for (const definition of definitions) this.register(definition);
  }

  register(definition: ProtocolDefinition): void {
    const name = definition.name.toUpperCase();
    if (this.byName.has(name)) throw new Error(`Protocol ${name} is registered twice.`);
    this.byName.set(name, definition);
  }

  /** The protocol named `name` (any case), if registered. */
  get(name: string): ProtocolDefinition | undefined {
    return this.byName.get(name.toUpperCase());
  }

  action(protocol: string, action: string): ActionDefinition | undefined {
    return this.get(protocol)?.actions[action];
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  all(): ProtocolDefinition[] {
    return this.names().map((name) => this.byName.get(name)!);
  }
}

/** True for a value shaped like a protocol definition (a module may export helpers besides it). */
export function isProtocolDefinition(value: unknown): value is ProtocolDefinition {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<ProtocolDefinition>;
  return typeof candidate.name === "string" && typeof candidate.actions === "object" && candidate.actions !== null;
}

/** Builds a registry from the exports of the given modules. */
export function registryFromModules(modules: Iterable<Record<string, unknown>>): ProtocolRegistry {
  const definitions = new Set<ProtocolDefinition>();
  for (const module of modules) {
    for (const value of Object.values(module)) if (isProtocolDefinition(value)) definitions.add(value);
  }
  return new ProtocolRegistry(definitions);
}

/** The protocols that ship with clio: every file in protocols/. */
export async function loadBuiltinProtocols(): Promise<ProtocolRegistry> {
  const { protocolModules } = await import("./generated/protocols.js");
  return registryFromModules(protocolModules);
}
