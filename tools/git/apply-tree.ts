/**
 * Moving the index (and optionally the worktree) to another tree, path by path, the way git's
 * checkout, merge and reset do: only the paths that change are touched, everything else —
 * local changes included — stays as it is. The new index is written through index.lock.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { entryFromStat, serializeIndex, type IndexEntry } from "./index-file.js";
import { lockIndex, readIndex, type Repository } from "./repository.js";
import { readBlob, type FlatTree, type TreeFile } from "./tree.js";
import { beneathSymlink, computeStatus, type StatusOptions } from "./status.js";
import { isInClioFolder } from "../clio-folder.js";
import { ToolError } from "../errors.js";

export interface PathChange {
  path: string;
  /** What the path holds now (undefined: nothing). */
  before?: TreeFile;
  /** What it will hold (undefined: it goes away). */
  after?: TreeFile;
}

/** The paths whose oid or mode differ between two flat trees, in path order. */
export function diffTrees(before: FlatTree, after: FlatTree): PathChange[] {
  const changes: PathChange[] = [];
  for (const [file, old] of before) {
    const next = after.get(file);
    if (next === undefined || next.oid !== old.oid || next.mode !== old.mode) changes.push({ path: file, before: old, after: next });
  }
  for (const [file, next] of after) if (!before.has(file)) changes.push({ path: file, after: next });
  return changes.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}

/** The stage-0 entries of an index as a flat tree. */
export function indexAsTree(entries: readonly IndexEntry[]): FlatTree {
  const files: FlatTree = new Map();
  for (const entry of entries) if (entry.stage === 0) files.set(entry.path, { oid: entry.oid, mode: entry.mode });
  return files;
}

export interface ApplyOptions {
  /** Also write (or delete) the worktree files; false changes only the index (a mixed reset). */
  worktree: boolean;
  /** Runs under the index lock before anything is touched; throwing refuses the whole change. */
  check?: () => Promise<void>;
  /** Runs while the index lock is still held, after the new index is in place (e.g. moving a branch ref). */
  afterIndex?: () => Promise<void>;
}

/** Applies `changes` to the index and, if asked, the worktree, holding git's index lock throughout. */
export async function applyChanges(repository: Repository, changes: readonly PathChange[], options: ApplyOptions): Promise<void> {
  await lockIndex(repository, async (lock) => {
    await options.check?.();
    if (options.worktree) refuseClioFolder(changes);
    if (options.worktree) await assertNoFolderInTheWay(repository, changes);
    const index = await readIndex(repository);
    const changed = new Set(changes.map((change) => change.path));
    const entries = index.entries.filter((entry) => !changed.has(entry.path));
    for (const change of changes) {
      const absolute = safeJoin(repository.dir, change.path);
      if (change.after === undefined) {
        if (options.worktree) await removeFile(repository.dir, absolute);
        continue;
      }
      if (!options.worktree) {
        entries.push(entryFromStat(change.path, change.after.oid, change.after.mode));
        continue;
      }
      await writeFile(repository, absolute, change.after);
      entries.push(entryFromStat(change.path, change.after.oid, change.after.mode, await fs.lstat(absolute)));
    }
    await lock.commit(serializeIndex(entries));
    await options.afterIndex?.();
  });
}

/**
 * clio's own folder (config, memory, index) is never written by a model's git action, at any
 * depth: a branch carrying `.clio/config.json` could otherwise set the next run's permissions.
 */
function refuseClioFolder(changes: readonly PathChange[]): void {
  const touched = changes.filter((change) => isInClioFolder(change.path)).map((change) => change.path);
  if (touched.length === 0) return;
  throw new ToolError(
    "protected_path",
    `This would change clio's own files (${touched.slice(0, 5).join(", ")}${touched.length > 5 ? ", …" : ""}), which GIT actions never write; nothing was changed.`,
    "Ask the person to run this git command themselves in a terminal if they want those files changed.",
  );
}

/** Refuses, before anything is written, when a folder holding files stands where a file must go. */
async function assertNoFolderInTheWay(repository: Repository, changes: readonly PathChange[]): Promise<void> {
  for (const change of changes) {
    if (change.after === undefined) continue;
    const absolute = safeJoin(repository.dir, change.path);
    const existing = await fs.lstat(absolute).catch(() => undefined);
    if (existing?.isDirectory() && (await fs.readdir(absolute)).length > 0) {
      throw new ToolError(
        "already_exists",
        `A folder with files in it stands where the file ${change.path} should be written; nothing was changed.`,
        "Move or delete that folder, then retry.",
      );
    }
  }
}

