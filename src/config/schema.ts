/**
 * What clio can be configured with: the shape of one config layer (a file, the environment,
 * the flags), the resolved config every other part reads, and the defaults.
 *
 * Permission rules are written `PROTOCOL[:action[:argument-prefix-glob]]`:
 * - `WEB` — every action of WEB;
 * - `FILE_OP:write` — one action (`*` stands for any action);
 * - `EXEC:run:npm test*` — one action whose main argument (the command, the path, the url)
 *   matches the glob: `*` matches any run of characters, everything else matches itself.
 * Protocol names are case-insensitive and stored upper case; the action is kept as written.
 */
import { z } from "zod";
import { logLevels, type LogLevel } from "../log.js";
import { extensionKeys, type Extensions } from "./extensions.js";

export const permissionModes = ["plan", "ask", "auto-edit", "yolo"] as const;
export type PermissionMode = (typeof permissionModes)[number];

export const apiStyles = ["chat", "completions"] as const;

export type ApiStyle = (typeof apiStyles)[number];

/** A parsed permission rule. */
export interface PermissionRule {
  protocol: string;
  /** Undefined (or `*`) means every action. */
  action?: string;
  /** A glob over the action's main argument; `*` matches any run of characters. */
  argumentPattern?: string;
}

const RULE_PATTERN = /^([A-Za-z][A-Za-z0-9_]*)(?::([A-Za-z_*][A-Za-z0-9_*-]*)(?::(.+))?)?$/s;

/** Parses `PROTOCOL[:action[:argument-prefix-glob]]`; undefined if the text is not a rule. */
export function parsePermissionRule(text: string): PermissionRule | undefined {
  const match = RULE_PATTERN.exec(text.trim());
  if (!match) return undefined;
  const rule: PermissionRule = { protocol: match[1]!.toUpperCase() };
  if (match[2] !== undefined && match[2] !== "*") rule.action = match[2];
  if (match[3] !== undefined) rule.argumentPattern = match[3];
  return rule;
}

const permissionRule = z.string().refine((text) => parsePermissionRule(text) !== undefined, {
  message: 'is not a permission rule: write PROTOCOL[:action[:argument-glob]], e.g. "EXEC:run:npm test*", "FILE_OP:write" or "WEB"',
});

const positiveWhole = z.number({ invalid_type_error: "must be a whole number" }).int("must be a whole number").positive("must be above 0");
const nonEmpty = z.string({ invalid_type_error: "must be a string" }).min(1, "must not be empty");
const seconds = z.number({ invalid_type_error: "must be a number of seconds" }).positive("must be above 0");

/** One layer of configuration as written in a config file. Every key is optional. */
export const configLayerSchema = z
  .object({
    $schema: z.string().optional(),
    provider: nonEmpty,
    baseUrl: z.string().url("must be a URL such as http://127.0.0.1:11434/v1"),
    model: nonEmpty,
    api: z.enum(apiStyles),
    apiKey: nonEmpty,
    permissionMode: z.enum(permissionModes),
    workspace: nonEmpty,
    maxTurns: positiveWhole,
    contextWindow: positiveWhole,
    requestTimeout: seconds,
    idleTimeout: seconds,
    temperature: z.number({ invalid_type_error: "must be a number" }).min(0, "must be 0 or more").max(2, "must be 2 or less"),
    topP: z.number({ invalid_type_error: "must be a number" }).gt(0, "must be above 0").max(1, "must be 1 or less"),
    maxTokens: positiveWhole,
    stop: z.array(nonEmpty, { invalid_type_error: "must be a list of strings" }),
    systemPromptFile: nonEmpty,
    systemPromptMode: z.enum(["extend", "replace"]),
    checks: z
      .object({ afterEdit: z.array(nonEmpty), afterTurn: z.array(nonEmpty) })
      .partial()
      .strict(),
    sessionDir: nonEmpty,
    permissions: z
      .object({ allow: z.array(permissionRule), deny: z.array(permissionRule) })
      .partial()
      .strict(),
    protocols: z.record(z.string(), z.record(z.string(), z.unknown(), { invalid_type_error: "must be an object of settings" })),
    ...extensionKeys,
    logLevel: z.enum(logLevels),
    /** Project folders whose own config may loosen permissions (see src/config/trust.ts); read from the user's file only. */
    trustedFolders: z.array(nonEmpty),
  })
  .partial()
  .strict();

