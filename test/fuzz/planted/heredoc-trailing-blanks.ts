/** Planted bug: a heredoc terminator line with trailing spaces or tabs does not close the body (issue 21). */
import { clioGrammar } from "../../../src/fuzz/grammar-fuzz.js";
import type { GrammarUnderTest } from "../../../src/fuzz/grammar-laws.js";

// A terminator followed by blanks reads as a body line: the tag gets a character it cannot close with.
const plant = (text: string) => text.replace(/^([A-Za-z_][A-Za-z0-9_]*)[ \t]+$/gm, "$1\u0001");

export const grammar: GrammarUnderTest = {
  parse: (text) => clioGrammar.parse(plant(text)),
  print: clioGrammar.print,
  scan: (chunks) => clioGrammar.scan([plant(chunks.join(""))]),
};
