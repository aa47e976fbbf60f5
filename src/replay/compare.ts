/**
 * Comparing a run (its results in recorded form) with the recorded expectations: results are
 * paired by order and content (see matching.ts), then compared field by field.
 */
import type { ExpectationFile, ExpectedResult } from "./expectations.js";
import { matchResults } from "./matching.js";
import { textMatches } from "./patterns.js";

/** One field of one command that differs. */
export interface FieldDifference {
  field: "ok" | "error.code" | "error.message" | "description" | "output";
  expected: string;
  actual: string;
}

export type Difference =
  /** The recorded file names another script. */
  | { kind: "script"; expected: string; actual: string }
  /** A recorded command that this run did not give: removed from the script, edited, or not run. */
  | { kind: "missing"; expected: ExpectedResult; expectedIndex: number }
  /** A command of this run (`index` from 0) with no recorded result: new, or edited. */
  | { kind: "unexpected"; index: number; actual: ExpectedResult }
  /** A command whose result differs, or that stands elsewhere among the others (`movedFrom`, from 0); `fields` may then be empty. */
  | { kind: "result"; index: number; expected: ExpectedResult; actual: ExpectedResult; fields: FieldDifference[]; movedFrom?: number };

/** How an expected text is compared with an actual one (by default with the `[..]` and `...` wildcards). */
export type TextMatcher = (expected: string, actual: string) => boolean;

const equal: TextMatcher = textMatches;

/** The fields of one pair of results that differ. */
export function compareFields(wanted: ExpectedResult, got: ExpectedResult, matches: TextMatcher = equal): FieldDifference[] {
  const fields: FieldDifference[] = [];
  const compare = (field: FieldDifference["field"], left: string, right: string, loose: boolean) => {
    if (!(loose ? matches(left, right) : left === right)) fields.push({ field, expected: left, actual: right });
  };
  compare("ok", String(wanted.ok), String(got.ok), false);
  compare("error.code", wanted.error?.code ?? "(none)", got.error?.code ?? "(none)", false);
  // A machine-dependent output often shows in a failure's message too: then only its first line counts.
  const message = (result: ExpectedResult) => (wanted.ignoreOutput ? result.error?.message.split("\n")[0] : result.error?.message) ?? "(none)";
  compare("error.message", message(wanted), message(got), true);
  compare("description", wanted.description, got.description, true);
  if (!wanted.ignoreOutput) compare("output", wanted.output.join("\n"), got.output.join("\n"), true);
  return fields;
}

/** Compares a run (already turned into expected form) with the recorded expectations. */
export function compareResults(expected: ExpectationFile, script: string, actual: ExpectedResult[], matches: TextMatcher = equal): Difference[] {
  const differences: Difference[] = [];
  if (expected.script !== script) differences.push({ kind: "script", expected: expected.script, actual: script });
  for (const pairing of matchResults(expected.results, actual)) {
    if (pairing.actual === undefined) {
      differences.push({ kind: "missing", expected: expected.results[pairing.expected!]!, expectedIndex: pairing.expected! });
      continue;
    }
    const got = actual[pairing.actual]!;
    if (pairing.expected === undefined) {
      differences.push({ kind: "unexpected", index: pairing.actual, actual: got });
      continue;
    }
    const wanted = expected.results[pairing.expected]!;
    const fields = compareFields(wanted, got, matches);
    if (fields.length || pairing.moved) {
      differences.push({ kind: "result", index: pairing.actual, expected: wanted, actual: got, fields, ...(pairing.moved ? { movedFrom: pairing.expected } : {}) });
    }
  }
  return differences;
}
