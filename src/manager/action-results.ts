/**
 * What an action returned or threw, as a CommandResult: the success shape, the failure shape, and
 * the error data a thrown value becomes (the manager is the one catch boundary; this is its vocabulary).
 */
import { ClioError } from "../../grammar/errors.js";
import { renderHint } from "../../protocols/contract/hints.js";
import type { ActionDefinition, ActionOutput, PermissionClass } from "../../protocols/contract/protocol.js";
import { ToolError } from "../../tools/errors.js";
import type { ResultError } from "../errors.js";
import type { Invocation } from "./check.js";
import type { CommandResult } from "./result.js";

/** Where a command stood in the text it came from. */
export interface TextPosition {
  line: number;
  column: number;
}

/** A failed command's result; the description defaults to `PROTOCOL.action`. */
export function failureResult(
  id: number,
  protocol: string,
  action: string | null,
  permissionClass: PermissionClass | null,
  error: ResultError,
  start: TextPosition,
  description?: string,
): CommandResult {
  return {
    id,
    ok: false,
    protocol,
    action,
    permissionClass,
    description: description ?? (action ? `${protocol}.${action}` : protocol),
    output: "",
    error,
    durationMs: 0,
    truncated: false,
    line: start.line,
    column: start.column,
  };
}

/**
 * The result of an action that returned `output`, before the output limit is applied. Throws
 * (to the manager's catch) when the handler returned something other than `{ output: text }`.
 */
export function successResult(id: number, invocation: Invocation, permissionClass: PermissionClass, description: string, output: unknown): CommandResult {
  const { protocol, action } = invocation;
  if (!isActionOutput(output)) {
    throw new Error(`${protocol}.${action} returned ${describeValue(output)} instead of { output: text } (a fault in the protocol)`);
  }
  const start = invocation.command.span.start;
  const result: CommandResult = {
    id,
    ok: true,
    protocol,
    action,
    args: invocation.decoded,
    permissionClass,
    description: output.description ?? description,
    output: output.output,
    durationMs: 0,
    truncated: false,
    line: start.line,
    column: start.column,
  };
  if (output.data !== undefined) result.data = output.data;
  if (Array.isArray(output.display) && output.display.every((line) => typeof line === "string")) result.display = output.display;
  return result;
}

/** The action's one-line description; `PROTOCOL.action` when its describe function throws. */
export function safeDescribe(definition: ActionDefinition, invocation: Invocation): string {
  try {
    return definition.describe(invocation.args);
  } catch {
    return `${invocation.protocol}.${invocation.action}`;
  }
}

function isActionOutput(value: unknown): value is ActionOutput {
  return typeof value === "object" && value !== null && typeof (value as { output?: unknown }).output === "string";
}

function describeValue(value: unknown): string {
  if (value === null || typeof value !== "object") return String(value);
  const output = (value as { output?: unknown }).output;
  return output === undefined ? "an object without output" : `an output of type ${typeof output}`;
}

/** What an action threw, as error data: its hint written in the language of the protocol that ran. */
export function actionErrorData(error: unknown, invocation: Invocation): ResultError {
  if (ClioError.isInstance(error)) error.caller ??= `${invocation.protocol}.${invocation.action}`;
  const data = toErrorData(error);
  if (ToolError.isInstance(error) && error.hintParts) data.hint = renderHint(invocation.protocolDefinition, error.hintParts);
  return data;
}

/** Any thrown value as error data: typed tool errors keep their code, anything else is internal. */
export function toErrorData(error: unknown): ResultError {
  // Every layer's error class narrows its code to that layer's share of ErrorCode.
  if (ClioError.isInstance(error)) return error.toData() as ResultError;
  if (error instanceof Error && error.name === "AbortError") return { code: "cancelled", message: "The command was cancelled." };
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: "internal_error",
    message: `The command failed unexpectedly: ${message}`,
    hint: "This is a fault in clio or the tool, not in how the command was written; try another way or report it.",
  };
}
