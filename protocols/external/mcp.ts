/**
 * An MCP server as a protocol: the server `fs` is the protocol FS, each of its tools an action
 * with the tool's own name and parameters from the tool's input schema (see
 * schema-parameters.ts). The server starts when its tools are first needed (`discover`) or
 * called; arguments are checked against the schema before the call; a result's text goes back
 * to the model and `isError` is a failed result carrying the server's message. The permission
 * class comes from the tool's annotations: readOnlyHint → read, openWorldHint → network,
 * otherwise exec.
 */
import { ProtocolError } from "../contract/errors.js";
import type { McpConnection, McpServerConfig, McpTool } from "../../tools/mcp/connection.js";
import { loadOnce } from "../contract/load-once.js";
import { defineAction, type ActionDefinition, type PermissionClass, type ProtocolDefinition } from "../contract/protocol.js";
import { isActionWord, protocolNameFor } from "./naming.js";
import { parametersFromSchema } from "./schema-parameters.js";

const loadConnection = loadOnce(() => import("../../tools/mcp/connection.js"));
const loadContent = loadOnce(() => import("../../tools/mcp/content.js"));
const loadValidator = loadOnce(async () => new (await import("@modelcontextprotocol/sdk/validation/ajv")).AjvJsonSchemaValidator());

export interface McpProtocolOptions {
  /** The server's key in `mcpServers`. */
  key: string;
  config: McpServerConfig;
  /** Where a stdio server starts unless its config says otherwise. */
  cwd: string;
  log?: (level: "debug" | "info" | "warn", message: string) => void;
}

type Validate = (input: unknown) => { valid: boolean; errorMessage?: string };

/** A tool's permission class from its annotations. */
export function permissionFromAnnotations(annotations: McpTool["annotations"]): PermissionClass {
  if (annotations?.openWorldHint === true) return "network";
  if (annotations?.readOnlyHint === true) return "read";
  return "exec";
}

function preview(args: Record<string, unknown>): string {
  const text = Object.entries(args)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(" ");
  return text.length <= 80 ? text : `${text.slice(0, 79)}…`;
}

/** A content item for the result's data, with an image's or audio's base64 payload replaced by its size (sessions keep data). */
function withoutPayload(item: unknown): unknown {
  if (typeof item !== "object" || item === null || typeof (item as { data?: unknown }).data !== "string") return item;
  const { data, ...rest } = item as { data: string };
  return { ...rest, base64Characters: data.length };
}

/** The protocol for one configured MCP server; its actions appear once `discover` has run. */
export function mcpProtocol(options: McpProtocolOptions): ProtocolDefinition<McpConnection> {
  const name = protocolNameFor(options.key);
  let connection: McpConnection | undefined;
  const connect = async () => {
    const { McpConnection } = await loadConnection();
    connection ??= new McpConnection({ name: options.key, config: options.config, cwd: options.cwd, ...(options.log ? { log: options.log } : {}) });
    return connection;
  };
  const actions: Record<string, ActionDefinition> = Object.create(null) as Record<string, ActionDefinition>;

  const action = (tool: McpTool, parameters: ActionDefinition["parameters"], validate: Validate): ActionDefinition =>
    defineAction<Record<string, unknown>>({
      summary: (tool.description ?? tool.title ?? tool.annotations?.title ?? `The ${tool.name} tool of the MCP server ${options.key}.`).trim(),
      permission: permissionFromAnnotations(tool.annotations),
      parameters,
      describe: (args) => `Calling ${tool.name} on ${options.key}${preview(args) === "" ? "" : ` (${preview(args)})`}`,
      async handler(args, { signal }) {
        const given = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
        const checked = validate(given);
        if (!checked.valid) {
          throw new ProtocolError(
            "invalid_argument",
            `${name}.${tool.name}: the arguments do not fit the tool's schema: ${checked.errorMessage ?? "invalid"}.`,
            `Give the parameters the tool's schema asks for; clio protocols ${name} lists them.`,
          );
        }
        const result = await (await connect()).call(tool.name, given, signal);
        const text = (await loadContent()).resultText(result);
        if (result.isError === true) throw new ProtocolError("exec_failed", `${name}.${tool.name} failed: ${text}`);
        return {
          output: text,
          data: { content: result.content.map(withoutPayload), ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }) },
          description: `${options.key} ${tool.name} answered (${text.length.toLocaleString("en-US")} characters)`,
        };
      },
    });

  const definition: ProtocolDefinition<McpConnection> = {
    name,
    summary: `Tools of the MCP server ${options.key}.`,
    fromOutside: true,
    actions,
    setup: () => connect(),
    close: async () => connection?.close(),
    async discover() {
      let tools: McpTool[];
      try {
        tools = await (await connect()).tools();
      } catch (error) {
        const reason = (error as Error).message.split("\n")[0] ?? "";
        definition.summary = `Tools of the MCP server ${options.key}: unavailable (${reason}).`;
        throw error;
      }
      const validator = await loadValidator();
      const notes: string[] = [];
      for (const key of Object.keys(actions)) delete actions[key];
      for (const tool of tools) {
        const label = `The tool ${JSON.stringify(String(tool.name)).slice(0, 80)} of the MCP server ${options.key}`;
        if (typeof tool.name !== "string" || !isActionWord(tool.name)) {
          notes.push(`${label} is left out: its name is not an action word (letters, digits, _, . and -, at most 64).`);
          continue;
        }
        if (Object.hasOwn(actions, tool.name)) {
          notes.push(`${label} is listed twice; the first one is kept.`);
          continue;
        }
        const converted = parametersFromSchema(tool.inputSchema);
        if (!converted.ok) {
          notes.push(`${label} is left out: ${converted.reason}.`);
          continue;
        }
        let validate: Validate;
        try {
          validate = validator.getValidator(tool.inputSchema as never) as Validate;
        } catch (error) {
          notes.push(`${label} is left out: its input schema is invalid (${(error as Error).message.slice(0, 200)}).`);
          continue;
        }
        actions[tool.name] = action(tool, converted.parameters, validate);
      }
      const count = Object.keys(actions).length;
      definition.summary = `Tools of the MCP server ${options.key} (${count} tool${count === 1 ? "" : "s"}).`;
      for (const note of notes) options.log?.("warn", note);
      return notes;
    },
  };
  return definition;
}
