/**
 * Checking the grammar laws (grammar-laws.ts) with fast-check: a number of runs or a time budget
 * per law, statistics of what the cases held, and a counterexample shrunk by fast-check and then
 * by dropping whole pieces and chunk boundaries, shown compactly with expected and actual side by side.
 */
import fc from "fast-check";
import { parse, print, StreamingScanner, type ParseResult } from "../../grammar/index.js";
import { collectEvents } from "../../grammar/parse.js";
import { describeViolation, emptyStatistics, FuzzInterrupted, grammarLaws, type GrammarUnderTest, type Law, type LawStatistics } from "./grammar-laws.js";
import type { FuzzFailure, FuzzOutcome } from "./protocol-fuzz.js";

export interface GrammarFuzzOptions {
  runs: number;
  seed: number;
  /** Stop each law after this long (its runs so far count); `runs` is then an upper bound. */
  timeLimitMs?: number;
  /** The grammar under test (default: clio's own). */
  grammar?: GrammarUnderTest;
  /** Stop between laws (and inside one, at the next case) when aborted. */
  signal?: AbortSignal;
  /** Called with each law's outcome as soon as it is known. */
  onOutcome?: (outcome: FuzzOutcome) => void;
  /** Only the laws with these names (default: all). */
  laws?: readonly string[];
}

/** clio's own grammar. */
export const clioGrammar: GrammarUnderTest = {
  parse,
  print,
  scan(chunks) {
    const scanner = new StreamingScanner();
    const result: ParseResult = { commands: [], mentions: [], errors: [] };
    for (const chunk of chunks) collectEvents(scanner.push(chunk), result);
    return collectEvents(scanner.end(), result);
  },
};

/** Tries smaller values while the law still fails; gives the smallest found. */
export function reduceCounterexample<Value>(law: Law<Value>, value: Value, grammar: GrammarUnderTest, budget = 2000): Value {
  if (!law.reduce) return value;
  const fails = (candidate: Value) => {
    try {
      law.check(candidate, grammar, emptyStatistics());
      return false;
    } catch {
      return true;
    }
  };
  let current = value;
  for (let changed = true, steps = 0; changed && steps < budget; ) {
    changed = false;
    for (const candidate of law.reduce(current)) {
      if (++steps > budget) break;
      if (fails(candidate)) {
        current = candidate;
        changed = true;
        break;
      }
    }
  }
  return current;
}

/** A law's failure for one value: the problem (with expected and actual side by side) and the value shown. */
export function lawFailure<Value>(law: Law<Value>, value: Value, grammar: GrammarUnderTest): string | undefined {
  try {
    law.check(value, grammar, emptyStatistics());
    return undefined;
  } catch (error) {
    return describeViolation(error);
  }
}

/** Checks every grammar law; each outcome names its law and says what its cases held. */
export async function fuzzGrammar(options: GrammarFuzzOptions): Promise<FuzzOutcome[]> {
  const grammar = options.grammar ?? clioGrammar;
  const outcomes: FuzzOutcome[] = [];
  for (const law of grammarLaws()) {
    if (options.signal?.aborted) break;
    if (options.laws && !options.laws.includes(law.name)) continue;
    const statistics: LawStatistics = emptyStatistics();
    const began = performance.now();
    const property = fc.property(law.arbitrary, (value) => {
      if (options.signal?.aborted) throw new FuzzInterrupted();
      statistics.cases++;
      law.check(value, grammar, statistics);
    });
    const details = fc.check(property, {
      numRuns: options.runs,
      seed: options.seed,
      ...(options.timeLimitMs ? { interruptAfterTimeLimit: options.timeLimitMs, markInterruptAsFailure: false } : {}),
    });
    const outcome: FuzzOutcome = {
      target: law.name,
      runs: statistics.cases,
      counts: { handled: 0, gated: 0, rejected: 0, errors: {} },
      statistics,
      durationMs: performance.now() - began,
    };
    if (details.failed && details.counterexample && !(details.errorInstance instanceof FuzzInterrupted)) {
      const value = reduceCounterexample(law, details.counterexample[0], grammar);
      const failure: FuzzFailure = {
        kind: "grammar",
        target: law.name,
        seed: details.seed,
        runs: options.runs,
        script: law.show(value),
        problem: lawFailure(law, value, grammar) ?? describeViolation(details.errorInstance),
        value,
      };
      if (details.counterexamplePath) failure.path = details.counterexamplePath;
      outcome.failure = failure;
    }
    outcomes.push(outcome);
    options.onOutcome?.(outcome);
    // Let a pending Ctrl-C through between laws.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return outcomes;
}
