/** Planted bug: the JSON escape `\/` in a quoted value is read as `\/` instead of `/`. */
import { clioGrammar } from "../../../src/fuzz/grammar-fuzz.js";
import type { GrammarUnderTest } from "../../../src/fuzz/grammar-laws.js";
import type { ParseResult } from "../../../grammar/index.js";

function plant(result: ParseResult): ParseResult {
  for (const command of result.commands) {
    for (const parameter of command.parameters) {
      if (parameter.form === "quoted" && parameter.raw.includes("\\/")) parameter.text = parameter.text.replace(/\//g, "\\/");
    }
  }
  return result;
}

export const grammar: GrammarUnderTest = {
  parse: (text) => plant(clioGrammar.parse(text)),
  print: clioGrammar.print,
  scan: (chunks) => plant(clioGrammar.scan(chunks)),
};
