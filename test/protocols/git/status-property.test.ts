import { promises as fs } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { callGit, fsckClean, gitPorcelain, makeSandbox, type Sandbox } from "./support.js";

const names = ["a.txt", "b c.txt", "dir/d.txt", "dir/sub/e.txt", "ü/f.txt", "-rf", "x.log", "dir/y.log"];

type Operation =
  | { kind: "write"; file: string; content: string }
  | { kind: "delete"; file: string }
  | { kind: "stage"; file: string }
  | { kind: "unstage"; file: string }
  | { kind: "chmod"; file: string }
  | { kind: "commit" };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant("write" as const), file: fc.constantFrom(...names), content: fc.constantFrom("1\n", "2\n", "22\n", "") }),
  fc.record({ kind: fc.constant("delete" as const), file: fc.constantFrom(...names) }),
  fc.record({ kind: fc.constant("stage" as const), file: fc.constantFrom(...names) }),
  fc.record({ kind: fc.constant("unstage" as const), file: fc.constantFrom(...names) }),
  fc.record({ kind: fc.constant("chmod" as const), file: fc.constantFrom(...names) }),
  fc.constant({ kind: "commit" as const }),
);

/** The same edits, but staging, unstaging and committing go through clio instead of git. */
async function applyWithClio(sandbox: Sandbox, step: Operation): Promise<void> {
  const quiet = (promise: Promise<unknown>) => promise.catch(() => undefined);
  switch (step.kind) {
    case "stage":
      return void (await quiet(callGit(sandbox, "add", { files: JSON.stringify([step.file]) })));
    case "unstage":
      return void (await quiet(callGit(sandbox, "reset", { mode: "mixed" })));
    case "commit":
      return void (await quiet(callGit(sandbox, "commit", { message: "step" })));
    default:
      return apply(sandbox, step);
  }
}

async function apply(sandbox: Sandbox, step: Operation): Promise<void> {
  const absolute = step.kind === "commit" ? "" : path.join(sandbox.repo, step.file);
  const quiet = (promise: Promise<unknown>) => promise.catch(() => undefined);
  switch (step.kind) {
    case "write":
      return sandbox.write(step.file, step.content);
    case "delete":
      return fs.rm(absolute, { force: true });
    case "stage":
      return void (await quiet(sandbox.git(["add", "-A", "--", step.file])));
    case "unstage":
      return void (await quiet(sandbox.git(["reset", "-q", "--", step.file])));
    case "chmod":
      return void (await quiet(fs.chmod(absolute, 0o755)));
    case "commit":
      return void (await quiet(sandbox.git(["commit", "-q", "-m", "step"])));
  }
}

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
