/**
 * Checking: a parsed command becomes an invocation of one action with validated arguments,
 * or an error that tells the model how to write it right.
 */
import type { ZodError } from "zod";
import type { Command, Parameter } from "../../grammar/ast.js";
import { decodeParameter, formatArgumentError } from "../../grammar/kinds.js";
import { print, type PrintableCommand } from "../../grammar/printer.js";
import type { ResultError } from "../errors.js";
import type { ActionDefinition, ProtocolDefinition } from "../../protocols/contract/protocol.js";
import type { ProtocolRegistry } from "../registry.js";
import { correctedAction, correctedParameter, correctedProtocol } from "./corrections.js";
import { parameterNamesOf } from "./parameter-names.js";
import { RESULT_ENVELOPE_NAME } from "./result.js";

/** A command that passed every check and can run. */
export interface Invocation {
  protocol: string;
  action: string;
  definition: ActionDefinition;
  protocolDefinition: ProtocolDefinition;
  /** Arguments after their zod schemas (numbers, booleans, parsed JSON…). */
  args: Record<string, unknown>;
  /** Every parameter decoded by its kind, as text (bytes as base64): what `clio parse --json` prints. */
  decoded: Record<string, string>;
  command: Command;
}

export type CheckResult = { ok: true; invocation: Invocation } | { ok: false; protocol: string; action?: string; error: ResultError };

export function checkCommand(command: Command, registry: ProtocolRegistry): CheckResult {
  const protocolName = command.protocol;
  if (protocolName === RESULT_ENVELOPE_NAME) {
    return failure(protocolName, undefined, {
      code: "fabricated_result",
      message: `${RESULT_ENVELOPE_NAME} is reserved for the interpreter's own result envelopes; a command cannot write one.`,
      hint: "Write the command you want to run and wait: its result comes back to you.",
    });
  }
  const protocol = registry.get(protocolName);
  if (!protocol) {
    const corrected = correctedProtocol(command, registry.names(), (name) => registry.get(name)?.actions);
    return failure(protocolName, undefined, {
      code: "unknown_protocol",
      message: `Unknown protocol ${command.name}. Known protocols: ${registry.names().join(", ")}.`,
      hint: corrected ?? `Write one of ${registry.names().join(", ")}, e.g. [${registry.names()[0] ?? "PROTOCOL"}:action=...].`,
    });
  }
  // Action names are listed afresh, and only for a message: a protocol from outside learns its actions in place (MCP discovery).
  const actionParameter = actionParameterOf(command.parameters);
  const action = actionParameter !== undefined && Object.hasOwn(protocol.actions, actionParameter.text) ? protocol.actions[actionParameter.text] : undefined;
  // A protocol with an action to run has actions: only a command that names none looks for any.
  if (!action && !hasAny(protocol.actions)) {
    // A protocol from outside whose server did not start (its summary says why).
    return failure(protocol.name, actionParameter?.text, {
      code: "unknown_action",
      message: `${protocol.name} has no actions to run: ${protocol.summary}`,
      hint: `Nothing ran. Do the work another way; ${protocol.name} cannot be used in this session.`,
    });
  }
  if (!actionParameter) {
    return failure(protocol.name, undefined, {
      code: "missing_parameter",
      message: `${protocol.name}: the action parameter is missing.`,
      hint: `Start with action=…, one of: ${Object.keys(protocol.actions).join(", ")}.`,
    });
  }
  const actionName = actionParameter.text;
  if (!action) {
    const names = Object.keys(protocol.actions).join(", ");
    return failure(protocol.name, actionName, {
      code: "unknown_action",
      message: `${protocol.name} has no action "${actionName}". Its actions: ${names}.`,
      hint: correctedAction(command, protocol, actionParameter) ?? `Write action= followed by one of: ${names}.`,
    });
  }
  return checkArguments(command, protocol, action, actionName, actionParameter);
}

