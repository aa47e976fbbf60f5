/** Planned file changes as a coloured unified diff, cut to a screenful with a count of the rest. */
import type { ChalkInstance } from "chalk";
import { structuredPatch } from "diff";
import type { PlannedChange } from "../../protocols/contract/protocol.js";

/** Diff lines shown before a question unless the person asks for all. */
export const DIFF_PREVIEW_LINES = 60;
/** Longest the diff of one file may take before it is shown as whole old and new text. */
const DIFF_TIMEOUT_MS = 1000;

export interface RenderedDiff {
  lines: string[];
  /** Lines left out to keep within the limit. */
  hidden: number;
}

/** The diff of every change, at most `maxLines` lines of it (all with Infinity). */
export function renderChanges(changes: readonly PlannedChange[], style: ChalkInstance, maxLines = DIFF_PREVIEW_LINES): RenderedDiff {
  const all = changes.flatMap((change) => changeLines(change, style));
  if (all.length <= maxLines) return { lines: all, hidden: 0 };
  return { lines: all.slice(0, maxLines), hidden: all.length - maxLines };
}

function changeLines(change: PlannedChange, style: ChalkInstance): string[] {
  const header = (text: string) => style.bold(text);
  if (change.unknown !== undefined) return [header(`${change.path}`) + style.dim(` (${change.unknown}: its content is not shown)`)];
  const { before, after } = change;
  if (before === after) return [header(change.path) + style.dim(" (unchanged)")];
  const title = before === null ? `${change.path} (new file)` : after === null ? `${change.path} (deleted)` : change.path;
  const lines = [header(`─── ${title}`)];
  const patch = structuredPatch(change.path, change.path, before ?? "", after ?? "", undefined, undefined, { context: 3, timeout: DIFF_TIMEOUT_MS });
  const hunks = patch?.hunks ?? [wholeHunk(before ?? "", after ?? "")];
  for (const hunk of hunks) {
    lines.push(style.cyan(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`));
    for (const line of hunk.lines) {
      if (line.startsWith("\\")) lines.push(style.dim(line));
      else if (line.startsWith("+")) lines.push(style.green(line));
      else if (line.startsWith("-")) lines.push(style.red(line));
      else lines.push(style.dim(line));
    }
  }
  return lines;
}

/** Every old line removed and every new line added, for a diff that took too long. */
function wholeHunk(before: string, after: string) {
  const split = (text: string) => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));
  const removed = split(before).map((line) => `-${line}`);
  const added = split(after).map((line) => `+${line}`);
  return { oldStart: 1, oldLines: removed.length, newStart: 1, newLines: added.length, lines: [...removed, ...added] };
}
