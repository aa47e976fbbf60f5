/**
 * Unified-diff hunks between two texts, the way git's xdiff starts: the lines the two texts
 * share at their head and tail are set aside first (xdl_trim_ends), and only the lines between
 * are diffed (jsdiff's Myers diff). Besides sparing the diff the unchanged bulk of a file, this
 * places a change among repeated lines where git places it (`x c c` → `c` deletes `x c`, not
 * `x` and the last `c`).
 */
import { diffLines } from "diff";

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** ` `, `-` or `+` and the line without its line feed; `\ No newline at end of file` after a last line that lacks one. */
  lines: string[];
}

/**
 * A run of lines that is the same on both sides, or removed, or added (each line keeps its line
 * feed). The shared head holds only its last `context` lines, the shared tail its first: all
 * a hunk can show of them.
 */
interface Block {
  kind: " " | "-" | "+";
  count: number;
  lines: string[];
}

/** How much diffing work (lines × edits) a file pair may take before it is shown as removed and added whole. */
const EDIT_WORK = 10_000_000;
/** Edits always allowed, however long the file. */
const MIN_EDITS = 200;

/** The lines of `text`, each with its line feed (the last may have none). */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start < text.length) {
    const feed = text.indexOf("\n", start);
    const end = feed === -1 ? text.length : feed + 1;
    lines.push(text.slice(start, end));
    start = end;
  }
  return lines;
}

/** The hunks of a unified diff from `oldText` to `newText` with `context` lines around each change. */
export function lineDiffHunks(oldText: string, newText: string, context = 3): Hunk[] {
  const [oldLines, newLines, head, tail] = trimmed(oldText, newText);
  if (head === oldLines.length && head === newLines.length) return [];
  const blocks: Block[] = [];
  if (head > 0) blocks.push({ kind: " ", count: head, lines: oldLines.slice(Math.max(0, head - context), head) });
  const middleOld = oldLines.slice(head, oldLines.length - tail);
  const middleNew = newLines.slice(head, newLines.length - tail);
  for (const change of boundedDiff(middleOld, middleNew)) {
    const lines = splitLines(change.value);
    blocks.push({ kind: change.added ? "+" : change.removed ? "-" : " ", count: lines.length, lines });
  }
  if (tail > 0) blocks.push({ kind: " ", count: tail, lines: oldLines.slice(oldLines.length - tail, oldLines.length - tail + context) });
  return hunksOf(blocks, context);
}

/**
 * jsdiff's diff of the lines between the shared head and tail. Two runs of lines with no line in
 * common are the old removed and the new added, as git shows them, without a diff; and when the
 * diff would need more edits than the budget allows (its work grows with the lines times the
 * edits: a rewritten file of 10,000 lines took 16 s), the same.
 */
function boundedDiff(before: readonly string[], after: readonly string[]): Array<{ value: string; added?: boolean; removed?: boolean }> {
  const oldText = before.join("");
  const newText = after.join("");
  const known = new Set(before);
  const shared = after.some((line) => known.has(line));
  const maxEditLength = Math.max(MIN_EDITS, Math.floor(EDIT_WORK / (before.length + after.length)));
  const changes = shared ? diffLines(oldText, newText, { maxEditLength }) : undefined;
  if (changes !== undefined) return changes;
  return [
    { value: oldText, removed: true },
    { value: newText, added: true },
  ].filter((change) => change.value !== "");
}

/** How many lines go and come from `oldText` to `newText`, by the same bounded diff. */
export function countLineChanges(oldText: string, newText: string): { added: number; removed: number } {
  const [oldLines, newLines, head, tail] = trimmed(oldText, newText);
  let added = 0;
  let removed = 0;
  for (const change of boundedDiff(oldLines.slice(head, oldLines.length - tail), newLines.slice(head, newLines.length - tail))) {
    const count = splitLines(change.value).length;
    if (change.added) added += count;
    else if (change.removed) removed += count;
  }
  return { added, removed };
}

/** Both texts' lines, and how many lines they share at their head and at their tail (not overlapping). */
function trimmed(oldText: string, newText: string): [oldLines: string[], newLines: string[], head: number, tail: number] {
  const oldLines = splitLines(oldText);
  const newLines = splitLines(newText);
  const shortest = Math.min(oldLines.length, newLines.length);
  let head = 0;
  while (head < shortest && oldLines[head] === newLines[head]) head++;
  let tail = 0;
  while (tail < shortest - head && oldLines[oldLines.length - 1 - tail] === newLines[newLines.length - 1 - tail]) tail++;
  return [oldLines, newLines, head, tail];
}

/** Groups changes into hunks: runs of at most 2 × context shared lines between two changes join them. */
function hunksOf(blocks: readonly Block[], context: number): Hunk[] {
  const hunks: Hunk[] = [];
  let current: Hunk | undefined;
  let oldLine = 1;
  let newLine = 1;
  for (const [position, block] of blocks.entries()) {
    if (block.kind !== " ") {
      if (current === undefined) {
        const previous = blocks[position - 1];
        const before = previous === undefined || context === 0 ? [] : previous.lines.slice(-context);
        current = { oldStart: oldLine - before.length, oldLines: 0, newStart: newLine - before.length, newLines: 0, lines: before.map((line) => ` ${line}`) };
      }
      for (const line of block.lines) current.lines.push(`${block.kind}${line}`);
      if (block.kind === "+") newLine += block.count;
      else oldLine += block.count;
      continue;
    }
    if (current !== undefined) {
      if (block.count <= 2 * context && position < blocks.length - 1) {
        for (const line of block.lines) current.lines.push(` ${line}`);
      } else {
        const after = block.lines.slice(0, context);
        for (const line of after) current.lines.push(` ${line}`);
        hunks.push(closed(current, oldLine + after.length, newLine + after.length));
        current = undefined;
      }
    }
    oldLine += block.count;
    newLine += block.count;
  }
  if (current !== undefined) hunks.push(closed(current, oldLine, newLine));
  return hunks;
}

/** The hunk with its line counts, its lines without line feeds, and git's marker after a last line that has none. */
function closed(hunk: Hunk, oldEnd: number, newEnd: number): Hunk {
  const lines: string[] = [];
  for (const line of hunk.lines) {
    if (line.endsWith("\n")) lines.push(line.slice(0, -1));
    else lines.push(line, "\\ No newline at end of file");
  }
  return { ...hunk, oldLines: oldEnd - hunk.oldStart, newLines: newEnd - hunk.newStart, lines };
}
