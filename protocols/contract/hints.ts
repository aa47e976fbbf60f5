/**
 * Writes a tool's hint in the language: the tool names an action and its arguments, and the
 * protocol that ran it knows its own name and each parameter's kind, so a word is written bare
 * and text quoted (a bare text value would be read as base64).
 */
import { print } from "../../grammar/printer.js";
import { type HintPart, plainHint } from "../../tools/errors.js";
import type { ProtocolDefinition } from "./protocol.js";

/** The hint with every suggested command written as a command of `protocol`. */
export function renderHint(protocol: ProtocolDefinition, parts: HintPart[]): string {
  return parts
    .map((part) => {
      if (typeof part === "string") return part;
      const action = protocol.actions[part.action];
      // A suggestion naming an action the protocol lacks is a fault in the tool; keep its words.
      if (action === undefined) return plainHint([part]);
      const parameters = Object.entries(part.arguments ?? {}).map(([key, text]) => ({
        key,
        form: action.parameters[key]?.kind === "word" ? ("bare" as const) : ("quoted" as const),
        text,
      }));
      return print({ protocol: protocol.name, parameters: [{ key: "action", form: "bare", text: part.action }, ...parameters] });
    })
    .join("");
}
