/**
 * Merging (fast-forward or a clean three-way merge; conflicts refused with nothing touched)
 * and resetting (soft, mixed, hard).
 */
import git from "isomorphic-git";
import { ToolError } from "../errors.js";
import { applyChanges, assertNothingOverwritten, diffTrees, indexAsTree, type PathChange } from "./apply-tree.js";
import { assertNoMergeInProgress, currentBranch, endMerge, headCommit, lockIndex, readIndex, requireBranch, resolveCommit, type Repository } from "./repository.js";
import { computeStatus, type StatusOptions } from "./status.js";
import { commitFiles } from "./tree.js";
import { pathFilter, plural } from "./format.js";

export interface MergeResult {
  kind: "up-to-date" | "fast-forward" | "merge";
  branch: string;
  oid: string;
  changed: string[];
}

/**
 * Merges `theirs` (a branch, remote branch, tag or commit) into the current branch. On
 * conflict throws `merge_conflict` naming the files; refs, index and worktree stay as they were.
 */
export async function mergeInto(
  repository: Repository,
  theirs: string,
  author: () => Promise<{ name: string; email: string }>,
  options: { message?: string; now?: () => number } & StatusOptions = {},
): Promise<MergeResult> {
  const plan = await planMerge(repository, theirs, author, options);
  if (plan.kind === "up-to-date") return { kind: plan.kind, branch: plan.branch, oid: plan.oid, changed: [] };
  const { branch, oid, changes } = plan;
  await moveBranch(repository, branch, oid, changes, true, () => assertNothingOverwritten(repository, changes, `Merging ${theirs}`, options));
  return { kind: plan.kind, branch, oid, changed: changes.map((change) => change.path) };
}

/**
 * What merging `theirs` would do: the commit the branch would move to and the paths that change.
 * Refs, index and worktree stay as they are; a true merge writes its merged objects (the new
 * commit, trees and blobs) to the object store, where nothing refers to them until the merge runs.
 */
export async function planMerge(
  repository: Repository,
  theirs: string,
  author: () => Promise<{ name: string; email: string }>,
  options: { message?: string; now?: () => number } = {},
): Promise<{ kind: MergeResult["kind"]; branch: string; oid: string; changes: PathChange[] }> {
  const { fs, dir, gitdir, cache } = repository;
  const branch = await requireBranch(repository, "merge");
  await assertNoMergeInProgress(repository, `merge ${theirs}`);
  const ours = await headCommit(repository);
  if (ours === undefined) {
    throw new ToolError("not_found", "The current branch has no commits yet, so there is nothing to merge into.", "Make a first commit, or check out the other branch instead.");
  }
  const theirOid = await resolveCommit(repository, theirs);
  let result: Awaited<ReturnType<typeof git.merge>>;
  try {
    const signature = { ...(await author()), timestamp: Math.floor((options.now ?? Date.now)() / 1000) };
    // isomorphic-git opens the index during a merge: hold git's lock so no git process writes it meanwhile.
    result = await lockIndex(repository, () =>
      git.merge({
        fs,
        dir,
        gitdir,
        cache,
        ours: `refs/heads/${branch}`,
        theirs: theirOid,
        noUpdateBranch: true,
        abortOnConflict: true,
        message: options.message ?? `Merge ${theirs} into ${branch}`,
        author: signature,
        committer: signature,
      }),
    );
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "MergeConflictError") {
      const files = ((error as { data: { filepaths: string[] } }).data.filepaths ?? []).slice().sort();
      throw new ToolError(
        "merge_conflict",
        `Merging ${theirs} into ${branch} conflicts in ${plural(files.length, "file")}: ${files.join(", ")}. Nothing was changed: the branch, index and worktree are as they were.`,
        "Resolve by hand: edit the files so they hold both changes, commit, then merge again; or merge in smaller steps.",
      );
    }
    if (code === "MergeNotSupportedError") {
      throw new ToolError(
        "git_error",
        `${theirs} and ${branch} have no single common ancestor, which clio's merge does not handle. Nothing was changed.`,
        "Run `git merge` in a terminal for this one.",
      );
    }
    throw error;
  }
  if (result.alreadyMerged || result.oid === ours) return { kind: "up-to-date", branch, oid: ours, changes: [] };
  const changes = diffTrees(await commitFiles(repository, ours), await commitFiles(repository, result.oid!));
  return { kind: result.fastForward ? "fast-forward" : "merge", branch, oid: result.oid!, changes };
}

async function moveBranch(repository: Repository, branch: string | undefined, oid: string, changes: PathChange[], worktree: boolean, check?: () => Promise<void>): Promise<void> {
  const { fs, gitdir } = repository;
  await applyChanges(repository, changes, {
    worktree,
    check,
    afterIndex: () => git.writeRef({ fs, gitdir, ref: branch === undefined ? "HEAD" : `refs/heads/${branch}`, value: oid, force: true }),
  });
}

