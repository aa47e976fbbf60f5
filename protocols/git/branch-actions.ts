/**
 * GIT's actions that move branches and the worktree: branch, checkout, merge and reset. Checkout,
 * merge and a hard reset preview the files they would change, before any question.
 */
import { z } from "zod";
import { plural, shortOid } from "../../tools/git/format.js";
import type { MergeResult } from "../../tools/git/merge-reset.js";
import { ProtocolError } from "../contract/errors.js";
import { defineAction, parameter, type ActionOutput } from "../contract/protocol.js";
import { authorFor, commitClock, filesForDescription, inRepository, ref, repositoryPaths } from "./repository-access.js";

/** GIT.branch: list, create or delete branches. */
export const branchAction = defineAction<{
  name: string | undefined;
  branch: string | undefined;
  delete: boolean | undefined;
  force: boolean | undefined;
  ref: string | undefined;
}>({
  summary: "List branches (no name), create name (from ref, default HEAD), or delete name with delete=true (force=true for unmerged).",
  permission: (args) => ((args.name ?? args.branch) ? "write" : "read"),
  parameters: {
    name: ref("The branch to create or delete"),
    branch: ref("Same as name"),
    delete: parameter.boolean("Delete the branch instead of creating it"),
    force: parameter.boolean("With delete: delete even if its commits are not merged into HEAD"),
    ref: ref("Where a new branch starts (default HEAD)"),
  },
  describe: (args) => {
    const name = args.name ?? args.branch;
    return name === undefined ? "Listing branches" : args.delete ? `Deleting branch ${name}` : `Creating branch ${name}${args.ref ? ` at ${args.ref}` : ""}`;
  },
  handler: (args, { environment }) =>
    inRepository(environment, async (repository, tools) => {
      const name = args.name ?? args.branch;
      if (name === undefined) {
        const branches = await tools.listBranches(repository);
        const lines = branches.map((item) => `${item.current ? "*" : " "} ${item.name} ${shortOid(item.oid)} ${item.subject}`);
        return { output: lines.length > 0 ? lines.join("\n") : "No branches yet (no commits).", data: { branches } };
      }
      if (args.delete) {
        const oid = await tools.deleteBranch(repository, name, args.force ?? false);
        return { output: `Deleted branch ${name} (was ${shortOid(oid)}).`, data: { name, oid } };
      }
      const oid = await tools.createBranch(repository, name, args.ref);
      return { output: `Created branch ${name} at ${shortOid(oid)} (not checked out).`, data: { name, oid } };
    }),
});

/** GIT.checkout: switch branches, or restore files. */
export const checkoutAction = defineAction<{ branch: string | undefined; ref: string | undefined; create: boolean | undefined; files: string | undefined }>({
  summary:
    "Switch to branch (create=true makes it, from ref or HEAD), or to a commit/tag with ref= (detached); refuses to overwrite local changes. With files=: restore those files from the index (or ref), DISCARDING their uncommitted changes.",
  permission: "write",
  parameters: {
    branch: ref("The branch to switch to (or create)"),
    ref: ref("A commit or tag to check out detached; with create=true, where the new branch starts; with files, where to restore them from"),
    create: parameter.boolean("Create the branch first"),
    files: parameter.optionalText("Restore these paths instead of switching branches (one per line, or a JSON list)"),
  },
  describe: (args) =>
    args.files !== undefined
      ? `Restoring ${filesForDescription(args.files).join(", ")} from ${args.ref ?? "the index"}: discards their uncommitted changes`
      : args.create
        ? `Creating and switching to branch ${args.branch}`
        : `Checking out ${args.branch ?? args.ref}`,
  preview: (args, { environment }) =>
    inRepository(environment, async (repository, tools) => {
      if (args.files !== undefined) return tools.previewRestore(repository, await repositoryPaths(environment, args.files), args.ref);
      const target = args.branch ?? (args.create ? undefined : args.ref);
      if (target === undefined) return [];
      return tools.previewCheckout(repository, target, { create: args.create, startPoint: args.create ? args.ref : undefined, env: environment.env });
    }),
  handler: (args, { environment }) =>
    inRepository(environment, async (repository, tools) => {
      if (args.files !== undefined) {
        const restored = await tools.restorePaths(repository, await repositoryPaths(environment, args.files), args.ref);
        return { output: `Restored ${plural(restored.length, "file")} from ${args.ref ?? "the index"}: ${restored.join(", ")}.`, data: { restored } };
      }
      const target = args.branch ?? (args.create ? undefined : args.ref);
      if (target === undefined) {
        throw new ProtocolError(
          "missing_parameter",
          "GIT.checkout needs branch=NAME (or ref=COMMIT to look at a commit).",
          "e.g. [GIT:action=checkout:branch=main] or [GIT:action=checkout:branch=fix:create=true].",
        );
      }
      const result = await tools.checkout(repository, target, { create: args.create, startPoint: args.create ? args.ref : undefined, env: environment.env });
      const where = result.branch === undefined ? `HEAD is now detached at ${shortOid(result.oid)}` : `Switched to ${result.created ? "a new " : ""}branch ${result.branch}`;
      const output = `${where}. ${result.changed.length > 0 ? `${plural(result.changed.length, "file")} changed in the worktree.` : "No files changed."}`;
      return { output, data: result };
    }),
});

