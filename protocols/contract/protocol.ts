/**
 * The contract between the protocol manager and a protocol file in protocols/.
 * A protocol declares its actions, each action its parameters (kind + zod schema), its
 * permission class, a one-line description a person reads, and a handler over the tool layer.
 * Shared code never branches on a protocol's name: it asks the definition.
 */
import { z } from "zod";
import type { ParameterKind } from "../../grammar/kinds.js";
import type { CheckedPaths, Workspace } from "../../tools/workspace.js";

export type PermissionClass = "read" | "write" | "exec" | "network";

export interface ParameterDefinition<Value = unknown> {
  kind: ParameterKind;
  /** One line for the system prompt and error messages. */
  description: string;
  /**
   * Checks and converts the decoded value. Decoded values are strings for word and text,
   * the JSON text for json, and a Buffer for bytes. Optional parameters use `.optional()`.
   */
  schema: z.ZodType<Value, z.ZodTypeDef, unknown>;
  /**
   * The value names a file or folder of the workspace: permission rules match it in its
   * normalised, workspace-relative form (`./a/../b` is `b`), so a spelling cannot slip past them.
   */
  path?: boolean;
  /**
   * The action opens this path only as the file tools open a checked path (never through a link
   * in its place, the descriptor confirmed to be the checked file), so during a run of reads its
   * resolution may come from folders already resolved (`Workspace.resolveCommandPath`).
   */
  opensConfirmed?: boolean;
}

/** What every handler is given. */
export interface ActionContext<State = unknown> {
  /** The protocol's own state, made once per manager by `setup`. */
  state: State;
  environment: ProtocolEnvironment;
  /** Aborted when the person cancels the turn or clio exits. */
  signal: AbortSignal;
  /** Output as the action produces it (a command's lines), for the person to watch; the model reads only the result. */
  progress?: (text: string) => void;
  /**
   * The command's path parameters as the manager resolved them for the permission check, keyed
   * by their text: the action does its I/O on these (the file tools take them), never resolving
   * the text again, so what was checked is what is used.
   */
  checkedPaths?: CheckedPaths;
}

/** What a handler returns. The manager wraps it into a result. */
export interface ActionOutput {
  /** The text the model reads. */
  output: string;
  /** Structured data for JSON output and expectations (optional). */
  data?: unknown;
  /** A better description once the work is done ("Read src/main.c (247 lines)"). */
  description?: string;
  /**
   * Lines a person sees under the result in the chat (a checklist that changed, say); the
   * model reads `output` either way.
   */
  display?: string[];
  /**
   * The whole text when `output` was shortened by the action itself (a command's output cut in
   * the middle): the manager keeps it under `.clio/outputs` and tells the model where.
   */
  wholeOutput?: string;
}

const WHOLE_OUTPUT = Symbol("wholeOutput");

/** Marks a thrown error whose message holds a shortened output with the whole text (kept like `ActionOutput.wholeOutput`). */
export function withWholeOutput<Thrown extends Error>(error: Thrown, whole: string): Thrown {
  return Object.assign(error, { [WHOLE_OUTPUT]: whole });
}

