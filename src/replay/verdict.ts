/**
 * A script's verdict in a test run: which commands passed, which failed, and whether the script
 * passed. Counting (docs/scripts.md, "CI reporting"): with expectations, a command passes when
 * its result matches the recorded one; a command that differs, moved, is new, or was recorded
 * but did not run fails. Without expectations, a command passes when it succeeded; one a stop
 * left unrun fails. A script passes when all its commands pass (and its file names it).
 */
import { compareResults, type Difference, type TextMatcher } from "./compare.js";
import type { ExpectationFile, ExpectedResult } from "./expectations.js";

export interface ScriptVerdict {
  /** For each result of the run, in order: whether it matched its recorded result (null: nothing to compare with). */
  matches: (boolean | null)[];
  differences: Difference[];
  commands: { passed: number; failed: number };
  passed: boolean;
}

export interface VerdictOptions {
  scriptName: string;
  /** The recorded results; without them, success is what counts. */
  expectations?: ExpectationFile;
  /** Only part of the script ran (`--only`): recorded commands that did not run are no failures. */
  partial?: boolean;
  /** Commands of the script that a stop left unrun. */
  notRun?: number;
  matches?: TextMatcher;
}

export function judgeRun(actual: readonly ExpectedResult[], options: VerdictOptions): ScriptVerdict {
  if (!options.expectations) {
    const verdict = judgeBySuccess(actual.length, actual.filter((result) => !result.ok).length, options.notRun ?? 0);
    return { ...verdict, matches: actual.map(() => null) };
  }
  const differences = compareResults(options.expectations, options.scriptName, [...actual], options.matches).filter(
    (difference) => !(options.partial && difference.kind === "missing"),
  );
  const matches = actual.map((): boolean | null => true);
  let missing = 0;
  for (const difference of differences) {
    if (difference.kind === "result" || difference.kind === "unexpected") matches[difference.index] = false;
    if (difference.kind === "missing") missing++;
  }
  const failed = matches.filter((match) => match === false).length + missing;
  const passed = actual.length - matches.filter((match) => match === false).length;
  return { matches, differences, commands: { passed, failed }, passed: differences.length === 0 };
}

/** The verdict without expectations, from counts: of `ran` results `failed` were not ok, and `notRun` commands a stop left unrun. */
export function judgeBySuccess(ran: number, failed: number, notRun: number): ScriptVerdict {
  const failedCommands = failed + notRun;
  return { matches: [], differences: [], commands: { passed: ran - failed, failed: failedCommands }, passed: failedCommands === 0 };
}

/** Error codes that mean a command did not really run: refused for want of permission, or cancelled. */
export const NOT_RUN_CODES: readonly string[] = ["permission_denied", "cancelled"];

/** The results `--update` must not record as golden without `--accept-refused`. */
export function refusedResults(results: readonly ExpectedResult[]): ExpectedResult[] {
  return results.filter((result) => result.error !== undefined && NOT_RUN_CODES.includes(result.error.code));
}
