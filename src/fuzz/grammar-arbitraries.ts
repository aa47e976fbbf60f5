/**
 * Text generators for the grammar laws: printable commands (every form, awkward values),
 * prose that cannot start a command, and a soup of command fragments that breaks parsers.
 */
import fc from "fast-check";
import type { PrintableCommand } from "../../grammar/index.js";

const protocolName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,11}$/).filter((name) => name.toUpperCase() !== "RESULT");
const key = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,9}$/);

const awkwardText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.constantFrom("", "]", ":", "\n", "EOF", "```", "`x`", '"', "\\", "[A:b=c]", "line\nEOF\nmore", "a=b:c<<D", "\r\n", "=="),
);

const parameterValue = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9+/_.,@%~-]{1,16}={0,2}$/).map((text) => ({ form: "bare" as const, text })),
  awkwardText.map((text) => ({ form: "quoted" as const, text })),
  awkwardText.map((text) => ({ form: "heredoc" as const, text })),
);

/** A command with 1–4 parameters with distinct keys, in any form. */
export function commandArbitrary(): fc.Arbitrary<PrintableCommand> {
  return fc
    .tuple(protocolName, fc.uniqueArray(fc.tuple(key, parameterValue), { minLength: 1, maxLength: 4, selector: ([name]) => name }))
    .map(([protocol, parameters]) => ({
      protocol,
      parameters: parameters.map(([name, value]) => ({ key: name, form: value.form, text: value.text })),
    }));
}

/** Prose that holds no bracket, backquote, tilde or backslash: nothing in it can start or hide a command. */
export function proseArbitrary(): fc.Arbitrary<string> {
  return fc.stringMatching(/^[A-Za-z0-9 .,;!?'()\n-]{0,40}$/).map((text) => (text.endsWith("\n") || text === "" ? text : `${text} `));
}

const fragments = [
  "[", "]", "FILE_OP", "X", ":", "action", "=", "read", "path", '"', '\\"', "<<", "EOF", "\n", "  ", "\t",
  "```", "~~~", "`", "\\[", "[x]", "[NOTE]", "[A:b=c]", "abc", "===", "\r", "é", "😀", "[RESULT:x=1]", "{", "}",
];

/** Random concatenations of command fragments: mostly broken commands, fences and code spans. */
export function soupArbitrary(): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...fragments), { maxLength: 40 }).map((parts) => parts.join(""));
}
