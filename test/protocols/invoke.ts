/**
 * Calls a protocol action the way the manager does: each raw (decoded) value goes through its
 * parameter's zod schema, then describe, then the handler with the protocol's state.
 */
import type { ActionOutput, ProtocolDefinition, ProtocolEnvironment } from "../../protocols/contract/protocol.js";
import { ProtocolError } from "../../protocols/contract/errors.js";
import type { Workspace } from "../../tools/workspace.js";

export interface Invocation extends ActionOutput {
  /** What describe said before the handler ran. */
  before: string;
}

export function environmentFor(workspace: Workspace, env: NodeJS.ProcessEnv = process.env, config: Record<string, unknown> = {}): ProtocolEnvironment {
  return { workspace, config, env, now: Date.now, userAgent: "clio-test" };
}

/** Checks raw values against an action's schemas; throws ProtocolError("invalid_argument") like the manager. */
export function checkArguments(protocol: ProtocolDefinition, action: string, raw: Record<string, string>): Record<string, unknown> {
  const definition = protocol.actions[action];
  if (definition === undefined) throw new ProtocolError("unknown_action", `${protocol.name} has no action ${action}`);
  for (const key of Object.keys(raw)) {
    if (!(key in definition.parameters)) throw new ProtocolError("unknown_parameter", `${protocol.name}.${action} has no parameter ${key}`);
  }
  const args: Record<string, unknown> = {};
  for (const [name, parameter] of Object.entries(definition.parameters)) {
    const parsed = parameter.schema.safeParse(raw[name]);
    if (!parsed.success) throw new ProtocolError("invalid_argument", `${protocol.name}.${action}: ${name} ${parsed.error.issues[0]?.message}`);
    args[name] = parsed.data;
  }
  return args;
}

export async function invoke<State>(
  protocol: ProtocolDefinition<State>,
  action: string,
  raw: Record<string, string>,
  context: { environment: ProtocolEnvironment; state?: State; signal?: AbortSignal },
): Promise<Invocation> {
  const args = checkArguments(protocol as ProtocolDefinition, action, raw);
  const definition = protocol.actions[action]!;
  const before = definition.describe(args);
  const output = await definition.handler(args, { state: context.state as State, environment: context.environment, signal: context.signal ?? new AbortController().signal });
  return { ...output, before };
}
