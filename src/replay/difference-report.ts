/**
 * The readable report of a replay that does not match its expectations: where each differing
 * command stands (file:line:column), which fields differ, expected against actual, and a
 * unified diff of the outputs.
 */
import { structuredPatch } from "diff";
import type { Difference, FieldDifference } from "./expectations.js";

export interface DifferenceReportOptions {
  /** The script as the person named it. */
  script: string;
  /** The expectation file as the person named it. */
  expectations: string;
  /** Commands shown in full before the rest are only counted (default 3). */
  limit?: number;
}

const SHORT_FIELD = 120;

function quoteShort(text: string): string {
  const shown = text.length > SHORT_FIELD ? `${text.slice(0, SHORT_FIELD - 1)}…` : text;
  return JSON.stringify(shown);
}

/** A unified diff of two texts, hunk headers included, without file headers. */
export function unifiedDiff(expected: string, actual: string, context = 2): string {
  const patch = structuredPatch("expected", "actual", expected, actual, undefined, undefined, { context });
  const lines: string[] = ["--- expected", "+++ actual"];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    lines.push(...hunk.lines.filter((line) => !line.startsWith("\\")));
  }
  return lines.join("\n");
}

function formatField(difference: FieldDifference): string[] {
  if (difference.field !== "output") {
    return [`  ${difference.field}: expected ${quoteShort(difference.expected)}, got ${quoteShort(difference.actual)}`];
  }
  const diff = unifiedDiff(difference.expected ? `${difference.expected}\n` : "", difference.actual ? `${difference.actual}\n` : "");
  return ["  output differs:", ...diff.split("\n").map((line) => `    ${line}`)];
}

/** The report, or an empty string when there is no difference. */
export function formatDifferences(differences: Difference[], options: DifferenceReportOptions): string {
  if (!differences.length) return "";
  const limit = options.limit ?? 3;
  const lines: string[] = [];
  let shown = 0;
  for (const difference of differences) {
    if (difference.kind === "script") {
      lines.push(
        `${options.expectations} was recorded for the script ${difference.expected}, not ${difference.actual}; pass the matching file or rewrite it with --update.`,
      );
      continue;
    }
    if (shown === limit) break;
    shown++;
    if (difference.kind === "shape") {
      lines.push(`${options.expectations} does not match ${options.script}: ${difference.message}. Rewrite it with --update if the script changed.`);
      continue;
    }
    const { expected } = difference;
    const position = expected.line === null ? "" : `:${expected.line}:${expected.column}`;
    const name = expected.action ? `${expected.protocol}.${expected.action}` : expected.protocol;
    lines.push(`${options.script}${position} ${name} (command ${difference.index + 1}) differs from ${options.expectations}:`);
    for (const field of difference.fields) lines.push(...formatField(field));
  }
  const counted = differences.filter((difference) => difference.kind !== "script");
  if (counted.length > shown) lines.push(`… and ${counted.length - shown} more difference(s) not shown.`);
  return lines.join("\n");
}
