/**
 * The config keys that bring protocols from outside: `mcpServers` (the shape Claude Code and
 * Claude Desktop use, plus `url` for streamable-HTTP servers and clio's timeouts) and
 * `shellProtocols` (command templates). Both start programs, so a project's own config (and its
 * `.mcp.json`) may declare them only in a folder the person trusted (trust.ts).
 */
import { z } from "zod";
import type { ShellParameterKind, ShellProtocolConfig } from "../../protocols/external/shell.js";
import type { McpServerConfig } from "../../tools/mcp/connection.js";

const seconds = z.number({ invalid_type_error: "must be a number of seconds" }).positive("must be above 0").max(86_400, "must be at most 86400 (a day)");
const stringMap = z.record(z.string(), z.string({ invalid_type_error: "must be a string" }));

export const mcpServerSchema = z
  .object({
    type: z.enum(["stdio", "http", "streamable-http"]).optional(),
    command: z.string().min(1, "must not be empty").optional(),
    args: z.array(z.string({ invalid_type_error: "must be a string" })).optional(),
    env: stringMap.optional(),
    cwd: z.string().min(1).optional(),
    url: z.string().url("must be a URL such as http://127.0.0.1:3000/mcp").optional(),
    headers: stringMap.optional(),
    startTimeout: seconds.optional(),
    callTimeout: seconds.optional(),
    disabled: z.boolean().optional(),
  })
  .strict()
  .refine((server) => (server.command === undefined) !== (server.url === undefined), {
    message: "needs either command (a program to start) or url (a streamable-HTTP server), not both",
  });

/** The kinds a shell protocol's parameter may have (the list shell.ts reads). */
const shellParameterKinds = ["text", "word", "integer", "number", "boolean", "json"] as const satisfies readonly ShellParameterKind[];

const shellParameter = z.union([
  z.enum(shellParameterKinds),
  z.object({ kind: z.enum(shellParameterKinds), description: z.string().optional(), optional: z.boolean().optional() }).strict(),
]);

export const shellProtocolSchema = z
  .object({
    summary: z.string().min(1, "must not be empty"),
    actions: z.record(
      z.string(),
      z
        .object({
          summary: z.string().min(1, "must not be empty"),
          command: z.string().min(1, "must not be empty"),
          parameters: z.record(z.string(), shellParameter).optional(),
          timeout: seconds.optional(),
        })
        .strict(),
    ),
  })
  .strict();

export const extensionKeys = {
  mcpServers: z.record(z.string(), mcpServerSchema),
  shellProtocols: z.record(z.string(), shellProtocolSchema),
};

/** A server with where it was declared. */
export interface DeclaredServer {
  config: McpServerConfig & { disabled?: boolean };
  source: string;
  /** Where a declaration of the same key was replaced by this one (a lower layer), lowest first. */
  replaces?: string[];
}

export interface DeclaredShellProtocol {
  config: ShellProtocolConfig;
  source: string;
  /** Where a declaration of the same name was replaced by this one, lowest first. */
  replaces?: string[];
}

export interface Extensions {
  mcpServers: Record<string, DeclaredServer>;
  shellProtocols: Record<string, DeclaredShellProtocol>;
}

/** One layer's extension keys as read. */
export interface ExtensionLayer {
  mcpServers?: Record<string, z.infer<typeof mcpServerSchema>>;
  shellProtocols?: Record<string, z.infer<typeof shellProtocolSchema>>;
}

/**
 * Adds a layer's servers and shell protocols. A later (more local) layer replaces an entry of
 * the same key whole, as Claude Code's scopes do, and the entry remembers what it replaced.
 */
export function mergeExtensions(into: Extensions, layer: ExtensionLayer, source: string): void {
  const replaced = (earlier: { source: string; replaces?: string[] } | undefined) =>
    earlier === undefined || earlier.source === source ? {} : { replaces: [...(earlier.replaces ?? []), earlier.source] };
  for (const [key, server] of Object.entries(layer.mcpServers ?? {})) {
    const { type: _type, ...config } = server;
    into.mcpServers[key] = { config, source, ...replaced(into.mcpServers[key]) };
  }
  for (const [name, protocol] of Object.entries(layer.shellProtocols ?? {})) into.shellProtocols[name] = { config: protocol, source, ...replaced(into.shellProtocols[name]) };
}
