/**
 * Planted bug: the Chevrotain parser's recovery supplies a missing closing `]` at the end of the
 * text, so it reads a command cut off there as whole, while the command machine rightly refuses it.
 */
import { clioGrammar } from "../../../src/fuzz/grammar-fuzz.js";
import type { GrammarUnderTest } from "../../../src/fuzz/grammar-laws.js";
import { chevrotainReading } from "../../../src/fuzz/recognisers.js";

export const grammar: GrammarUnderTest = {
  ...clioGrammar,
  readCommand(text) {
    const reading = chevrotainReading(text);
    if (reading.ok || text.endsWith("]")) return reading;
    const closed = chevrotainReading(`${text}]`);
    return closed.ok ? closed : reading;
  },
};
