/**
 * Staging and committing: `git add` (new, modified and deleted files under the given paths,
 * like git 2.x) and `git commit` with the checks git makes first.
 */
import { promises as nodeFs } from "node:fs";
import path from "node:path";
import git from "isomorphic-git";
import { ToolError } from "../errors.js";
import { isInClioFolder } from "../clio-folder.js";
import { endMerge, headCommit, lockIndex, readIndex, readMergeHeads, requireBranch, type Repository } from "./repository.js";
import { compareIndexWithHead, computeStatus, embeddedRepositories, ignoreRulesOf, type StatusEntry, type StatusOptions } from "./status.js";
import { pathFilter } from "./format.js";

export interface StagedPath {
  path: string;
  /** added, modified or deleted. */
  change: "added" | "modified" | "deleted";
}

/**
 * Stages every change under `paths` (repository-relative, `/`-separated; "." is everything),
 * or everything when `paths` is "all". A named path that matches no file, tracked or not, is
 * `not_found`; a named path that only matches ignored files is `invalid_argument`.
 */
export async function stagePaths(repository: Repository, paths: readonly string[] | "all", options: StatusOptions = {}): Promise<StagedPath[]> {
  // Decide and stage under one lock, so a git process cannot change the index in between.
  return lockIndex(repository, async () => {
    const { entries } = await computeStatus(repository, options);
    const index = await readIndex(repository);
    const tracked = index.entries.map((entry) => entry.path);
    const wanted = paths === "all" ? undefined : paths.map((file) => file.replace(/\/+$/, ""));
    const covers = wanted === undefined ? () => true : pathFilter(wanted);
    const selected: StatusEntry[] = [];
    for (const entry of entries) {
      if (entry.worktree === " ") continue;
      const file = entry.path.replace(/\/$/, "");
      if (isInClioFolder(file)) continue;
      if (covers(file)) selected.push(entry);
      else if (entry.worktree === "?" && entry.path.endsWith("/")) {
        // A named path inside an untracked folder: stage just that path.
        for (const root of wanted ?? []) if (root.startsWith(entry.path)) selected.push({ ...entry, path: root });
      }
    }

    for (const root of wanted ?? []) {
      if (root === "." || root === "") continue;
      if (root.split("/").includes(".git")) {
        throw new ToolError("invalid_argument", `${root} is inside git's own folder and cannot be staged; nothing was changed.`, "Stage worktree files only.");
      }
      if (isInClioFolder(root)) {
        throw new ToolError(
          "protected_path",
          `${root} is clio's own state and is never staged; nothing was changed.`,
          "Stage project files only; the person commits .clio files themselves if they mean to.",
        );
      }
      const inside = pathFilter([root]);
      const matchesTracked = tracked.some(inside);
      const matchesUntracked = entries.some((entry) => {
        const file = entry.path.replace(/\/$/, "");
        return inside(file) || root.startsWith(`${file}/`);
      });
      if (matchesTracked || matchesUntracked) continue;
      const onDisk = await repository.fs.promises.lstat(`${repository.dir}/${root}`).then(
        () => true,
        () => false,
      );
      throw onDisk
        ? new ToolError(
            "invalid_argument",
            `${root} is ignored by .gitignore, so it was not staged; nothing was changed.`,
            "Remove it from .gitignore to track it, or leave it out.",
          )
        : new ToolError("not_found", `${root} matches no file in the worktree or the index; nothing was changed.`, [
            "Check the path with ",
            { action: "status" },
            "; paths are relative to the repository root.",
          ]);
    }
    if (selected.length === 0) return [];
    // An untracked folder holding its own .git is another repository: git would record a gitlink,
    // isomorphic-git would copy its files in. Neither is what a model asking to stage files means.
    const untrackedFolders = selected.filter((entry) => entry.worktree === "?");
    if (untrackedFolders.length > 0) {
      const rules = await ignoreRulesOf(repository, options);
      const embedded = untrackedFolders.flatMap((entry) => embeddedRepositories(repository.dir, entry.path.replace(/\/$/, ""), rules));
      if (embedded.length > 0) {
        throw new ToolError(
          "invalid_argument",
          `${embedded.join(", ")} ${embedded.length === 1 ? "is a separate git repository" : "are separate git repositories"} (with ${embedded.length === 1 ? "its" : "their"} own .git), which clio does not stage; nothing was staged.`,
          `Stage other paths by name, or add ${embedded.map((folder) => `${folder}/`).join(" ")} to .gitignore. To track it as a submodule, run \`git submodule add\` yourself.`,
        );
      }
    }

    const { fs, dir, gitdir, cache } = repository;
    const staged: StagedPath[] = [];
    for (const entry of selected) {
      // A conflict's letters describe the merge, not the disk: stage what the worktree holds now.
      const gone = entry.unmerged
        ? !(await fs.promises.lstat(`${dir}/${entry.path}`).then(
            () => true,
            () => false,
          ))
        : entry.worktree === "D";
      if (gone) {
        await git.remove({ fs, dir, gitdir, filepath: entry.path, cache });
        staged.push({ path: entry.path, change: "deleted" });
      } else {
        const filepath = entry.path.replace(/\/$/, "");
        await git.add({ fs, dir, gitdir, filepath: entry.path.endsWith("/") ? await withoutClioFolders(dir, filepath) : filepath, cache });
        staged.push({ path: entry.path, change: entry.worktree === "?" ? "added" : "modified" });
      }
    }
    return staged;
  });
}

