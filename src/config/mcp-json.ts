/**
 * A project's `.mcp.json`, the file Claude Code reads (`{"mcpServers": {...}}`), in the project
 * root. It is a file shared with other tools, so it is read leniently: a server clio cannot use
 * (an `sse` server, an unknown key) is left out with a warning naming the file and the server,
 * and a file that is not JSON is left out whole with its line and column; nothing here stops
 * clio. Whether its servers start at all is the trust decision's (trust.ts), like a project's
 * own `.clio/config.json`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { mcpServerSchema } from "./extensions.js";
import { describeIssue, formatKeyPath } from "./issues.js";
import { parseJsonText } from "./json-text.js";

/** The file name, in the project root. */
export const PROJECT_MCP_FILE = ".mcp.json";

export interface ProjectMcpFile {
  /** Absolute path of the file. */
  file: string;
  /** The servers clio can use, as the config schema reads them. */
  servers: Record<string, z.infer<typeof mcpServerSchema>>;
  /** What was left out, and why: one sentence each. */
  warnings: string[];
}

/** Reads `.mcp.json` in `projectRoot`; undefined when there is none. */
export async function readProjectMcpFile(projectRoot: string): Promise<ProjectMcpFile | undefined> {
  const file = path.join(projectRoot, PROJECT_MCP_FILE);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return { file, servers: {}, warnings: [`${file} cannot be read (${(error as Error).message}); its servers are left out.`] };
  }
  const parsed = parseJsonText(text.startsWith("\uFEFF") ? text.slice(1) : text);
  if (!parsed.ok) {
    return { file, servers: {}, warnings: [`${file}:${parsed.line}:${parsed.column}: invalid JSON (${parsed.message}); its servers are left out. Fix the JSON there.`] };
  }
  const declared = typeof parsed.value === "object" && parsed.value !== null ? (parsed.value as { mcpServers?: unknown }).mcpServers : undefined;
  if (typeof declared !== "object" || declared === null || Array.isArray(declared)) {
    return { file, servers: {}, warnings: [`${file} holds no "mcpServers" object (the shape is {"mcpServers": {"name": {"command": "…"}}}); it is ignored.`] };
  }
  const servers: ProjectMcpFile["servers"] = {};
  const warnings: string[] = [];
  for (const [key, server] of Object.entries(declared)) {
    const problem = unsupportedTransport(server);
    if (problem !== undefined) {
      warnings.push(`${file}: the MCP server ${key} is left out: ${problem}.`);
      continue;
    }
    const checked = mcpServerSchema.safeParse(server);
    if (checked.success) servers[key] = checked.data;
    else {
      const problems = checked.error.issues.map((issue) => describeIssue(issue, SERVER_KEYS, (where) => formatKeyPath(["mcpServers", key, ...where])));
      warnings.push(`${file}: the MCP server ${key} is left out: ${problems.join("; ")}.`);
    }
  }
  return { file, servers, warnings };
}

const SERVER_KEYS = Object.keys(mcpServerSchema.innerType().shape);

/** Why a declared transport is one clio does not speak, if it is. */
function unsupportedTransport(server: unknown): string | undefined {
  const type = typeof server === "object" && server !== null ? (server as { type?: unknown }).type : undefined;
  if (type !== "sse") return undefined;
  return 'its type is "sse", the older HTTP+SSE transport, which clio does not speak (streamable HTTP is type "http" with a url)';
}
