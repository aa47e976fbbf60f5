/**
 * The readable report of a replay that does not match its expectations: where each differing
 * command stands (file:line:column), which fields differ, expected against actual, and a
 * unified diff of the outputs (and of any long or multi-line text).
 */
import { lineDiffHunks } from "../../tools/line-diff.js";
import type { Difference, FieldDifference } from "./compare.js";
import type { ExpectedResult } from "./expectations.js";

export interface DifferenceReportOptions {
  /** The script as the person named it. */
  script: string;
  /** The expectation file as the person named it. */
  expectations: string;
  /** Commands shown in full before the rest are only counted (default 3; Infinity shows all). */
  limit?: number;
}

const SHORT_FIELD = 120;
/** Characters shown before the first difference of a long one-line text. */
const LEAD = 40;

/** A unified diff of two texts, hunk headers included, without file headers. */
export function unifiedDiff(expected: string, actual: string, context = 2): string {
  const lines: string[] = ["--- expected", "+++ actual"];
  for (const hunk of lineDiffHunks(expected, actual, context)) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    lines.push(...hunk.lines.filter((line) => !line.startsWith("\\")));
  }
  return lines.join("\n");
}

function firstDifference(left: string, right: string): number {
  let index = 0;
  while (index < left.length && index < right.length && left[index] === right[index]) index++;
  return index;
}

/** A long one-line text cut around `from`, so two long texts that differ late never look the same. */
function window(text: string, from: number): string {
  const start = Math.max(0, from - LEAD);
  const end = start + SHORT_FIELD;
  return `${start > 0 ? "…" : ""}${JSON.stringify(text.slice(start, end))}${end < text.length ? `… (${text.length} characters)` : ""}`;
}

function formatField(difference: FieldDifference): string[] {
  const { field, expected, actual } = difference;
  const multiLine = field === "output" || expected.includes("\n") || actual.includes("\n");
  if (multiLine) {
    const diff = unifiedDiff(expected ? `${expected}\n` : "", actual ? `${actual}\n` : "");
    return [`  ${field} differs:`, ...diff.split("\n").map((line) => `    ${line}`)];
  }
  if (expected.length <= SHORT_FIELD && actual.length <= SHORT_FIELD) return [`  ${field}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  const from = firstDifference(expected, actual);
  return [`  ${field} differs from character ${from + 1}:`, `    expected ${window(expected, from)}`, `    got      ${window(actual, from)}`];
}

function label(result: Pick<ExpectedResult, "protocol" | "action">): string {
  return result.action ? `${result.protocol}.${result.action}` : result.protocol;
}

function position(result: Pick<ExpectedResult, "line" | "column">): string {
  return result.line === null ? "" : `:${result.line}:${result.column ?? "?"}`;
}

function written(result: ExpectedResult): string {
  return result.command === undefined ? label(result) : JSON.stringify(result.command.length > SHORT_FIELD ? `${result.command.slice(0, SHORT_FIELD)}…` : result.command);
}

function formatDifference(difference: Exclude<Difference, { kind: "script" }>, options: DifferenceReportOptions): string[] {
  if (difference.kind === "missing") {
    const { expected } = difference;
    return [
      `${options.expectations}: recorded command ${difference.expectedIndex + 1}, ${written(expected)} (${label(expected)}, then at${position(expected) || " ?"}), is not in this run: removed or edited in ${options.script}, or not run. Rewrite the file with --update if that is meant.`,
    ];
  }
  if (difference.kind === "unexpected") {
    const { actual } = difference;
    return [
      `${options.script}${position(actual)} ${label(actual)} (command ${difference.index + 1}) has no recorded result in ${options.expectations}: a new or edited command, ${written(actual)}. Record it with --update.`,
    ];
  }
  const { actual } = difference;
  const lines: string[] = [];
  if (difference.movedFrom !== undefined) {
    lines.push(
      `${options.script}${position(actual)} ${label(actual)} (command ${difference.index + 1}) moved: it was recorded as command ${difference.movedFrom + 1}${difference.fields.length ? ", and its result differs:" : "."}`,
    );
  } else {
    lines.push(`${options.script}${position(actual)} ${label(actual)} (command ${difference.index + 1}) differs from ${options.expectations}:`);
  }
  for (const field of difference.fields) lines.push(...formatField(field));
  return lines;
}

/** The report, or an empty string when there is no difference. */
export function formatDifferences(differences: Difference[], options: DifferenceReportOptions): string {
  if (!differences.length) return "";
  const limit = options.limit ?? 3;
  const lines: string[] = [];
  let shown = 0;
  for (const difference of differences) {
    if (difference.kind === "script") {
      lines.push(`${options.expectations} was recorded for the script ${difference.expected}, not ${difference.actual}; pass the matching file or rewrite it with --update.`);
      continue;
    }
    if (shown === limit) break;
    shown++;
    lines.push(...formatDifference(difference, options));
  }
  const counted = differences.filter((difference) => difference.kind !== "script");
  if (counted.length > shown) lines.push(`… and ${counted.length - shown} more difference(s) not shown (--show-all shows them).`);
  return lines.join("\n");
}
