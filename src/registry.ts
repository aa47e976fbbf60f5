/**
 * The set of protocols a manager knows, looked up by name case-insensitively.
 * Shared code asks the registry; it never names a protocol itself.
 */
import type { ActionDefinition, ProtocolDefinition } from "../protocols/contract/protocol.js";

export class ProtocolRegistry {
  private readonly byName = new Map<string, ProtocolDefinition>();
  /** Per protocol: what discovery left out, or why the protocol cannot be used. */
  private readonly notesByName = new Map<string, { notes: string[]; failure?: string }>();
  private readonly discovering = new Map<string, Promise<void>>();
  /** Per protocol: what its declaration says (it replaced another of the same key). */
  private readonly declarationNotes = new Map<string, string[]>();
  /** Protocols the config declared that were left out, and why. */
  readonly warnings: string[] = [];

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

  /** Whether some protocol learns its actions from outside (`discover`) and has not finished learning them. */
  hasUndiscovered(): boolean {
    for (const [name, definition] of this.byName) if (definition.discover !== undefined && !this.notesByName.has(name)) return true;
    return false;
  }

  /**
   * Lets the protocols whose actions come from outside (`discover`) learn them: those named,
   * or all. Each is discovered once; a failure stays with its protocol (see `notes`). Never rejects.
   */
  async discover(names: Iterable<string> = this.byName.keys()): Promise<void> {
    const pending: Promise<void>[] = [];
    for (const wanted of names) {
      const name = wanted.toUpperCase();
      const definition = this.byName.get(name);
      if (definition?.discover === undefined) continue;
      let discovery = this.discovering.get(name);
      if (discovery === undefined) {
        discovery = definition.discover().then(
          (notes) => void this.notesByName.set(name, { notes }),
          (error: unknown) => void this.notesByName.set(name, { notes: [], failure: error instanceof Error ? error.message : String(error) }),
        );
        this.discovering.set(name, discovery);
      }
      pending.push(discovery);
    }
    await Promise.all(pending);
  }

  /** Adds a note about how a protocol was declared; `notes` shows it before discovery's. */
  noteDeclaration(name: string, note: string): void {
    const key = name.toUpperCase();
    this.declarationNotes.set(key, [...(this.declarationNotes.get(key) ?? []), note]);
  }

  /** What the declaration and discovery said about a protocol: notes, and why it failed if it did. */
  notes(name: string): { notes: string[]; failure?: string } {
    const key = name.toUpperCase();
    const discovered = this.notesByName.get(key) ?? { notes: [] };
    const declared = this.declarationNotes.get(key) ?? [];
    return declared.length === 0 ? discovered : { ...discovered, notes: [...declared, ...discovered.notes] };
  }

  /** Stops what discovery started (MCP servers); a later discovery starts again. Never rejects. */
  async close(): Promise<void> {
    this.discovering.clear();
    await Promise.all(this.all().map((definition) => definition.close?.().catch(() => undefined)));
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
