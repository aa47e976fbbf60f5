/** Planted bug: after a syntax error, the streaming scanner skips the next command (its recovery resumes too late). */
import { clioGrammar } from "../../../src/fuzz/grammar-fuzz.js";
import type { GrammarUnderTest } from "../../../src/fuzz/grammar-laws.js";

export const grammar: GrammarUnderTest = {
  parse: clioGrammar.parse,
  print: clioGrammar.print,
  scan(chunks) {
    const result = clioGrammar.scan(chunks);
    const firstError = result.errors[0];
    if (chunks.length > 1 && firstError) {
      const skipped = result.commands.findIndex((command) => command.span.start.offset >= firstError.span.end.offset);
      if (skipped >= 0) result.commands.splice(skipped, 1);
    }
    return result;
  },
};
