/**
 * fast-check arbitraries for protocol commands, built from a protocol's action definitions
 * alone. Each takes one option bag:
 *
 *     fc.assert(fc.asyncProperty(commandArbitrary({ protocol: notes, action: "get" }), async ({ command, text }) => { ... }))
 *
 * A command comes as a structured value with its text, `{ command: { protocol, action, args },
 * text }`; by default its values mix what breaks things with what works (a required parameter
 * now and then missing, an unknown one added), and with `validOnly` every value is one its
 * parameter's schema accepts, every required parameter is there and no unknown one. Every command
 * is written on one line, so a failing case is a one-line script `clio replay` reproduces.
 */
import fc from "fast-check";
import type { ActionDefinition, ParameterDefinition, ProtocolDefinition } from "../../protocols/contract/protocol.js";
import { isRequired, readWritten, staticPermission, valueArbitrary, writeWord, type FuzzTargets } from "./arbitraries.js";

/** A generated command: what it says, and how it is written. */
export interface GeneratedCommand {
  /** `args` holds each value as the command's text gives it (unquoted), before its kind decodes it (base64 bytes, JSON text). */
  command: { protocol: string; action: string; args: Record<string, string> };
  text: string;
}

export interface CommandOptions extends FuzzTargets {
  protocol: ProtocolDefinition;
  /** One action's commands (default: any action of the protocol). */
  action?: string;
  /** Well-formed commands only: values their schemas accept, required parameters all given, no unknown one. */
  validOnly?: boolean;
  /** How often an optional parameter is given (0 to 1; default 0.45, or 0.5 with `validOnly`). */
  optionalChance?: number;
}

export interface ScriptOptions extends Omit<CommandOptions, "action"> {
  /** Most commands in a script (default 3). */
  maxCommands?: number;
}

const UNKNOWN_PARAMETERS: [string, string][] = [
  ["colour", "red"],
  ["force", "1"],
  ["path2", '"x"'],
];

function actionCommand(protocol: string, actionName: string, definition: ActionDefinition, options: Omit<CommandOptions, "protocol">): fc.Arbitrary<GeneratedCommand> {
  const permission = staticPermission(definition);
  const validOnly = options.validOnly ?? false;
  const optionalChance = options.optionalChance ?? (validOnly ? 0.5 : 0.45);
  const entries = Object.entries(definition.parameters as Record<string, ParameterDefinition>);
  const parameters = entries.map(([key, parameter]) =>
    fc
      .tuple(
        fc.double({ min: 0, max: 1, noNaN: true }),
        valueArbitrary({ parameter, permission, validOnly, ...(options.outsidePaths ? { outsidePaths: options.outsidePaths } : {}) }),
      )
      .map(([roll, written]): [string, string] | undefined => ((isRequired(parameter) ? validOnly || roll < 0.92 : roll < optionalChance) ? [key, written] : undefined)),
  );
  const extra: fc.Arbitrary<[string, string] | undefined> = validOnly
    ? fc.constant(undefined)
    : fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...UNKNOWN_PARAMETERS) });
  return fc.tuple(fc.tuple(...parameters), extra).map(([chosen, unknown]) => {
    const given = chosen.filter((entry): entry is [string, string] => entry !== undefined);
    if (unknown) given.push(unknown);
    const text = `[${protocol}:${[`action=${writeWord(actionName)}`, ...given.map(([key, written]) => `${key}=${written}`)].join(":")}]`;
    return { command: { protocol, action: actionName, args: Object.fromEntries(given.map(([key, written]) => [key, readWritten(written)])) }, text };
  });
}

/** Commands for one action of a protocol (`action`), or for any of its actions. */
export function commandArbitrary(options: CommandOptions): fc.Arbitrary<GeneratedCommand> {
  const { protocol, action } = options;
  if (action !== undefined) {
    const definition = protocol.actions[action];
    if (!definition) throw new RangeError(`${protocol.name} has no action "${action}"; its actions: ${Object.keys(protocol.actions).join(", ")}.`);
    return actionCommand(protocol.name, action, definition, options);
  }
  return fc.oneof(...Object.entries(protocol.actions).map(([name, definition]) => actionCommand(protocol.name, name, definition, options)));
}

/** Commands that are wrong before any handler could see them: unknown actions, no action, broken syntax. */
export function malformedCommandArbitrary(options: { protocol: ProtocolDefinition }): fc.Arbitrary<string> {
  const name = options.protocol.name;
  const action = fc.constantFrom(...Object.keys(options.protocol.actions), "missing_action");
  return fc.oneof(
    fc.stringMatching(/^[a-z_]{1,10}$/).map((word) => `[${name}:action=${word}]`),
    fc.constant(`[${name}:path="x"]`),
    action.map((word) => `[${name}:action=${word}:action=${word}]`),
    action.map((word) => `[${name}:action=${word}:path="unterminated]`),
    action.map((word) => `[${name.toLowerCase()}:action=${word}:key=]`),
    action.map((word) => `[${name}:action=${word}:path=a b]`),
  );
}

/**
 * A short script for one protocol: 1 to `maxCommands` commands, each as one line of text —
 * mostly well-formed, and (unless `validOnly`) now and then a malformed one.
 */
export function scriptArbitrary(options: ScriptOptions): fc.Arbitrary<string[]> {
  const { maxCommands = 3, ...commandOptions } = options;
  const command = commandArbitrary(commandOptions).map((generated) => generated.text);
  const line = options.validOnly ? command : fc.oneof({ weight: 8, arbitrary: command }, { weight: 1, arbitrary: malformedCommandArbitrary(options) });
  return fc.array(line, { minLength: 1, maxLength: maxCommands });
}
