/** Planted bug: the command machine ends a bare value at its first space, so it refuses `[A:k=a b]`, which Chevrotain reads. */
import { clioGrammar } from "../../../src/fuzz/grammar-fuzz.js";
import type { GrammarUnderTest } from "../../../src/fuzz/grammar-laws.js";

export const grammar: GrammarUnderTest = {
  ...clioGrammar,
  parse(text) {
    const result = clioGrammar.parse(text);
    const spaced = result.commands.filter((command) => command.parameters.some((parameter) => parameter.form === "bare" && parameter.raw.includes(" ")));
    result.commands = result.commands.filter((command) => !spaced.includes(command));
    for (const command of spaced) result.errors.push({ code: "unexpected_character", message: "a bare value ends at a space", span: command.span });
    return result;
  },
};
