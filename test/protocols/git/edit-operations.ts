import { promises as fs } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { callGit, type Sandbox } from "./support.js";

/** Paths the generated edits touch: nested folders (so the index's cache-tree has subtrees), odd names, ignored files. */
export const names = ["a.txt", "b c.txt", "dir/d.txt", "dir/sub/e.txt", "dir/sub/deeper/g.txt", "other/h.txt", "ü/f.txt", "-rf", "x.log", "dir/y.log"];

export type Operation =
  | { kind: "write"; file: string; content: string }
  | { kind: "delete"; file: string }
  | { kind: "stage"; file: string }
  | { kind: "unstage"; file: string }
  | { kind: "chmod"; file: string }
  | { kind: "commit" };

/** One edit of a repository: a file written, deleted, staged, unstaged or made executable, or a commit. */
export const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant("write" as const), file: fc.constantFrom(...names), content: fc.constantFrom("1\n", "2\n", "22\n", "") }),
  fc.record({ kind: fc.constant("delete" as const), file: fc.constantFrom(...names) }),
  fc.record({ kind: fc.constant("stage" as const), file: fc.constantFrom(...names) }),
  fc.record({ kind: fc.constant("unstage" as const), file: fc.constantFrom(...names) }),
  fc.record({ kind: fc.constant("chmod" as const), file: fc.constantFrom(...names) }),
  fc.constant({ kind: "commit" as const }),
);

/** The same edits, but staging, unstaging and committing go through clio instead of git. */
export async function applyWithClio(sandbox: Sandbox, step: Operation): Promise<void> {
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

/** Applies one edit with the file system and the git CLI. */
export async function apply(sandbox: Sandbox, step: Operation): Promise<void> {
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
