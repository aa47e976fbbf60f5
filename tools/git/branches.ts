/**
 * Branches: listing, creating, deleting, and checking one out (or a commit, detached) without
 * ever overwriting local changes.
 */
import git from "isomorphic-git";
import { ToolError } from "../errors.js";
import { applyChanges, assertNothingOverwritten, diffTrees, type PathChange } from "./apply-tree.js";
import { assertNoMergeInProgress, currentBranch, headCommit, resolveCommit, type Repository } from "./repository.js";
import type { StatusOptions } from "./status.js";
import { commitFiles, readCommitObject } from "./tree.js";

export interface BranchInfo {
  name: string;
  current: boolean;
  oid: string;
  subject: string;
}

export async function listBranches(repository: Repository): Promise<BranchInfo[]> {
  const { fs, gitdir } = repository;
  const current = await currentBranch(repository);
  const names = await git.listBranches({ fs, gitdir });
  return Promise.all(
    names.sort().map(async (name) => {
      const oid = await git.resolveRef({ fs, gitdir, ref: `refs/heads/${name}` });
      const commit = await readCommitObject(repository, oid);
      return { name, current: name === current, oid, subject: commit.message.split("\n")[0]! };
    }),
  );
}

async function branchExists(repository: Repository, name: string): Promise<boolean> {
  return git.resolveRef({ fs: repository.fs, gitdir: repository.gitdir, ref: `refs/heads/${name}` }).then(
    () => true,
    () => false,
  );
}

/** Creates branch `name` at `startPoint` (default HEAD) without checking it out. */
export async function createBranch(repository: Repository, name: string, startPoint?: string): Promise<string> {
  if (await branchExists(repository, name)) {
    throw new ToolError("already_exists", `A branch named ${name} already exists; nothing was changed.`, [
      "Check it out with ",
      { action: "checkout", arguments: { branch: name } },
      ", or pick another name.",
    ]);
  }
  if (startPoint === undefined && (await headCommit(repository)) === undefined) {
    throw new ToolError("not_found", "This repository has no commits yet, so there is nothing to branch from.", "Make the first commit, then create the branch.");
  }
  const oid = await resolveCommit(repository, startPoint ?? "HEAD");
  await writeBranch(repository, name, oid);
  return oid;
}

/** Creates refs/heads/`name` at `oid`, refusing the names git refuses (leading "-", "HEAD", "a..b", "x.lock", …). */
async function writeBranch(repository: Repository, name: string, oid: string): Promise<void> {
  const invalid = () =>
    new ToolError(
      "invalid_argument",
      `${JSON.stringify(name)} is not a valid branch name; nothing was changed.`,
      "Use letters, digits, '-', '_', '.' and '/', not starting with '-', e.g. name=fix/parser.",
    );
  if (name.startsWith("-") || name === "HEAD") throw invalid();
  try {
    await git.branch({ fs: repository.fs, gitdir: repository.gitdir, ref: name, object: oid, checkout: false });
  } catch (error) {
    if ((error as { code?: string }).code === "InvalidRefNameError") throw invalid();
    throw error;
  }
}

/** Deletes a branch; refuses the current one, and one whose commits are not merged into HEAD unless `force`. */
export async function deleteBranch(repository: Repository, name: string, force = false): Promise<string> {
  const { fs, gitdir, cache } = repository;
  if (!(await branchExists(repository, name))) {
    const known = await git.listBranches({ fs, gitdir });
    throw new ToolError("not_found", `There is no branch named ${name}. Branches here: ${known.join(", ") || "none"}.`, "Name an existing branch.");
  }
  if ((await currentBranch(repository)) === name) {
    throw new ToolError("invalid_argument", `${name} is the checked-out branch and cannot be deleted; nothing was changed.`, "Check out another branch first.");
  }
  const oid = await git.resolveRef({ fs, gitdir, ref: `refs/heads/${name}` });
  const head = await headCommit(repository);
  const merged = head !== undefined && (oid === head || (await git.isDescendent({ fs, gitdir, oid: head, ancestor: oid, depth: -1, cache })));
  if (!merged && !force) {
    throw new ToolError("uncommitted_changes", `Branch ${name} has commits that are not merged into HEAD; deleting it would lose them. Nothing was changed.`, [
      "Merge it first, or delete it anyway with ",
      { action: "branch", arguments: { name, delete: "true", force: "true" } },
      ".",
    ]);
  }
  await git.deleteBranch({ fs, gitdir, ref: name });
  return oid;
}