export type ConfigLayer = z.infer<typeof configLayerSchema>;

/** The merged configuration the rest of clio reads. Paths are absolute. */
export interface ClioConfig {
  provider?: string;
  baseUrl?: string;
  model?: string;
  api: ApiStyle;
  /** A secret: never print it whole (see `maskSecret`). */
  apiKey?: string;
  permissionMode: PermissionMode;
  /** Absolute path of the folder clio works in. */
  workspace: string;
  maxTurns: number;
  contextWindow?: number;
  /** Seconds to wait for the model server's first byte. */
  requestTimeout: number;
  /** Seconds a reply may go silent between chunks. */
  idleTimeout: number;
  /** Sampling settings sent with every request when set. */
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  /** Extra stop strings, sent beside clio's own. */
  stop?: string[];
  /** A file whose text extends (or, with systemPromptMode "replace", replaces) the built-in system prompt. */
  systemPromptFile?: string;
  systemPromptMode?: "extend" | "replace";
  /** Commands run after the model changes files (`afterEdit`) and when it finishes a prompt that changed files (`afterTurn`). */
  checks?: { afterEdit?: string[]; afterTurn?: string[] };
  /** Absolute path of the folder sessions are stored in. */
  sessionDir: string;
  /** Rules from every layer, lowest layer first, without repeats. */
  permissions: { allow: string[]; deny: string[] };
  /** Per-protocol settings keyed by upper-case protocol name (e.g. `WEB`, `GIT`), merged key by key. */
  protocols: Record<string, Record<string, unknown>>;
  /** What the log file records (`CLIO_LOG_LEVEL`); unset means no log unless `--debug`. */
  logLevel?: LogLevel;
  /** MCP servers by key, each with the file that declared it. */
  mcpServers: Extensions["mcpServers"];
  /** Shell protocols by name, each with the file that declared it. */
  shellProtocols: Extensions["shellProtocols"];
}

/** The keys of `ClioConfig` that hold one value (everything but permissions and protocols). */
export const scalarKeys = [
  "provider",
  "baseUrl",
  "model",
  "api",
  "apiKey",
  "permissionMode",
  "workspace",
  "maxTurns",
  "contextWindow",
  "requestTimeout",
  "idleTimeout",
  "temperature",
  "topP",
  "maxTokens",
  "stop",
  "checks",
  "systemPromptFile",
  "systemPromptMode",
  "sessionDir",
  "logLevel",
] as const satisfies readonly (keyof ClioConfig)[];
export type ScalarKey = (typeof scalarKeys)[number];

/** Whether a key (or the last part of a dotted key) names a secret: `apiKey`, `protocols.GIT.token`. */
export function isSecretKey(key: string): boolean {
  return /(key|token|secret|password|credential|authorization)s?$/i.test(key.split(".").pop() ?? key);
}

/**
 * Environment variables and the key each sets. Provider API keys (OPENAI_API_KEY and the
 * like) are read by src/providers, not here.
 */
export const environmentNames = {
  CLIO_PROVIDER: "provider",
  CLIO_MODEL: "model",
  CLIO_BASE_URL: "baseUrl",
  CLIO_API: "api",
  CLIO_PERMISSION_MODE: "permissionMode",
  CLIO_SESSION_DIR: "sessionDir",
  CLIO_MAX_TURNS: "maxTurns",
  CLIO_CONTEXT_WINDOW: "contextWindow",
  CLIO_LOG_LEVEL: "logLevel",
  CLIO_REQUEST_TIMEOUT: "requestTimeout",
  CLIO_IDLE_TIMEOUT: "idleTimeout",
  CLIO_TEMPERATURE: "temperature",
  CLIO_TOP_P: "topP",
  CLIO_MAX_TOKENS: "maxTokens",
} as const satisfies Record<string, ScalarKey>;

/** Defaults for the keys that have one; `workspace` defaults to the current folder. */
export const defaultValues = {
  api: "chat",
  permissionMode: "ask",
  maxTurns: 25,
  requestTimeout: 600,
  idleTimeout: 120,
} as const satisfies Partial<ClioConfig>;

/** `sk-abcdef123456` → `sk-a…3456`; short secrets become `****`. */
export function maskSecret(secret: string): string {
  if (secret.length <= 8) return "****";
  return `${secret.slice(0, 4)}…${secret.slice(-4)}`;
}
