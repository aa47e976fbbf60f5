/** Planned file changes as a coloured unified diff, cut to a screenful with a count of the rest. */
import type { ChalkInstance } from "chalk";
import type { PlannedChange } from "../../protocols/contract/protocol.js";
import { lineDiffHunks } from "../../tools/line-diff.js";

/** Diff lines shown before a question unless the person asks for all. */
export const DIFF_PREVIEW_LINES = 60;

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
  for (const hunk of lineDiffHunks(before ?? "", after ?? "")) {
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
