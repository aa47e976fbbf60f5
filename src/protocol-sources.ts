/**
 * Every protocol a person has: the built-in ones (protocols/), the MCP servers and the shell
 * protocols their config declares. A declared protocol that cannot be made (a bad template, a
 * name clio already uses) is left out with a warning; the others are unaffected.
 */
import { parse } from "../grammar/index.js";
import type { ProtocolDefinition } from "../protocols/contract/protocol.js";
import type { ClioConfig } from "./config/schema.js";
import { loadBuiltinProtocols, type ProtocolRegistry } from "./registry.js";

export interface ProtocolSources {
  mcpServers?: ClioConfig["mcpServers"];
  shellProtocols?: ClioConfig["shellProtocols"];
  /** Where stdio MCP servers start (the workspace root). */
  cwd: string;
  /** Variables `${NAME}` in a server's command, args, env, url and headers expand from; default process.env. */
  env?: NodeJS.ProcessEnv;
  log?: (level: "debug" | "info" | "warn", message: string) => void;
}

/** The built-in protocols plus those the config declares; `registry.warnings` says what was left out. */
export async function loadProtocols(sources: ProtocolSources): Promise<ProtocolRegistry> {
  const registry = await loadBuiltinProtocols();
  const add = (definition: ProtocolDefinition, what: string, declared: { source: string; replaces?: string[] }) => {
    if (registry.get(definition.name)) {
      registry.warnings.push(`${declared.source}: ${what} would be the protocol ${definition.name}, which clio already has; it is left out. Rename its key.`);
      return;
    }
    registry.register(definition);
    for (const replaced of declared.replaces ?? []) {
      registry.noteDeclaration(definition.name, `${what} from ${sourceFile(declared.source)} replaces the one in ${sourceFile(replaced)} (the more local file wins).`);
    }
  };
  const shells = Object.entries(sources.shellProtocols ?? {});
  if (shells.length > 0) {
    const { shellProtocol } = await import("../protocols/external/shell.js");
    for (const [name, declared] of shells) {
      const made = shellProtocol(name, declared.config, { source: declared.source });
      if (made.ok) add(made.protocol, `the shell protocol ${name}`, declared);
      else registry.warnings.push(`${made.message} The shell protocol ${name} is left out. ${made.hint}`);
    }
  }
  const servers = Object.entries(sources.mcpServers ?? {}).filter(([, declared]) => declared.config.disabled !== true);
  if (servers.length > 0) {
    const { mcpProtocol } = await import("../protocols/external/mcp.js");
    for (const [key, declared] of servers) {
      const { disabled: _disabled, ...written } = declared.config;
      const expanded = expandVariables(written, sources.env ?? process.env);
      if (expanded.missing.length > 0) {
        registry.warnings.push(
          `${declared.source}: the MCP server ${key} uses ${expanded.missing.map((name) => `\${${name}}`).join(", ")}, which ${expanded.missing.length === 1 ? "is" : "are"} not set; it is left out. Set ${expanded.missing.length === 1 ? "it" : "them"}, or write \${NAME:-default}.`,
        );
        continue;
      }
      const config = expanded.value;
      add(mcpProtocol({ key, config, cwd: sources.cwd, ...(sources.log ? { log: sources.log } : {}) }), `the MCP server ${key}`, declared);
    }
  }
  for (const warning of registry.warnings) sources.log?.("warn", warning);
  return registry;
}

/** A config source (`user:/home/me/.clio/config.json`) as the file it names. */
function sourceFile(source: string): string {
  return source.replace(/^(user|project):/, "");
}

/**
 * Names a call in another dialect (§4a) may give its protocol by, found without a vocabulary
 * (before discovery the servers' tools are unknown). `withAction`: the name may end in an action
 * (`TEST.add`, `TEST_add`): a `<function=…>`, a JSON `"name"`, a function call at a line's start.
 * The others name the protocol alone: an element's tag, the word or two after a `[` that is not
 * this language's own start (`[TEST action=…`, `[MY SERVER:`).
 */
const DIALECT_NAMES: readonly { pattern: RegExp; withAction: boolean }[] = [
  { pattern: /<function=([A-Za-z][\w.-]*)/g, withAction: true },
  { pattern: /"name"\s*:\s*"([A-Za-z][\w.-]*)"/g, withAction: true },
  { pattern: /^[ \t]*[[［]?([A-Za-z][\w.-]*)\(/gm, withAction: true },
  { pattern: /<([A-Za-z]\w*)>/g, withAction: false },
  { pattern: /[[［][ \t]*([A-Za-z]\w*(?:[ \t]+[A-Za-z]\w*)?)[ \t]*[\s.|,:：{(]/g, withAction: false },
];

/** A name as written in a call (`TEST.add`, `MY SERVER`) as protocol names: with an action, each part before a `.` or `_` too. */
function protocolCandidates(written: string, withAction: boolean): string[] {
  // As protocolNameFor makes a server's protocol name: `my-server` is MY_SERVER.
  const name = written
    .toUpperCase()
    .replace(/[ \t]+/g, "_")
    .replace(/[^A-Z0-9_.]/g, "_");
  const found: string[] = [];
  for (let at = 0; at <= name.length; at++) {
    if (at === name.length || (withAction && (name[at] === "." || name[at] === "_"))) {
      const head = name.slice(0, at);
      if (/^[A-Z][A-Z0-9_]*$/.test(head)) found.push(head);
    }
  }
  return found;
}

/**
 * The protocol names a script uses, so discovery starts only the servers it needs: those of its
 * commands, and every name a dialect-shaped call may mean (`<tool_call>{"name": "TEST.add"…`
 * gives TEST and TEST_ADD). Without the servers' tools this is a superset, read from the text
 * as written (inert regions too): a name that is no protocol starts nothing, and one only
 * mentioned starts a server the configuration declares anyway.
 */
export function protocolsNamedIn(text: string): string[] {
  const names = new Set(parse(text).commands.map((command) => command.protocol.toUpperCase()));
  for (const { pattern, withAction } of DIALECT_NAMES) {
    for (const match of text.matchAll(pattern)) {
      for (const candidate of protocolCandidates(match[1]!, withAction)) names.add(candidate);
    }
  }
  return [...names];
}

/**
 * Lets the protocols a script names learn their actions before it runs. The script is read for
 * names (a whole parse) only when some protocol still has actions to learn: with the built-in
 * protocols alone, a replay parses its script once, not twice.
 */
export async function discoverProtocolsOf(registry: ProtocolRegistry, text: string): Promise<void> {
  if (registry.hasUndiscovered()) await registry.discover(protocolsNamedIn(text));
}

/**
 * `${NAME}` and `${NAME:-default}` in every string of a server's declaration, as Claude Code's
 * `.mcp.json` allows, so a secret can stay in the environment rather than the config file.
 */
export function expandVariables<Value>(value: Value, env: NodeJS.ProcessEnv): { value: Value; missing: string[] } {
  const missing = new Set<string>();
  const expand = (item: unknown): unknown => {
    if (typeof item === "string") {
      return item.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, name: string, fallback: string | undefined) => {
        const found = env[name];
        if (found !== undefined && found !== "") return found;
        if (fallback !== undefined) return fallback;
        missing.add(name);
        return "";
      });
    }
    if (Array.isArray(item)) return item.map(expand);
    if (typeof item === "object" && item !== null) return Object.fromEntries(Object.entries(item).map(([key, entry]) => [key, expand(entry)]));
    return item;
  };
  return { value: expand(value) as Value, missing: [...missing] };
}