export type ResetMode = "soft" | "mixed" | "hard";

export interface ResetResult {
  oid: string;
  /** mixed: paths whose staged state was undone. hard: paths whose uncommitted changes were discarded. */
  affected: string[];
}

/** Moves the current branch (or detached HEAD) to `ref`; mixed also resets the index, hard the worktree too. */
export async function reset(repository: Repository, mode: ResetMode, ref = "HEAD", options: StatusOptions = {}): Promise<ResetResult> {
  const { fs, gitdir } = repository;
  const branch = await currentBranch(repository);
  const oid = await resolveCommit(repository, ref);
  if (mode === "soft") {
    await assertNoMergeInProgress(repository, "do a soft reset");
    await git.writeRef({ fs, gitdir, ref: branch === undefined ? "HEAD" : `refs/heads/${branch}`, value: oid, force: true });
    return { oid, affected: [] };
  }
  const { changes, discarded } = await planIndexReset(repository, mode, oid, options);
  await moveBranch(repository, branch, oid, changes, mode === "hard");
  await endMerge(repository);
  return { oid, affected: mode === "mixed" ? changes.map((change) => change.path) : discarded };
}

/**
 * The paths a mixed or hard reset to commit `oid` rewrites — in the index, and for hard also in
 * the worktree — and, for hard, the paths whose uncommitted changes it discards. Changes nothing.
 */
export async function planIndexReset(
  repository: Repository,
  mode: "mixed" | "hard",
  oid: string,
  options: StatusOptions = {},
): Promise<{ changes: PathChange[]; discarded: string[] }> {
  const target = await commitFiles(repository, oid);
  const index = await readIndex(repository);
  const changes = diffTrees(indexAsTree(index.entries), target);
  // Conflicted paths (stages 1-3 only) become what the target holds, or leave the index; like git, the merge ends.
  for (const file of new Set(index.entries.filter((entry) => entry.stage !== 0).map((entry) => entry.path))) {
    if (!changes.some((change) => change.path === file) && !index.entries.some((entry) => entry.path === file && entry.stage === 0)) {
      changes.push({ path: file, after: target.get(file) });
    }
  }
  changes.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
  if (mode === "mixed") return { changes, discarded: [] };
  // hard: also rewrite every tracked file whose worktree copy differs from the index.
  const { entries } = await computeStatus(repository, options);
  const discarded = entries.filter((entry) => entry.index !== "?").map((entry) => entry.path);
  const listed = new Set(changes.map((change) => change.path));
  for (const entry of entries) {
    if (entry.index === "?" || entry.worktree === " " || listed.has(entry.path)) continue;
    const file = target.get(entry.path);
    if (file) changes.push({ path: entry.path, before: file, after: file });
  }
  return { changes, discarded };
}

/** `git reset REF -- paths`: the index entries of `paths` become what `ref` has; files and branch stay. */
export async function unstagePaths(repository: Repository, paths: readonly string[], ref = "HEAD"): Promise<string[]> {
  const target = await commitFiles(repository, await headOrCommit(repository, ref));
  const index = await readIndex(repository);
  const wanted = pathFilter(paths);
  const changes = diffTrees(indexAsTree(index.entries), target).filter((change) => wanted(change.path));
  await applyChanges(repository, changes, { worktree: false });
  return changes.map((change) => change.path);
}

/**
 * `git checkout [REF] -- paths`: the worktree copies of `paths` become what the index (or
 * `ref`, which also updates the index) holds, discarding their uncommitted changes.
 */
export async function restorePaths(repository: Repository, paths: readonly string[], ref?: string): Promise<string[]> {
  const changes = await planRestore(repository, paths, ref);
  await applyChanges(repository, changes, { worktree: true });
  return changes.map((change) => change.path);
}

/** The paths `restorePaths` would write, with what each gets; changes nothing. */
export async function planRestore(repository: Repository, paths: readonly string[], ref?: string): Promise<PathChange[]> {
  const index = await readIndex(repository);
  const source = ref === undefined ? indexAsTree(index.entries) : await commitFiles(repository, await resolveCommit(repository, ref));
  const wanted = pathFilter(paths);
  for (const root of paths) {
    if (![...source.keys()].some(pathFilter([root]))) {
      throw new ToolError("not_found", `${root} is not in ${ref ?? "the index"}, so there is nothing to restore it from; nothing was changed.`, [
        "Name tracked files (see ",
        { action: "status" },
        ").",
      ]);
    }
  }
  return [...source].filter(([file]) => wanted(file)).map(([file, entry]) => ({ path: file, after: entry }));
}

async function headOrCommit(repository: Repository, ref: string): Promise<string | undefined> {
  return ref === "HEAD" && (await headCommit(repository)) === undefined ? undefined : resolveCommit(repository, ref);
}
