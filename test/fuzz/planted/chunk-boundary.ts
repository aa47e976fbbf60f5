/** Planted bug: the streaming scanner loses a command whose closing `]` arrives at the very start of a chunk. */
import { clioGrammar } from "../../../src/fuzz/grammar-fuzz.js";
import type { GrammarUnderTest } from "../../../src/fuzz/grammar-laws.js";

export const grammar: GrammarUnderTest = {
  parse: clioGrammar.parse,
  print: clioGrammar.print,
  scan(chunks) {
    const result = clioGrammar.scan(chunks);
    const starts = new Set<number>();
    let offset = 0;
    for (const chunk of chunks) {
      starts.add(offset);
      offset += chunk.length;
    }
    result.commands = result.commands.filter((command) => !(starts.has(command.span.end.offset - 1) && command.span.end.offset - 1 > 0));
    return result;
  },
};