/**
 * An untracked folder to stage, or, when a `.clio` folder lies somewhere inside it, the
 * folder's files outside every `.clio` (git.add honours .gitignore either way).
 */
async function withoutClioFolders(dir: string, folder: string): Promise<string | string[]> {
  const inside = await nodeFs.readdir(path.join(dir, folder), { recursive: true, withFileTypes: true }).catch(() => []);
  if (!inside.some((entry) => entry.name.toLowerCase() === ".clio")) return folder;
  return inside
    .filter((entry) => !entry.isDirectory())
    .map((entry) =>
      path
        .relative(dir, path.join(entry.parentPath ?? entry.path, entry.name))
        .split(path.sep)
        .join("/"),
    )
    .filter((file) => !isInClioFolder(file));
}

/** The staged paths as porcelain lines ("A  path"). */
export function describeStaged(staged: readonly StagedPath[]): string {
  return staged.map((item) => `${item.change === "added" ? "A" : item.change === "deleted" ? "D" : "M"}  ${item.path}`).join("\n");
}

export interface CommitResult {
  oid: string;
  branch: string;
  /** The staged changes the commit records. */
  files: StatusEntry[];
}

/** Commits what is staged. Empty messages, a detached HEAD and an empty index diff are refused. */
export async function commitStaged(repository: Repository, message: string, author: { name: string; email: string }, now: () => number = Date.now): Promise<CommitResult> {
  if (message.trim() === "") {
    throw new ToolError(
      "invalid_argument",
      "The commit message is empty; nothing was committed.",
      'Say what the change does: message="Fix the parser\'s handling of empty input".',
    );
  }
  const branch = await requireBranch(repository, "commit");
  return lockIndex(repository, async () => {
    const index = await readIndex(repository);
    if (index.entries.some((entry) => entry.stage !== 0)) {
      throw new ToolError("merge_conflict", "The index has unresolved conflicts; nothing was committed.", "Resolve the conflicted files and stage them first.");
    }
    const { changes } = await compareIndexWithHead(repository, index.entries, index.cachedTrees);
    if (changes.size === 0) {
      throw new ToolError("nothing_to_commit", "Nothing is staged, so there is nothing to commit.", [
        "Stage changes first with ",
        { action: "add", arguments: { files: "path" } },
        " (or all=true), or pass files= to commit.",
      ]);
    }
    const signature = { ...author, timestamp: Math.floor(now() / 1000) };
    // Concluding a merge git left half done (MERGE_HEAD): the commit gets the merged commits as parents, like git commit.
    const head = await headCommit(repository);
    const mergeHeads = await readMergeHeads(repository);
    const oid = await git.commit({
      fs: repository.fs,
      dir: repository.dir,
      gitdir: repository.gitdir,
      message: message.endsWith("\n") ? message : `${message}\n`,
      author: signature,
      committer: signature,
      cache: repository.cache,
      ...(mergeHeads.length > 0 && head !== undefined ? { parent: [head, ...mergeHeads] } : {}),
    });
    if (mergeHeads.length > 0) await endMerge(repository);
    const files = [...changes].map(([path, code]): StatusEntry => ({ path, index: code, worktree: " " }));
    return { oid, branch, files: files.sort((left, right) => (left.path < right.path ? -1 : 1)) };
  });
}
