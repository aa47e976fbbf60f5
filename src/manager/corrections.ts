/**
 * The whole corrected command, for the hint of a command that names something that does not
 * exist, when one correction is plain: a protocol name a typo away (`FILEOP`), another agent's
 * tool name for an action (`action=read_file`), an action or parameter name a typo away, or a
 * parameter name another agent's tool uses for one of this action's (`file_path`).
 */
import type { Command, Parameter } from "../../grammar/ast.js";
import { aliasedArguments } from "../../grammar/dialects/mapping.js";
import { print, type PrintableCommand } from "../../grammar/printer.js";
import type { ProtocolDefinition } from "../../protocols/contract/protocol.js";
import { nearestWord } from "../nearest-word.js";

type PrintableParameter = PrintableCommand["parameters"][number];

/** Edits a name may be off by: one for short names (`GIT`, `RAG`), two from six letters on. */
function allowedEdits(word: string): number {
  return Math.min(2, Math.floor(word.length / 3));
}

function printable(parameter: Parameter, key = parameter.key): PrintableParameter {
  return { key, form: parameter.form, text: parameter.text };
}

/**
 * The command with the nearest registered protocol name, if one is plain and has the action the
 * command names (`[GET:url=…]` is no typo of GIT's: it names no action of GIT's).
 */
export function correctedProtocol(command: Command, names: readonly string[], actionsOf: (name: string) => object | undefined): string | undefined {
  const meant = nearestWord(command.name, names, allowedEdits(command.name));
  if (meant === undefined) return undefined;
  const action = command.parameters.find((parameter) => parameter.key.toLowerCase() === "action")?.text;
  const actions = actionsOf(meant);
  if (action === undefined || actions === undefined || !Object.hasOwn(actions, action)) return undefined;
  return print({ protocol: meant, parameters: command.parameters.map((parameter) => printable(parameter)) });
}

/** The command with the action it most plausibly means: another agent's name for it, else the nearest action name. */
export function correctedAction(command: Command, protocol: ProtocolDefinition, actionParameter: Parameter): string | undefined {
  const written = actionParameter.text;
  const alias = protocol.aliases !== undefined && Object.hasOwn(protocol.aliases, written) ? protocol.aliases[written] : undefined;
  if (alias !== undefined && Object.hasOwn(protocol.actions, alias.action)) {
    const given = aliasedArguments(
      command.parameters.map((parameter) => [parameter.key, parameter] as const),
      alias,
    );
    const parameters: PrintableParameter[] = [{ key: actionParameter.key, form: "bare", text: alias.action }];
    for (const [key, value] of given) parameters.push(typeof value === "string" ? { key, form: "quoted", text: value } : printable(value, key));
    return print({ protocol: protocol.name, parameters });
  }
  const meant = nearestWord(written, Object.keys(protocol.actions), allowedEdits(written));
  if (meant === undefined) return undefined;
  return print({
    protocol: protocol.name,
    parameters: command.parameters.map((parameter) => (parameter === actionParameter ? { key: parameter.key, form: "bare", text: meant } : printable(parameter))),
  });
}

/**
 * The command with `unknown` renamed to the parameter it most plausibly means (one not written
 * already): what other agents' tools call it (`file_path` for `path`), else the nearest name.
 */
export function correctedParameter(command: Command, protocol: ProtocolDefinition, actionName: string, unknown: Parameter, declared: readonly string[]): string | undefined {
  const meant = aliasedName(protocol, actionName, unknown.key) ?? nearestWord(unknown.key, declared, allowedEdits(unknown.key));
  if (meant === undefined || !declared.includes(meant) || command.parameters.some((parameter) => parameter.key === meant)) return undefined;
  return print({ protocol: protocol.name, parameters: command.parameters.map((parameter) => printable(parameter, parameter === unknown ? meant : parameter.key)) });
}

/** The parameter of `actionName` that the protocol's aliases for that action map `key` onto, when they agree on one. */
function aliasedName(protocol: ProtocolDefinition, actionName: string, key: string): string | undefined {
  const targets = new Set<string>();
  for (const alias of Object.values(protocol.aliases ?? {})) {
    if (alias.action === actionName && alias.parameters !== undefined && Object.hasOwn(alias.parameters, key)) targets.add(alias.parameters[key]!);
  }
  return targets.size === 1 ? [...targets][0] : undefined;
}
