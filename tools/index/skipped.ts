/** One-line reports of the files an index update left out (no index code: protocols load this eagerly). */
import type { SkippedFile, SkipReason } from "./walk.js";

/** Counts skipped files by reason, for one-line reports. */
export function summarizeSkipped(skipped: readonly SkippedFile[]): string {
  if (skipped.length === 0) return "none skipped";
  const counts = new Map<SkipReason, number>();
  for (const entry of skipped) counts.set(entry.reason, (counts.get(entry.reason) ?? 0) + 1);
  const labels: Record<SkipReason, string> = { too_large: "too large", binary: "binary", symlink: "symbolic links", unreadable: "unreadable" };
  return `${skipped.length} skipped (${[...counts].map(([reason, count]) => `${count} ${labels[reason]}`).join(", ")})`;
}
