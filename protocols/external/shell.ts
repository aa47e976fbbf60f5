/**
 * Shell protocols: protocols a person declares in config as command templates.
 *
 *     "shellProtocols": { "WORDS": { "summary": "Count words", "actions": {
 *       "count": { "summary": "Count the words of a file", "command": "wc -w {path}", "parameters": { "path": "text" } } } } }
 *
 * Each `{param}` is replaced by the argument quoted for /bin/sh, so the shell never interprets
 * it (`{{` and `}}` are literal braces). An action runs like EXEC run: exec class, EXEC's
 * environment, timeouts, output limits and containment, in the workspace root.
 */
import { z } from "zod";
import { shellQuote } from "../../tools/exec/environment.js";
import type { Spawn } from "../../tools/exec/process-group.js";
import { defineAction, parameter, type ActionDefinition, type ParameterDefinition, type ProtocolDefinition } from "../contract/protocol.js";
import { runCommandLine, type SandboxNotice } from "../exec.js";
import { isActionWord, isProtocolName } from "./naming.js";

export const shellParameterKinds = ["text", "word", "integer", "number", "boolean", "json"] as const;
export type ShellParameterKind = (typeof shellParameterKinds)[number];

export interface ShellParameterConfig {
  kind: ShellParameterKind;
  description?: string;
  /** An optional parameter left out is replaced by nothing. */
  optional?: boolean;
}

export interface ShellActionConfig {
  summary: string;
  command: string;
  parameters?: Record<string, ShellParameterKind | ShellParameterConfig>;
  /** Seconds (default EXEC's default timeout). */
  timeout?: number;
}

export interface ShellProtocolConfig {
  summary: string;
  actions: Record<string, ShellActionConfig>;
}

type Piece = { literal: string } | { parameter: string };

/** What is wrong with a declaration, and how to fix it (the caller reports it as a config problem). */
export class DeclarationProblem extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

export type ShellProtocolResult = { ok: true; protocol: ProtocolDefinition } | { ok: false; message: string; hint: string };

/** A template's pieces; throws DeclarationProblem naming `where` for an unknown or unclosed `{param}`. */
export function parseTemplate(template: string, known: readonly string[], where: string): Piece[] {
  const pieces: Piece[] = [];
  let literal = "";
  for (let index = 0; index < template.length; index++) {
    const character = template[index]!;
    const next = template[index + 1];
    if ((character === "{" && next === "{") || (character === "}" && next === "}")) {
      literal += character;
      index++;
      continue;
    }
    if (character === "}") throw new DeclarationProblem(`${where}: a lone "}" at character ${index + 1} of the command.`, 'Write "}}" for a literal brace.');
    if (character !== "{") {
      literal += character;
      continue;
    }
    const close = template.indexOf("}", index);
    const name = close === -1 ? "" : template.slice(index + 1, close);
    if (close === -1 || !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) {
      throw new DeclarationProblem(
        `${where}: "{" at character ${index + 1} of the command does not start a {parameter}.`,
        'Write {name} for a parameter, or "{{" for a literal brace.',
      );
    }
    if (!known.includes(name)) {
      throw new DeclarationProblem(
        `${where}: the command uses {${name}}, which is not one of its parameters (${known.length === 0 ? "it has none" : known.join(", ")}).`,
        `Declare "${name}" under parameters, or fix the name in the command.`,
      );
    }
    if (literal !== "") pieces.push({ literal });
    literal = "";
    pieces.push({ parameter: name });
    index = close;
  }
  if (literal !== "") pieces.push({ literal });
  return pieces;
}

/** The command line with every parameter's value shell-quoted; left-out optional parameters are nothing. */
export function fillTemplate(pieces: readonly Piece[], values: Record<string, unknown>): string {
  return pieces
    .map((piece) => {
      if ("literal" in piece) return piece.literal;
      const value = values[piece.parameter];
      if (value === undefined) return "";
      return shellQuote(typeof value === "string" ? value : JSON.stringify(value));
    })
    .join("");
}

function parameterFor(config: ShellParameterKind | ShellParameterConfig): ParameterDefinition {
  const { kind, description, optional } = typeof config === "string" ? { kind: config, description: undefined, optional: false } : config;
  const text = description ?? `a ${kind === "json" ? "JSON value" : kind}`;
  const required = (definition: ParameterDefinition): ParameterDefinition => (optional ? { ...definition, schema: definition.schema.optional() } : definition);
  switch (kind) {
    case "text":
      return required(parameter.text(text));
    case "word":
      return required(parameter.word(text, z.string().min(1)));
    case "integer":
      return optional ? parameter.integer(text) : parameter.requiredInteger(text);
    case "boolean":
      return optional ? parameter.boolean(text) : parameter.requiredBoolean(text);
    case "number":
      return required(
        parameter.word(
          text,
          z.preprocess((value) => (typeof value === "string" && value.trim() !== "" ? Number(value) : value), z.number({ invalid_type_error: "expected a number" }).finite()),
        ),
      );
    case "json":
      return required(parameter.json(text, z.unknown()));
  }
}

/** The protocol a shell-protocol config declares, or what is wrong with the declaration. */
export function shellProtocol(name: string, config: ShellProtocolConfig, options: { source: string; spawn?: Spawn }): ShellProtocolResult {
  try {
    return { ok: true, protocol: buildShellProtocol(name, config, options) };
  } catch (error) {
    if (error instanceof DeclarationProblem) return { ok: false, message: error.message, hint: error.hint };
    throw error;
  }
}

function buildShellProtocol(name: string, config: ShellProtocolConfig, options: { source: string; spawn?: Spawn }): ProtocolDefinition {
  if (!isProtocolName(name))
    throw new DeclarationProblem(
      `${options.source}: shellProtocols key ${JSON.stringify(name)} is not a protocol name.`,
      "Use letters, digits and _, starting with a letter (e.g. WORDS).",
    );
  const actions: Record<string, ActionDefinition> = Object.create(null) as Record<string, ActionDefinition>;
  // Like EXEC, a shell protocol says once that commands run without the bubblewrap sandbox.
  const notice: SandboxNotice = {};
  for (const [actionName, action] of Object.entries(config.actions)) {
    const where = `${options.source}: shellProtocols.${name}.actions.${actionName}`;
    if (!isActionWord(actionName)) throw new DeclarationProblem(`${where}: the action name is not a word.`, "Use letters, digits, _, . and -.");
    const parameters = Object.fromEntries(Object.entries(action.parameters ?? {}).map(([key, kind]) => [key, parameterFor(kind)]));
    for (const key of Object.keys(parameters)) {
      if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) || key === "action")
        throw new DeclarationProblem(`${where}: parameter ${JSON.stringify(key)} cannot be written as a key.`, 'Use letters, digits, _ and -, not "action".');
    }
    const pieces = parseTemplate(action.command, Object.keys(parameters), where);
    actions[actionName] = defineAction<Record<string, unknown>>({
      summary: action.summary,
      permission: "exec",
      parameters,
      describe: (args) => {
        const line = fillTemplate(pieces, args);
        return `Running ${name} ${actionName}: ${line.length <= 70 ? line : `${line.slice(0, 69)}…`}`;
      },
      handler: (args, { environment, signal }) =>
        runCommandLine(environment, signal, fillTemplate(pieces, args), {
          label: `${name} ${actionName}`,
          notice,
          ...(action.timeout === undefined ? {} : { timeoutSeconds: action.timeout }),
          ...(options.spawn ? { spawn: options.spawn } : {}),
        }),
    });
  }
  return { name: name.toUpperCase(), summary: config.summary, actions, fromOutside: true };
}
