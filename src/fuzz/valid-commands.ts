/**
 * Well-formed commands only, as structured values with their text: `{ command: { protocol,
 * action, args }, text }`. Every value is one its parameter's schema accepts, every required
 * parameter is there, no unknown one — for properties about what a handler does with good input
 * (the robustness arbitraries in arbitraries.ts mix in what breaks things).
 */
import fc from "fast-check";
import type { ZodTypeAny } from "zod";
import type { ActionDefinition, ParameterDefinition, ProtocolDefinition } from "../../protocols/contract/protocol.js";
import { isRequired, numberValues, schemaHints, staticPermission, textValues, writeWord, type FuzzTargets } from "./arbitraries.js";

/** A generated command: what it says, and how it is written. */
export interface GeneratedCommand {
  command: { protocol: string; action: string; args: Record<string, string> };
  text: string;
}

export interface ValidCommandOptions extends FuzzTargets {
  /** How often an optional parameter is given (0 to 1, default 0.5). */
  optionalChance?: number;
}

function accepted(definition: ParameterDefinition, value: string): boolean {
  if (definition.kind === "bytes") return definition.schema.safeParse(Buffer.from(value, "base64")).success;
  return definition.schema.safeParse(value).success;
}

/** Raw values for one parameter that its schema accepts (decoded: the text itself, JSON text, base64 of bytes). */
function validValues(definition: ParameterDefinition, action: ActionDefinition, targets: FuzzTargets): fc.Arbitrary<string> {
  const permission = staticPermission(action);
  let values: fc.Arbitrary<string>;
  switch (definition.kind) {
    case "word": {
      const hints = schemaHints(definition.schema as ZodTypeAny);
      const choices: fc.Arbitrary<string>[] = [];
      if (hints.values.length) choices.push(fc.constantFrom(...hints.values));
      if (hints.numeric) choices.push(numberValues(hints).map(String));
      if (!choices.length) choices.push(fc.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/));
      values = fc.oneof(...choices);
      break;
    }
    case "text":
      values = textValues(permission, targets);
      break;
    case "json":
      values = fc.oneof(fc.json({ maxDepth: 2 }), fc.constantFrom("{}", "[]", '["x"]'));
      break;
    case "bytes":
      values = fc.uint8Array({ minLength: 1, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString("base64"));
      break;
  }
  return values.filter((value) => accepted(definition, value));
}

function written(definition: ParameterDefinition, value: string): string {
  if (definition.kind === "word") return writeWord(value);
  if (definition.kind === "bytes") return value;
  return JSON.stringify(value);
}

/** Well-formed commands for one action, as structured values with their one-line text. */
export function validCommandForAction(protocol: string, actionName: string, definition: ActionDefinition, options: ValidCommandOptions = {}): fc.Arbitrary<GeneratedCommand> {
  const entries = Object.entries(definition.parameters as Record<string, ParameterDefinition>);
  const chance = options.optionalChance ?? 0.5;
  const parameters = entries.map(([key, parameter]) =>
    fc
      .tuple(fc.double({ min: 0, max: 1, noNaN: true }), validValues(parameter, definition, options))
      .map(([roll, value]) => (isRequired(parameter) || roll < chance ? ([key, value] as const) : undefined)),
  );
  return fc.tuple(...parameters).map((chosen) => {
    const given = chosen.filter((entry): entry is readonly [string, string] => entry !== undefined);
    const args = Object.fromEntries(given);
    const text = `[${protocol}:${[`action=${writeWord(actionName)}`, ...given.map(([key, value]) => `${key}=${written(definition.parameters[key]!, value)}`)].join(":")}]`;
    return { command: { protocol, action: actionName, args }, text };
  });
}

/** Well-formed commands for any action of a protocol. */
export function validCommandForProtocol(protocol: ProtocolDefinition, options: ValidCommandOptions = {}): fc.Arbitrary<GeneratedCommand> {
  return fc.oneof(...Object.entries(protocol.actions).map(([name, action]) => validCommandForAction(protocol.name, name, action, options)));
}