export interface CheckoutResult {
  /** The branch now checked out, or undefined for a detached HEAD. */
  branch?: string;
  oid: string;
  created: boolean;
  /** Paths whose content changed in the worktree. */
  changed: string[];
}

/**
 * Checks out branch `target` (created first when `create`, from `startPoint` or HEAD), or a
 * commit as a detached HEAD. A local branch missing but present on exactly one remote is
 * created from it, tracking it (git's default). Local changes to other files are kept.
 */
export async function checkout(repository: Repository, target: string, options: { create?: boolean; startPoint?: string } & StatusOptions = {}): Promise<CheckoutResult> {
  const { fs, gitdir } = repository;
  const { branch, oid, create, changes } = await planCheckout(repository, target, options);
  // The new branch is made first, so a name git refuses stops the checkout before any file changes.
  if (create) await writeBranch(repository, branch!, create.from);
  const commit = oid;
  const pointHead = async (): Promise<void> => {
    if (create?.tracking) {
      await git.setConfig({ fs, gitdir, path: `branch.${branch}.remote`, value: create.tracking.remote });
      await git.setConfig({ fs, gitdir, path: `branch.${branch}.merge`, value: `refs/heads/${branch}` });
    }
    if (branch === undefined) await git.writeRef({ fs, gitdir, ref: "HEAD", value: commit, force: true });
    else await git.writeRef({ fs, gitdir, ref: "HEAD", value: `refs/heads/${branch}`, symbolic: true, force: true });
  };
  try {
    await applyChanges(repository, changes, {
      worktree: true,
      check: () => assertNothingOverwritten(repository, changes, `Checking out ${target}`, options),
      afterIndex: pointHead,
    });
  } catch (error) {
    if (create) await git.deleteBranch({ fs, gitdir, ref: branch! }).catch(() => undefined);
    throw error;
  }
  return { branch, oid, created: create !== undefined, changed: changes.map((change) => change.path) };
}

/** What checking out `target` would do — the branch, the commit, the paths that change — found without changing anything. */
export async function planCheckout(
  repository: Repository,
  target: string,
  options: { create?: boolean; startPoint?: string } = {},
): Promise<{ branch?: string; oid: string; create?: { from: string; tracking?: { remote: string } }; changes: PathChange[] }> {
  const { fs, gitdir } = repository;
  await assertNoMergeInProgress(repository, `check out ${target}`);
  let branch: string | undefined;
  let oid: string;
  let create: { from: string; tracking?: { remote: string } } | undefined;
  if (options.create) {
    if (await branchExists(repository, target)) {
      throw new ToolError("already_exists", `A branch named ${target} already exists; nothing was changed.`, [
        "Check it out without create: ",
        { action: "checkout", arguments: { branch: target } },
        ".",
      ]);
    }
    branch = target;
    oid = await resolveCommit(repository, options.startPoint ?? "HEAD");
    create = { from: oid };
  } else if (await branchExists(repository, target)) {
    branch = target;
    oid = await git.resolveRef({ fs, gitdir, ref: `refs/heads/${target}` });
  } else {
    const remotes = (await git.listRemotes({ fs, gitdir })).map((item) => item.remote);
    const holders: Array<{ remote: string; oid: string }> = [];
    for (const remote of remotes) {
      const remoteOid = await git.resolveRef({ fs, gitdir, ref: `refs/remotes/${remote}/${target}` }).catch(() => undefined);
      if (remoteOid) holders.push({ remote, oid: remoteOid });
    }
    if (holders.length === 1) {
      branch = target;
      oid = holders[0]!.oid;
      create = { from: oid, tracking: { remote: holders[0]!.remote } };
    } else {
      oid = await resolveCommit(repository, target);
    }
  }

  const head = await headCommit(repository);
  const changes = diffTrees(await commitFiles(repository, head), await commitFiles(repository, oid));
  return { ...(branch === undefined ? {} : { branch }), oid, ...(create ? { create } : {}), changes };
}