/** The arguments of a command whose protocol and action were found: decoded by their kinds, then checked by their schemas. */
function checkArguments(command: Command, protocol: ProtocolDefinition, action: ActionDefinition, actionName: string, actionParameter: Parameter): CheckResult {
  const parameterNames = parameterNamesOf(action).all;
  const raw: Record<string, unknown> = {};
  const decoded: Record<string, string> = { action: actionName };
  for (const written of command.parameters) {
    if (written === actionParameter) continue;
    // A key in another case (PATH=) means the declared one, when only one matches.
    const parameter = Object.hasOwn(action.parameters, written.key) ? written : { ...written, key: foldedKey(written.key, parameterNames) };
    const definition = Object.hasOwn(action.parameters, parameter.key) ? action.parameters[parameter.key] : undefined;
    if (!definition) {
      const corrected = correctedParameter(command, protocol, actionName, written, parameterNames);
      const takes = parameterNames.length
        ? `${labelOf(protocol, actionName)} takes: ${parameterNames.join(", ")}.`
        : `${labelOf(protocol, actionName)} takes no parameters besides action.`;
      return failure(protocol.name, actionName, {
        code: "unknown_parameter",
        message: `${labelOf(protocol, actionName)}: unknown parameter "${parameter.key}". ${takes}`,
        hint: corrected ?? takes,
      });
    }
    const result = decodeParameter(parameter, definition.kind);
    if (!result.ok) {
      const corrected = result.literal === undefined ? undefined : print(withLiteral(command, written, result.literal));
      return failure(protocol.name, actionName, {
        code: "invalid_argument",
        message: formatArgumentError(labelOf(protocol, actionName), parameter.key, result),
        hint: corrected === undefined ? result.fix : `${result.fix} — the whole command: ${corrected}`,
      });
    }
    raw[parameter.key] = result.value;
    decoded[parameter.key] = typeof result.value === "string" ? result.value : result.value.toString("base64");
  }
  const args: Record<string, unknown> = {};
  for (const name of parameterNames) {
    const definition = action.parameters[name]!;
    if (raw[name] === undefined && absentStaysAbsent(definition.schema)) continue;
    const parsed = definition.schema.safeParse(raw[name]);
    if (parsed.success) {
      if (parsed.data !== undefined) args[name] = parsed.data;
      continue;
    }
    if (raw[name] === undefined) {
      return failure(protocol.name, actionName, {
        code: "missing_parameter",
        message: `${labelOf(protocol, actionName)}: the required parameter ${name} is missing (${definition.description}).`,
        hint: `Add :${name}=… to the command.`,
      });
    }
    return failure(protocol.name, actionName, {
      code: "invalid_argument",
      message: `${labelOf(protocol, actionName)}: ${name} ${describeZodError(parsed.error)}; got ${preview(decoded[name] ?? "")}.`,
      hint: `${name}: ${definition.description}.`,
    });
  }
  return {
    ok: true,
    invocation: { protocol: protocol.name, action: actionName, definition: action, protocolDefinition: protocol, args, decoded, command },
  };
}

/** `FILE_OP.read`: how messages name an action (made only for a message: a command that passes needs none). */
function labelOf(protocol: ProtocolDefinition, actionName: string): string {
  return `${protocol.name}.${actionName}`;
}

/** True when `record` has an own enumerable key (what `Object.keys(record).length > 0` says, without the list). */
function hasAny(record: object): boolean {
  for (const key in record) if (Object.hasOwn(record, key)) return true;
  return false;
}

/** The parameter that names the action: `action=`, else the one key that means it in another case. */
function actionParameterOf(parameters: readonly Parameter[]): Parameter | undefined {
  for (const parameter of parameters) if (parameter.key === "action") return parameter;
  for (const parameter of parameters) if (parameter.key.toLowerCase() === "action") return parameter;
  return undefined;
}

/** Per schema: whether it takes a missing value as missing (optional, no default), learned from its first check. */
const takesAbsent = new WeakMap<object, boolean>();

/**
 * Whether a parameter left out may skip its schema: its schema accepts `undefined` and gives
 * `undefined` back. Most commands leave most optional parameters out, and each zod parse of
 * nothing costs as much as one of a value.
 */
function absentStaysAbsent(schema: ActionDefinition["parameters"][string]["schema"]): boolean {
  let known = takesAbsent.get(schema);
  if (known === undefined) {
    const parsed = schema.safeParse(undefined);
    known = parsed.success && parsed.data === undefined;
    takesAbsent.set(schema, known);
  }
  return known;
}

function foldedKey(key: string, declared: readonly string[]): string {
  const matches = declared.filter((name) => name.toLowerCase() === key.toLowerCase());
  return matches.length === 1 ? matches[0]! : key;
}

/** `command` with `parameter` written as the quoted `literal`. */
function withLiteral(command: Command, parameter: Parameter, literal: string): PrintableCommand {
  return {
    protocol: command.protocol,
    parameters: command.parameters.map((each) =>
      each === parameter ? { key: each.key, form: "quoted" as const, text: literal } : { key: each.key, form: each.form, text: each.text },
    ),
  };
}

function failure(protocol: string, action: string | undefined, error: ResultError): CheckResult {
  return action === undefined ? { ok: false, protocol, error } : { ok: false, protocol, action, error };
}

function describeZodError(error: ZodError): string {
  return error.issues.map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message)).join("; ");
}

function preview(text: string): string {
  const shown = text.length > 60 ? `${text.slice(0, 57)}...` : text;
  return JSON.stringify(shown);
}
