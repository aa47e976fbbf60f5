/**
 * `clio replay … --expect --review`: after the run, each difference is shown and the person
 * answers a (accept it), A (accept it and all the rest), s (skip it) or q (skip the rest).
 * Answers are read line by line from standard input, a terminal or a pipe.
 */
import { createInterface } from "node:readline";
import { compareFields, type Difference } from "../replay/compare.js";
import { formatDifferences } from "../replay/difference-report.js";
import type { ExpectationFile, ExpectedResult } from "../replay/expectations.js";
import { applyReview, reviewItems } from "../replay/review.js";
import { serialiseExpectationFile } from "../replay/expectations.js";
import { writeAtomically } from "./expect-option.js";

export interface ReviewTarget {
  script: string;
  file: string;
  expectations: ExpectationFile;
  actual: ExpectedResult[];
}

function asDifference(item: ReturnType<typeof reviewItems>[number], index: number): Difference {
  if (!item.actual) return { kind: "missing", expected: item.expected!, expectedIndex: index };
  if (!item.expected) return { kind: "unexpected", index, actual: item.actual };
  return { kind: "result", index, expected: item.expected, actual: item.actual, fields: compareFields(item.expected, item.actual) };
}

/** Reviews every script's differences in turn; gives how many stay unaccepted. */
export async function reviewDifferences(targets: ReviewTarget[], say: (text: string) => void): Promise<number> {
  const lines = createInterface({ input: process.stdin, terminal: false })[Symbol.asyncIterator]();
  const ask = async (question: string): Promise<string> => {
    process.stderr.write(question);
    const next = await lines.next();
    return next.done ? "q" : next.value.trim();
  };
  let left = 0;
  let acceptAll = false;
  let quit = false;
  for (const target of targets) {
    const items = reviewItems(target.expectations, target.actual, (expected, actual) => compareFields(expected, actual).length > 0);
    const accepted = new Set<number>();
    for (const [index, item] of items.entries()) {
      if (quit) break;
      say(formatDifferences([asDifference(item, item.actual ? target.actual.indexOf(item.actual) : index)], { script: target.script, expectations: target.file, limit: Infinity }));
      let answer = acceptAll ? "a" : "";
      while (!["a", "A", "s", "q"].includes(answer)) answer = await ask(`Accept this change into ${target.file}? [a]ccept / [A]ccept all / [s]kip / [q]uit: `);
      if (answer === "A") acceptAll = true;
      if (answer === "q") quit = true;
      if (answer === "a" || answer === "A") accepted.add(item.position);
    }
    left += items.length - accepted.size;
    if (accepted.size) {
      await writeAtomically(target.file, serialiseExpectationFile(applyReview(target.expectations, target.actual, accepted)));
      say(`Accepted ${accepted.size} of ${items.length} change(s) into ${target.file}.`);
    } else if (items.length) {
      say(`${target.file} is unchanged.`);
    }
  }
  lines.return?.();
  return left;
}
