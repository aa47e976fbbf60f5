import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { structuredPatch } from "diff";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { countLineChanges, type Hunk, lineDiffHunks } from "../../tools/line-diff.js";

/** Applies hunks to `text`, checking every context and removed line against it. */
function applyHunks(text: string, hunks: readonly Hunk[]): string {
  const lines = text.split(/(?<=\n)/).filter((line) => line !== "");
  const out: string[] = [];
  let next = 0;
  for (const hunk of hunks) {
    const start = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    expect(start).toBeGreaterThanOrEqual(next);
    out.push(...lines.slice(next, start));
    next = start;
    for (const [position, line] of hunk.lines.entries()) {
      if (line.startsWith("\\")) continue;
      const feed = hunk.lines[position + 1]?.startsWith("\\") ? "" : "\n";
      const body = line.slice(1) + feed;
      if (line[0] === "+") out.push(body);
      else {
        expect(lines[next]).toBe(body);
        if (line[0] === " ") out.push(body);
        next++;
      }
    }
  }
  return out.join("") + lines.slice(next).join("");
}

const changedLines = (hunks: readonly Hunk[]) => hunks.flatMap((hunk) => hunk.lines).filter((line) => line[0] === "+" || line[0] === "-").length;

const text = fc
  .tuple(fc.array(fc.constantFrom("a\n", "b\n", "}\n", "\n", "x\r\n", "long line of code;\n"), { maxLength: 30 }), fc.constantFrom("", "end"))
  .map(([lines, last]) => lines.join("") + last);

const folder = mkdtempSync(path.join(os.tmpdir(), "clio-line-diff-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** git's hunk lines for the same two texts (`git diff --no-index`). */
function gitLines(before: string, after: string): string[] {
  writeFileSync(path.join(folder, "old"), before);
  writeFileSync(path.join(folder, "new"), after);
  const output = spawnSync("git", ["diff", "--no-index", "--no-color", "-U3", "old", "new"], { cwd: folder, encoding: "utf8" }).stdout;
  return output.split("\n").filter((line) => /^[-+ \\]/.test(line) && !line.startsWith("--- ") && !line.startsWith("+++ "));
}

describe("line diff hunks (shared head and tail set aside, as git's xdiff does)", () => {
  it("turns the old text into the new one, with as few changed lines as jsdiff's whole-text diff and at most 3 lines of context", () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        const hunks = lineDiffHunks(before, after);
        expect(applyHunks(before, hunks)).toBe(after);
        expect(changedLines(hunks)).toBe(changedLines(structuredPatch("f", "f", before, after, "", "", { context: 3 }).hunks));
        for (const hunk of hunks) {
          expect(hunk.lines.findIndex((line) => line[0] !== " ")).toBeLessThanOrEqual(3);
          expect(hunk.oldLines).toBe(hunk.lines.filter((line) => line[0] === " " || line[0] === "-").length);
          expect(hunk.newLines).toBe(hunk.lines.filter((line) => line[0] === " " || line[0] === "+").length);
        }
        if (before === after) expect(hunks).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it("places a change among repeated lines where git does, and marks a last line without a line feed as git does", () => {
    const cases: Array<[string, string]> = [
      ["x\nc\nc\n", "c\n"],
      ["a\nb\na\nb\n", "a\nb\n"],
      ["}\n\n}\n\n}\n", "}\n\n}\n"],
      ["one\ntwo", "one\ntwo\n"],
      ["one\ntwo\n", "one\ntwo"],
      ["", "new\n"],
      ["gone\n", ""],
      [`${"same\n".repeat(20)}old\n${"same\n".repeat(20)}`, `${"same\n".repeat(20)}new\n${"same\n".repeat(20)}`],
    ];
    for (const [before, after] of cases)
      expect(
        lineDiffHunks(before, after).flatMap((hunk) => hunk.lines),
        JSON.stringify([before, after]),
      ).toEqual(gitLines(before, after));
  });

  it("shows two texts with no line in common as git does: every old line removed, then every new line added", () => {
    const before = Array.from({ length: 60 }, (_, line) => `old ${line}\n`).join("");
    const after = Array.from({ length: 40 }, (_, line) => `new ${line}\n`).join("");
    expect(lineDiffHunks(before, after).flatMap((hunk) => hunk.lines)).toEqual(gitLines(before, after));
  });

  it("bounds its work: a diff needing more edits than the budget shows the old removed and the new added, and still applies", () => {
    const lines = 10_000;
    const before = Array.from({ length: lines }, (_, line) => `line ${line}\n`).join("");
    const after = Array.from({ length: lines }, (_, line) => `line ${(line * 7919) % lines}\n`).join("");
    const hunks = lineDiffHunks(before, after);
    expect(hunks).toHaveLength(1);
    const kinds = hunks[0]!.lines.map((line) => line[0]);
    expect(kinds.indexOf("+")).toBe(kinds.lastIndexOf("-") + 1);
    expect(applyHunks(before, hunks)).toBe(after);
  });

  it("counts the lines that go and come as its hunks show them", () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        const lines = lineDiffHunks(before, after).flatMap((hunk) => hunk.lines);
        expect(countLineChanges(before, after)).toEqual({ added: lines.filter((line) => line[0] === "+").length, removed: lines.filter((line) => line[0] === "-").length });
      }),
      { numRuns: 300 },
    );
  });
});