/** The whole output a thrown error carries, if any. */
export function wholeOutputOf(error: unknown): string | undefined {
  const whole = typeof error === "object" && error !== null ? (error as { [WHOLE_OUTPUT]?: unknown })[WHOLE_OUTPUT] : undefined;
  return typeof whole === "string" ? whole : undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: an action is checked against its own argument types where it is defined; collections of actions of different shapes hold them as any (handlers take arguments contravariantly).
export interface ActionDefinition<Args extends Record<string, unknown> = any, State = any> {
  /** One line for the system prompt. */
  summary: string;
  /** Read-only actions of one batch may run in parallel; the others run one at a time. */
  permission: PermissionClass | ((args: Args) => PermissionClass);
  /**
   * Runs alone and in order even though it needs only read permission, because later commands
   * depend on what it changes (building an index, say).
   */
  exclusive?: boolean;
  parameters: { [Key in keyof Args]-?: ParameterDefinition<Args[Key]> };
  /** The line a person reads before it runs: "Reading src/main.c", "Running npm test (timeout 120 s)". */
  describe(args: Args): string;
  /**
   * The files the action would change, worked out without changing anything: the person sees
   * them as a diff before approving, and clio keeps the old text to undo the change. A preview
   * that throws means none; the handler reports the problem when it runs.
   */
  preview?(args: Args, context: ActionContext<State>): Promise<PlannedChange[]>;
  /** Runs the action. An output at hand without waiting may be given at once (not as a promise): the command then finishes without a turn of the queue. */
  handler(args: Args, context: ActionContext<State>): ActionOutput | Promise<ActionOutput>;
}

/**
 * One file an action is about to change. `before`/`after` are the whole text, `null` for a file
 * that is absent (created, or removed); `unknown` when the text cannot be shown (binary, too large).
 */
export interface PlannedChange {
  /** Workspace-relative path. */
  path: string;
  before: string | null;
  after: string | null;
  /** Why the text is not given: "binary" or "too large"; then before/after are null. */
  unknown?: string;
}

// biome-ignore lint/suspicious/noExplicitAny: a protocol's state type is its own; the registry holds protocols of every state.
export interface ProtocolDefinition<State = any> {
  /** Canonical upper-case name, e.g. `FILE_OP`. */
  name: string;
  /** One line: what the protocol is for. */
  summary: string;
  // biome-ignore lint/suspicious/noExplicitAny: each action has its own argument type.
  actions: Record<string, ActionDefinition<any, State>>;
  /**
   * The tool names other agents' models are trained on (`read_file`, `execute_command`) that
   * mean one of this protocol's actions: a call written in another dialect with that name runs
   * as the action (docs/protocol.md, "Other dialects").
   */
  aliases?: Record<string, ToolAlias>;
  /** Makes the protocol's state once per manager (job tables, open indexes). */
  setup?(environment: ProtocolEnvironment): State | Promise<State>;
  /**
   * Work that may begin as soon as a script is known to name the protocol, before its first
   * command is parsed, checked and run: it must only read (RAG opens its index, which starts the
   * check for changed files). What fails here is met again, and reported, by the command.
   */
  prepare?(state: State, environment: ProtocolEnvironment): void;
  /** Releases what `setup` made (kills background jobs, closes files). */
  dispose?(state: State): void | Promise<void>;
  /**
   * Lines relevant to a person's prompt that belong in the system prompt (remembered facts,
   * for instance), within about `tokenBudget` tokens.
   */
  promptContext?(state: State, prompt: string, tokenBudget: number): Promise<string[]>;
  /**
   * For a protocol whose actions come from outside (an MCP server's tools): learns them and
   * fills `actions`. The registry calls it before the protocol is listed or checked. Resolves
   * to notes on what was left out (a tool whose schema is invalid); rejects when the protocol
   * cannot be used at all (its server did not start), and the registry keeps that message.
   */
  discover?(): Promise<string[]>;
  /** Releases what `discover` started (stops a server); a later use may start it again. */
  close?(): Promise<void>;
  /**
   * True for a protocol the person's config declares (an MCP server, a shell protocol) rather
   * than one clio ships: such protocols share one budget in the system prompt.
   */
  fromOutside?: boolean;
}

/** Another agent's tool name for one action: which action, and how its parameter names map. */
export interface ToolAlias {
  action: string;
  /** Their parameter name → this action's; names not listed map to themselves. */
  parameters?: Record<string, string>;
  /** Arguments the call implies (a recursive listing tool: `{ recursive: "true" }`). */
  fixed?: Record<string, string>;
  /** Their parameters that mean nothing here and are dropped (`requires_approval`: clio asks by its own rules). */
  ignore?: string[];
}

/** The world a protocol works in; the seams tests replace. */
export interface ProtocolEnvironment {
  workspace: Workspace;
  /** Protocol settings from config, keyed by protocol name (e.g. `config.WEB.allowHosts`). */
  config: Record<string, unknown>;
  /** Environment variables handlers may consult (credentials); never echoed into results. */
  env: NodeJS.ProcessEnv;
  /** The clock, injectable for tests. */
  now(): number;
  /** How clio names itself to servers (`clio/0.1.0`): the application injects it. */
  userAgent: string;
}

/** Typed identity helper, so a protocol file gets inference on its handlers' arguments. */
export function defineProtocol<State>(definition: ProtocolDefinition<State>): ProtocolDefinition<State> {
  return definition;
}

// biome-ignore lint/suspicious/noExplicitAny: an action that does not name its state fits any protocol.
export function defineAction<Args extends Record<string, unknown>, State = any>(definition: ActionDefinition<Args, State>): ActionDefinition<Args, State> {
  return definition;
}

const booleanWord = z
  .enum(["true", "false", "yes", "no", "1", "0"], {
    errorMap: () => ({ message: "expected true or false" }),
  })
  .transform((value) => value === "true" || value === "yes" || value === "1");

const jsonText = z.string().transform((text, context) => {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    context.addIssue({ code: z.ZodIssueCode.custom, message: `not valid JSON (${(error as Error).message})` });
    return z.NEVER;
  }
});