/** GIT.merge: merge a branch into the current one. */
export const mergeAction = defineAction<{ branch: string; message: string | undefined }>({
  summary: "Merge branch into the current branch (fast-forward or a clean merge commit). Conflicts are refused, changing nothing.",
  permission: "write",
  parameters: { branch: parameter.word("The branch, tag or commit to merge in", z.string().min(1)), message: parameter.optionalText("The merge commit's message") },
  describe: (args) => `Merging ${args.branch} into the current branch`,
  preview: (args, { environment }) =>
    inRepository(environment, (repository, tools) =>
      tools.previewMerge(repository, args.branch, authorFor(repository, environment, tools), { message: args.message, now: environment.now, env: environment.env }),
    ),
  handler: (args, { environment }) =>
    inRepository(environment, async (repository, tools) =>
      mergeOutput(
        await tools.mergeInto(repository, args.branch, authorFor(repository, environment, tools), {
          message: args.message,
          now: commitClock(environment),
          env: environment.env,
        }),
        args.branch,
      ),
    ),
});

/** GIT.reset: move the branch, or unstage files. */
export const resetAction = defineAction<{ mode: "soft" | "mixed" | "hard" | undefined; ref: string | undefined; files: string | undefined }>({
  summary:
    "Move the branch to ref (default HEAD): soft keeps index and files, mixed (default) unstages, hard DISCARDS all uncommitted changes to tracked files. With files=: only unstage those paths.",
  permission: "write",
  parameters: {
    mode: parameter.choice("soft, mixed (default) or hard", ["soft", "mixed", "hard"]),
    ref: ref("The commit to reset to (default HEAD)"),
    files: parameter.optionalText("Only unstage these paths (mixed mode; the branch does not move)"),
  },
  describe: (args) =>
    args.files !== undefined
      ? `Unstaging ${filesForDescription(args.files).join(", ")}`
      : args.mode === "hard"
        ? `Resetting hard to ${args.ref ?? "HEAD"}: discards every uncommitted change to tracked files`
        : `Resetting (${args.mode ?? "mixed"}) to ${args.ref ?? "HEAD"}`,
  // Only a hard reset writes files; soft and mixed leave the worktree as it is.
  preview: (args, { environment }) =>
    args.mode === "hard" && args.files === undefined
      ? inRepository(environment, (repository, tools) => tools.previewHardReset(repository, args.ref ?? "HEAD", { env: environment.env }))
      : Promise.resolve([]),
  handler: (args, { environment }) =>
    inRepository(environment, async (repository, tools) => {
      const mode = args.mode ?? "mixed";
      if (args.files !== undefined) {
        if (mode !== "mixed") {
          throw new ProtocolError(
            "invalid_argument",
            `reset with files only unstages (mixed); mode=${mode} cannot be combined with files.`,
            'Drop mode, or use [GIT:action=checkout:files="..."] to discard a file\'s changes.',
          );
        }
        const unstaged = await tools.unstagePaths(repository, await repositoryPaths(environment, args.files), args.ref ?? "HEAD");
        return { output: unstaged.length > 0 ? `Unstaged: ${unstaged.join(", ")}. Files unchanged.` : "Nothing staged there; nothing changed.", data: { mode, unstaged } };
      }
      const result = await tools.reset(repository, mode, args.ref ?? "HEAD", { env: environment.env });
      const head = `HEAD is now at ${shortOid(result.oid)}.`;
      const detail =
        mode === "soft"
          ? "Index and files unchanged."
          : mode === "mixed"
            ? result.affected.length > 0
              ? `Unstaged: ${result.affected.join(", ")}. Files unchanged.`
              : "Nothing was staged differently; files unchanged."
            : result.affected.length > 0
              ? `Discarded uncommitted changes in: ${result.affected.join(", ")}.`
              : "There were no uncommitted changes to discard.";
      return { output: `${head} ${detail}`, data: { mode, ...result } };
    }),
});

/** The text of a merge (or pull) result: up to date, fast-forwarded, or a merge commit. */
export function mergeOutput(result: MergeResult, theirs: string): ActionOutput {
  const changed = result.changed.length > 0 ? `\n${plural(result.changed.length, "file")} changed: ${result.changed.join(", ")}` : "";
  const output =
    result.kind === "up-to-date"
      ? `Already up to date: ${result.branch} already contains ${theirs}.`
      : result.kind === "fast-forward"
        ? `Fast-forwarded ${result.branch} to ${shortOid(result.oid)} (${theirs}).${changed}`
        : `Merged ${theirs} into ${result.branch}: merge commit ${shortOid(result.oid)}.${changed}`;
  return { output, data: result };
}
