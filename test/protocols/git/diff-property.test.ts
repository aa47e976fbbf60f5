import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { apply, operation } from "./edit-operations.js";
import { callGit, makeSandbox, type Sandbox } from "./support.js";

const gitDiff = (sandbox: Sandbox, ...args: string[]) => sandbox.git(["diff", "--no-color", "--no-ext-diff", "--no-renames", ...args]);

/** clio's diff text, or "" when it reports no changes. */
async function clioDiff(sandbox: Sandbox, raw: Record<string, string>): Promise<string> {
  const result = await callGit(sandbox, "diff", raw);
  return (result.data as { files: unknown[] }).files.length === 0 ? "" : result.output;
}

describe("GIT.diff agrees with git diff after any sequence of edits (property)", () => {
  // A base commit with nested folders gives the index a cache-tree; staging and unstaging
  // invalidate parts of it, commits write it whole: the diffs that pass by folders it vouches
  // for must still show every change.
  it("staged, against HEAD and its parent with the worktree, and worktree against index", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 12 }), async (steps) => {
        const sandbox = await makeSandbox();
        try {
          await sandbox.commit("base", { ".gitignore": "*.log\n", "a.txt": "0\n", "dir/d.txt": "d\n", "dir/sub/e.txt": "e\n", "other/h.txt": "h\n", "other/i.txt": "i\n" });
          await sandbox.commit("second", { "dir/sub/e.txt": "e2\n", "other/new.txt": "n\n" });
          for (const step of steps) await apply(sandbox, step);
          expect(await clioDiff(sandbox, { staged: "true" })).toBe(await gitDiff(sandbox, "--cached"));
          expect(await clioDiff(sandbox, { from: "HEAD" })).toBe(await gitDiff(sandbox, "HEAD"));
          expect(await clioDiff(sandbox, { from: "HEAD~1" })).toBe(await gitDiff(sandbox, "HEAD~1"));
          expect(await clioDiff(sandbox, {})).toBe(await gitDiff(sandbox));
        } finally {
          await sandbox.cleanup();
        }
      }),
      { numRuns: 15, seed: 20261128 },
    );
  });
});
