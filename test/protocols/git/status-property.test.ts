import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { apply, applyWithClio, operation } from "./edit-operations.js";
import { callGit, fsckClean, gitPorcelain, makeSandbox, type Sandbox } from "./support.js";

async function clioPorcelain(sandbox: Sandbox): Promise<string[]> {
  const result = await callGit(sandbox, "status");
  return (result.data as { entries: Array<{ path: string; index: string; worktree: string; from?: string }> }).entries.map((entry) =>
    entry.from ? `${entry.index}${entry.worktree} ${entry.from} -> ${entry.path}` : `${entry.index}${entry.worktree} ${entry.path}`,
  );
}

async function withRepository(work: (sandbox: Sandbox) => Promise<void>): Promise<void> {
  const sandbox = await makeSandbox();
  try {
    await sandbox.commit("base", { ".gitignore": "*.log\n", "a.txt": "0\n" });
    await work(sandbox);
  } finally {
    await sandbox.cleanup();
  }
}

describe("GIT.status agrees with git status --porcelain after any sequence of edits (property)", () => {
  it("holds when clio stages, unstages and commits, and git fsck stays clean", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 10 }), (steps) =>
        withRepository(async (sandbox) => {
          for (const step of steps) await applyWithClio(sandbox, step);
          expect(await clioPorcelain(sandbox)).toEqual(await gitPorcelain(sandbox));
          expect(await fsckClean(sandbox)).toBe("");
        }),
      ),
      { numRuns: 10, seed: 7 },
    );
  });

  it("holds for generated sequences of writes, deletes, stages, unstages, chmods and commits", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 12 }), (steps) =>
        withRepository(async (sandbox) => {
          for (const step of steps) await apply(sandbox, step);
          expect(await clioPorcelain(sandbox)).toEqual(await gitPorcelain(sandbox));
        }),
      ),
      { numRuns: 15, seed: 20261122 },
    );
  });
});