async function writeFile(repository: Repository, absolute: string, file: TreeFile): Promise<void> {
  const content = await readBlob(repository, file.oid);
  await replaceSymlinkedFolders(repository.dir, absolute);
  await fs.mkdir(path.dirname(absolute), { recursive: true });
  const existing = await fs.lstat(absolute).catch(() => undefined);
  if (existing?.isDirectory()) {
    // Only an empty folder may make way; anything in it is someone's work.
    await fs.rmdir(absolute).catch(() => {
      const relative = path.relative(repository.dir, absolute);
      throw new ToolError("already_exists", `A folder stands where the file ${relative} should be written; it was left alone.`, "Move or delete that folder, then retry.");
    });
  } else if (existing) await fs.unlink(absolute);
  if (file.mode === 0o120000) {
    await fs.symlink(content.toString("utf8"), absolute);
    return;
  }
  await fs.writeFile(absolute, content, { mode: file.mode === 0o100755 ? 0o755 : 0o644 });
}

/** The worktree path of a tree entry; refuses names that would leave the worktree or enter .git. */
function safeJoin(root: string, file: string): string {
  const segments = file.split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === ".." || segment.toLowerCase() === ".git")) {
    throw new ToolError(
      "git_error",
      `The repository holds an unsafe path ${JSON.stringify(file)}; nothing was written for it.`,
      "Inspect the commit with real git; such trees fail `git fsck`.",
    );
  }
  return path.join(root, file);
}

/**
 * Like git, a symlink standing where a folder of `absolute` should be is removed (the link
 * only, never what it points to), so the file is written inside the worktree, not through it.
 */
async function replaceSymlinkedFolders(root: string, absolute: string): Promise<void> {
  let folder = root;
  for (const segment of path
    .relative(root, path.dirname(absolute))
    .split(path.sep)
    .filter((part) => part !== "")) {
    folder = path.join(folder, segment);
    const stat = await fs.lstat(folder).catch(() => undefined);
    if (stat === undefined) return;
    if (stat.isSymbolicLink()) await fs.unlink(folder);
  }
}

/** Deletes a file and the folders it leaves empty, up to (not including) the root. */
async function removeFile(root: string, absolute: string): Promise<void> {
  // Beneath a symlinked folder the file is not in the worktree: nothing of ours to delete.
  if (beneathSymlink(root, path.relative(root, absolute).split(path.sep).join("/"))) return;
  const existing = await fs.lstat(absolute).catch(() => undefined);
  if (existing === undefined || existing.isDirectory()) return; // a folder now stands there: not ours to delete
  await fs.rm(absolute, { force: true });
  for (let folder = path.dirname(absolute); folder !== root && folder.startsWith(root); folder = path.dirname(folder)) {
    try {
      await fs.rmdir(folder);
    } catch {
      return;
    }
  }
}

/**
 * Refuses (`uncommitted_changes`, nothing touched) when applying `changes` would overwrite
 * local work: a changing path with staged or unstaged changes, or an untracked file where a
 * new one would be written.
 */
export async function assertNothingOverwritten(repository: Repository, changes: readonly PathChange[], doing: string, options: StatusOptions = {}): Promise<void> {
  if (changes.length === 0) return;
  const { entries } = await computeStatus(repository, options);
  const dirty = new Set(entries.filter((entry) => entry.index !== "?").flatMap((entry) => (entry.from ? [entry.path, entry.from] : [entry.path])));
  const untracked = entries.filter((entry) => entry.index === "?").map((entry) => entry.path);
  // An untracked folder, or an untracked file or symlink standing where a folder of `file` goes, is in the way too.
  const isUntracked = (file: string) => untracked.some((item) => item === file || item === `${file}/` || file.startsWith(item.endsWith("/") ? item : `${item}/`));
  const blocked = changes.filter((change) => dirty.has(change.path) || (change.before === undefined && isUntracked(change.path)));
  if (blocked.length === 0) return;
  const names = blocked.map((change) => change.path);
  throw new ToolError(
    "uncommitted_changes",
    `${doing} would overwrite local changes to ${names.length === 1 ? "this file" : `these ${names.length} files`}: ${names.join(", ")}. Nothing was changed.`,
    ["Commit them (", { action: "commit" }, "), or discard them (", { action: "reset", arguments: { mode: "hard" } }, " discards all uncommitted changes), then retry."],
  );
}