/** A word read as a whole number; a missing value stays missing (never coerced to 0). */
function wholeNumber(options: { min?: number; max?: number }): z.ZodType<number, z.ZodTypeDef, unknown> {
  let schema = z.number({ required_error: "is required (a whole number)", invalid_type_error: "expected a whole number" }).int("expected a whole number");
  if (options.min !== undefined) schema = schema.min(options.min);
  if (options.max !== undefined) schema = schema.max(options.max);
  return z.preprocess((value) => (typeof value === "string" && /^\s*[+-]?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value), schema);
}

/** Builders for parameter definitions, one per kind and common shape. */
export const parameter = {
  text(description: string): ParameterDefinition<string> {
    return { kind: "text", description, schema: z.string() };
  },
  optionalText(description: string): ParameterDefinition<string | undefined> {
    return { kind: "text", description, schema: z.string().optional() };
  },
  /** A workspace path (text); see `ParameterDefinition.path` and `opensConfirmed`. */
  path(description: string, options: { opensConfirmed?: boolean } = {}): ParameterDefinition<string> {
    return { kind: "text", description, schema: z.string(), path: true, ...options };
  },
  optionalPath(description: string): ParameterDefinition<string | undefined> {
    return { kind: "text", description, schema: z.string().optional(), path: true };
  },
  word<Value>(description: string, schema: z.ZodType<Value, z.ZodTypeDef, unknown>): ParameterDefinition<Value> {
    return { kind: "word", description, schema };
  },
  boolean(description: string): ParameterDefinition<boolean | undefined> {
    return { kind: "word", description, schema: booleanWord.optional() };
  },
  requiredBoolean(description: string): ParameterDefinition<boolean> {
    return { kind: "word", description, schema: booleanWord };
  },
  integer(description: string, options: { min?: number; max?: number } = {}): ParameterDefinition<number | undefined> {
    return { kind: "word", description, schema: wholeNumber(options).optional() };
  },
  /** A whole number the command must give (`id=3`). */
  requiredInteger(description: string, options: { min?: number; max?: number } = {}): ParameterDefinition<number> {
    return { kind: "word", description, schema: wholeNumber(options) };
  },
  choice<const Values extends readonly [string, ...string[]]>(description: string, values: Values): ParameterDefinition<Values[number] | undefined> {
    return { kind: "word", description, schema: z.enum(values).optional() };
  },
  /** A JSON value: the decoded JSON text is parsed, then `schema` checks the parsed value. */
  json<Value>(description: string, schema: z.ZodType<Value, z.ZodTypeDef, unknown>): ParameterDefinition<Value> {
    return { kind: "json", description, schema: jsonText.pipe(schema) };
  },
  bytes(description: string): ParameterDefinition<Buffer | undefined> {
    return { kind: "bytes", description, schema: z.instanceof(Buffer).optional() };
  },
};
