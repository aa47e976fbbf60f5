/**
 * Every protocol a person has: the built-in ones (protocols/), the MCP servers and the shell
 * protocols their config declares. A declared protocol that cannot be made (a bad template, a
 * name clio already uses) is left out with a warning; the others are unaffected.
 */
import { parse } from "../grammar/index.js";
import type { ProtocolDefinition } from "../protocols/contract/protocol.js";
import { ClioError } from "../tools/errors.js";
import type { ClioConfig } from "./config/schema.js";
import { loadBuiltinProtocols, type ProtocolRegistry } from "./registry.js";

export interface ProtocolSources {
  mcpServers?: ClioConfig["mcpServers"];
  shellProtocols?: ClioConfig["shellProtocols"];
  /** Where stdio MCP servers start (the workspace root). */
  cwd: string;
  log?: (level: "debug" | "info" | "warn", message: string) => void;
}

/** The built-in protocols plus those the config declares; `registry.warnings` says what was left out. */
export async function loadProtocols(sources: ProtocolSources): Promise<ProtocolRegistry> {
  const registry = await loadBuiltinProtocols();
  const add = (definition: ProtocolDefinition, what: string, source: string) => {
    if (registry.get(definition.name)) {
      registry.warnings.push(`${source}: ${what} would be the protocol ${definition.name}, which clio already has; it is left out. Rename its key.`);
      return;
    }
    registry.register(definition);
  };
  const shells = Object.entries(sources.shellProtocols ?? {});
  if (shells.length > 0) {
    const { shellProtocol } = await import("../protocols/external/shell.js");
    for (const [name, declared] of shells) {
      try {
        add(shellProtocol(name, declared.config, { source: declared.source }), `the shell protocol ${name}`, declared.source);
      } catch (error) {
        if (!ClioError.is(error)) throw error;
        registry.warnings.push(`${error.message} The shell protocol ${name} is left out.${error.hint ? ` ${error.hint}` : ""}`);
      }
    }
  }
  const servers = Object.entries(sources.mcpServers ?? {}).filter(([, declared]) => declared.config.disabled !== true);
  if (servers.length > 0) {
    const { mcpProtocol } = await import("../protocols/external/mcp.js");
    for (const [key, declared] of servers) {
      const { disabled: _disabled, ...config } = declared.config;
      add(mcpProtocol({ key, config, cwd: sources.cwd, ...(sources.log ? { log: sources.log } : {}) }), `the MCP server ${key}`, declared.source);
    }
  }
  for (const warning of registry.warnings) sources.log?.("warn", warning);
  return registry;
}

/** The protocol names a script's commands use, so discovery starts only the servers it needs. */
export function protocolsNamedIn(text: string): string[] {
  return [...new Set(parse(text).commands.map((command) => command.protocol.toUpperCase()))];
}
