/**
 * Reviewing differences one by one (like `cargo insta review`): each accepted difference takes
 * the new result into the expectation file, each skipped one keeps the recorded result.
 */
import { carriedOver, type ExpectationFile, type ExpectedResult } from "./expectations.js";
import { matchResults } from "./matching.js";

/** A difference the person may accept: a pairing of a recorded result, a new one, or both. */
export interface ReviewItem {
  expected?: ExpectedResult;
  actual?: ExpectedResult;
  /** Where it stands among the pairings, to rebuild the file. */
  position: number;
}

/** The file with the accepted items taken from the run, everything else as recorded. */
export function applyReview(file: ExpectationFile, actual: readonly ExpectedResult[], accepted: ReadonlySet<number>): ExpectationFile {
  const results: ExpectedResult[] = [];
  matchResults(file.results, actual).forEach((pairing, position) => {
    const before = pairing.expected === undefined ? undefined : file.results[pairing.expected];
    const after = pairing.actual === undefined ? undefined : actual[pairing.actual];
    if (!accepted.has(position)) {
      if (before) results.push(before);
      return;
    }
    if (after) results.push(before ? carriedOver(after, before) : after);
  });
  return { ...file, results };
}

/** Each pairing that differs, by its position: what `applyReview` takes when it is accepted. */
export function reviewItems(file: ExpectationFile, actual: readonly ExpectedResult[], differs: (expected: ExpectedResult, actual: ExpectedResult) => boolean): ReviewItem[] {
  const items: ReviewItem[] = [];
  matchResults(file.results, actual).forEach((pairing, position) => {
    const expected = pairing.expected === undefined ? undefined : file.results[pairing.expected];
    const got = pairing.actual === undefined ? undefined : actual[pairing.actual];
    if (!expected || !got || pairing.moved || differs(expected, got)) items.push({ ...(expected ? { expected } : {}), ...(got ? { actual: got } : {}), position });
  });
  return items;
}
