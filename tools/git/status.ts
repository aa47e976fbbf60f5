/**
 * `git status --porcelain`, computed the way git does it rather than the way isomorphic-git's
 * statusMatrix does: read `.git/index` once, lstat each tracked file and hash only those whose
 * stat data differs from the index (or is racily clean), compare the index with HEAD's tree
 * (skipping folders the index's cache-tree vouches for), and walk the worktree with readdir
 * for untracked files, not descending into ignored folders.
 *
 * The per-file calls are synchronous on purpose: thousands of tiny lstat calls through the
 * thread pool cost several times more than the calls themselves.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync, type Stats } from "node:fs";
import path from "node:path";
import git from "isomorphic-git";
import type { IndexEntry } from "./index-file.js";
import { IgnoreRules, excludeFiles, parentOf } from "./ignore-rules.js";
import { headCommit, readIndex, type Repository } from "./repository.js";
import { commitTree, type FlatTree, flattenTree, hashBlob } from "./tree.js";

/** One porcelain code: ' ' unchanged, M modified, A added, D deleted, R renamed, T type changed, U unmerged, ? untracked. */
export type StatusCode = " " | "M" | "A" | "D" | "R" | "T" | "U" | "?";

export interface StatusEntry {
  path: string;
  /** Index against HEAD (git's X column). */
  index: StatusCode;
  /** Worktree against index (git's Y column). */
  worktree: StatusCode;
  /** For a staged rename: the old path. */
  from?: string;
  /** An unresolved merge conflict (index and worktree then hold git's AA, UU, UD, DU, AU, UA or DD). */
  unmerged?: true;
}

export interface StatusReport {
  /** Tracked changes in path order, then untracked paths (folders end in `/`), like git. */
  entries: StatusEntry[];
}

const EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
const SYMLINK = 0o120000;
const GITLINK = 0o160000;
const SKIP_WORKTREE = 0x4000;

export interface StatusOptions {
  env?: NodeJS.ProcessEnv;
}

/** Computes the porcelain status of the whole repository. */
export async function computeStatus(repository: Repository, options: StatusOptions = {}): Promise<StatusReport> {
  const index = await readIndex(repository);
  const stageZero = index.entries.filter((entry) => entry.stage === 0);
  const unmerged = new Map<string, Set<number>>();
  for (const entry of index.entries) {
    if (entry.stage !== 0) unmerged.set(entry.path, (unmerged.get(entry.path) ?? new Set()).add(entry.stage));
  }
  const stagedPending = compareIndexWithHead(repository, stageZero, index.cachedTrees);
  // Synchronous; the tree reads started above go on in the thread pool meanwhile.
  const unstaged = compareWorktreeWithIndex(repository, stageZero, index.mtimeMs);
  const staged = await stagedPending;

  const byPath = new Map<string, StatusEntry>();
  const entryFor = (file: string): StatusEntry => {
    let entry = byPath.get(file);
    if (!entry) byPath.set(file, (entry = { path: file, index: " ", worktree: " " }));
    return entry;
  };
  for (const [file, change] of staged.changes) entryFor(file).index = change;
  for (const [file, change] of unstaged) entryFor(file).worktree = change;
  for (const [file, stages] of unmerged) Object.assign(entryFor(file), conflictCodes(stages), { unmerged: true });
  pairExactRenames(byPath, staged.headOids, stageZero);

  const rules = await ignoreRulesOf(repository, options);
  const untracked = findUntracked(repository.dir, index.entries, rules);

  const tracked = [...byPath.values()].sort((left, right) => comparePaths(left.path, right.path));
  return { entries: [...tracked, ...untracked.map((file): StatusEntry => ({ path: file, index: "?", worktree: "?" }))] };
}

/** The repository's ignore rules: every .gitignore, .git/info/exclude and the user's excludes file. */
export async function ignoreRulesOf(repository: Repository, options: StatusOptions = {}): Promise<IgnoreRules> {
  const configuredExcludes = await git.getConfig({ fs: repository.fs, gitdir: repository.gitdir, path: "core.excludesFile" }).catch(() => undefined);
  return new IgnoreRules(repository.dir, excludeFiles(repository.gitdir, configuredExcludes, options.env ?? process.env));
}

/** The folders at or under `folder` (repository-relative) that hold their own `.git`, ignored folders left out. */
export function embeddedRepositories(root: string, folder: string, rules: IgnoreRules): string[] {
  const dirents = readFolder(root, folder);
  if (folder !== "" && dirents.some((dirent) => dirent.name === ".git")) return [folder];
  return dirents
    .filter((dirent) => dirent.isDirectory() && dirent.name !== ".git")
    .map((dirent) => (folder === "" ? dirent.name : `${folder}/${dirent.name}`))
    .filter((relative) => !rules.isIgnored(relative, true))
    .flatMap((relative) => embeddedRepositories(root, relative, rules));
}

/**
 * git's two letters for a conflict, from the stages the index holds: 1 the common base,
 * 2 ours, 3 theirs (UU both modified, AA both added, DU deleted by us, UD deleted by them, …).
 */
function conflictCodes(stages: Set<number>): Pick<StatusEntry, "index" | "worktree"> {
  const [base, ours, theirs] = [stages.has(1), stages.has(2), stages.has(3)];
  if (!base && ours && theirs) return { index: "A", worktree: "A" };
  if (base && !ours && theirs) return { index: "D", worktree: "U" };
  if (base && ours && !theirs) return { index: "U", worktree: "D" };
  if (!base && ours && !theirs) return { index: "A", worktree: "U" };
  if (!base && !ours && theirs) return { index: "U", worktree: "A" };
  if (base && !ours && !theirs) return { index: "D", worktree: "D" };
  return { index: "U", worktree: "U" };
}

/** Index against HEAD: what a commit now would record. */
export async function compareIndexWithHead(
  repository: Repository,
  entries: readonly IndexEntry[],
  cachedTrees: Map<string, string> = new Map(),
): Promise<{ changes: Map<string, StatusCode>; headOids: Map<string, string> }> {
  const changes = new Map<string, StatusCode>();
  const head = await headCommit(repository);
  const { files, passed: underSkipped } = await treeFilesBesideIndex(repository, head === undefined ? undefined : await commitTree(repository, head), cachedTrees);
  const seen = new Set<string>();
  for (const entry of entries) {
    seen.add(entry.path);
    if (underSkipped(entry.path)) continue;
    const before = files.get(entry.path);
    if (before === undefined) changes.set(entry.path, "A");
    else if (isSymlink(before.mode) !== isSymlink(entry.mode)) changes.set(entry.path, "T");
    else if (before.oid !== entry.oid || before.mode !== entry.mode) changes.set(entry.path, "M");
  }
  const headOids = new Map<string, string>();
  for (const [file, before] of files) {
    headOids.set(file, before.oid);
    if (!seen.has(file)) changes.set(file, "D");
  }
  return { changes, headOids };
}

/**
 * A tree's files, except in folders where the index's cache-tree records the same oid as the
 * tree: there the index holds exactly the tree's files, so a comparison with the index passes
 * them by (`passed(file)` tells whether a file lies in such a folder). `alsoSame(folder)` can
 * refuse a folder (for a comparison with the worktree: one where a tracked file changed).
 */
export async function treeFilesBesideIndex(
  repository: Repository,
  treeOid: string | undefined,
  cachedTrees: ReadonlyMap<string, string>,
  alsoSame: (folder: string) => boolean = () => true,
): Promise<{ files: FlatTree; passed: (file: string) => boolean }> {
  if (treeOid === undefined) return { files: new Map(), passed: () => false };
  const { files, skipped } = await flattenTree(repository, treeOid, (folder, oid) => cachedTrees.get(folder) === oid && alsoSame(folder));
  const passed = (file: string): boolean => {
    if (skipped.size === 0) return false;
    for (let folder = parentOf(file); ; folder = parentOf(folder)) {
      if (skipped.has(folder)) return true;
      if (folder === "") return false;
    }
  };
  return { files, passed };
}

/**
 * Worktree against index for every stage-0 entry: M, D or T where they differ. Files are
 * hashed only when size or mtime differ from the index, or when the entry is racily clean
 * (modified in the same second the index was written).
 */
export function compareWorktreeWithIndex(repository: Repository, entries: readonly IndexEntry[], indexMtimeMs: number): Map<string, StatusCode> {
  const changes = new Map<string, StatusCode>();
  const indexSeconds = Math.floor(indexMtimeMs / 1000);
  // Index paths are already normalised, so plain concatenation (much cheaper than path.join) is exact.
  const prefix = `${repository.dir}${path.sep}`;
  const folders = new Map<string, boolean>();
  for (const entry of entries) {
    if (entry.mode === GITLINK || entry.assumeValid || entry.extendedFlags & SKIP_WORKTREE) continue;
    const absolute = prefix + entry.path;
    const stat = lstatSync(absolute, { throwIfNoEntry: false });
    if (stat === undefined || stat.isDirectory() || beneathSymlink(repository.dir, entry.path, folders)) {
      changes.set(entry.path, "D");
      continue;
    }
    const change = compareFile(entry, stat, absolute, indexSeconds, repository.fileMode);
    if (change !== undefined) changes.set(entry.path, change);
  }
  return changes;
}

function compareFile(entry: IndexEntry, stat: Stats, absolute: string, indexSeconds: number, fileMode: boolean): StatusCode | undefined {
  if (stat.isSymbolicLink() !== isSymlink(entry.mode)) return "T";
  if (fileMode && !stat.isSymbolicLink() && worktreeMode(stat) !== entry.mode) return "M";
  if (entry.size !== 0 && entry.size !== stat.size % 2 ** 32) return "M";
  const seconds = Math.floor(stat.mtimeMs / 1000);
  const nanoseconds = Math.round((stat.mtimeMs - seconds * 1000) * 1e6);
  const sameTime = seconds === entry.mtimeSeconds && Math.abs(nanoseconds - entry.mtimeNanoseconds) < 1000;
  const racy = entry.mtimeSeconds >= indexSeconds;
  if (sameTime && !racy && entry.size === stat.size) return undefined;
  return worktreeOid(absolute, stat) === entry.oid ? undefined : "M";
}

/**
 * True when a folder on the way to `file` (repository-relative) is a symlink: like git, what
 * lies beneath one is not in the worktree, and nothing is read, written or deleted through it.
 * `folders` caches each folder's answer across calls.
 */
export function beneathSymlink(root: string, file: string, folders: Map<string, boolean> = new Map()): boolean {
  const folder = parentOf(file);
  if (folder === "") return false;
  let linked = folders.get(folder);
  if (linked === undefined) {
    linked = beneathSymlink(root, folder, folders) || lstatSync(path.join(root, folder), { throwIfNoEntry: false })?.isSymbolicLink() === true;
    folders.set(folder, linked);
  }
  return linked;
}

/** The blob oid of a worktree file or symlink, as `git hash-object` would give it. */
export function worktreeOid(absolute: string, stat: Stats): string {
  const content = stat.isSymbolicLink() ? Buffer.from(readlinkSync(absolute)) : readFileSync(absolute);
  return hashBlob(content);
}

/** The mode git records for a regular file: executable or not. */
export function worktreeMode(stat: Stats): number {
  if (stat.isSymbolicLink()) return SYMLINK;
  return stat.mode & 0o111 ? 0o100755 : 0o100644;
}

function isSymlink(mode: number): boolean {
  return (mode & 0o170000) === SYMLINK;
}

/** A staged deletion and a staged addition of the very same content are git's exact rename. */
function pairExactRenames(byPath: Map<string, StatusEntry>, headOids: Map<string, string>, entries: readonly IndexEntry[]): void {
  const deletedByOid = new Map<string, string[]>();
  for (const entry of [...byPath.values()].sort((left, right) => comparePaths(left.path, right.path))) {
    const oid = headOids.get(entry.path);
    if (entry.index !== "D" || oid === undefined || oid === EMPTY_BLOB) continue;
    deletedByOid.set(oid, [...(deletedByOid.get(oid) ?? []), entry.path]);
  }
  if (deletedByOid.size === 0) return;
  for (const entry of entries) {
    const status = byPath.get(entry.path);
    if (status?.index !== "A") continue;
    const source = deletedByOid.get(entry.oid)?.shift();
    if (source === undefined) continue;
    status.index = "R";
    status.from = source;
    byPath.delete(source);
  }
}

/**
 * Untracked files and folders, as git lists them by default: a folder holding no tracked
 * file is shown once as `folder/` (if it holds anything not ignored); ignored paths are left out.
 */
function findUntracked(root: string, entries: readonly IndexEntry[], rules: IgnoreRules): string[] {
  const trackedFiles = new Set<string>();
  const trackedFolders = new Set<string>([""]);
  for (const entry of entries) {
    trackedFiles.add(entry.path);
    for (let folder = parentOf(entry.path); folder !== "" && !trackedFolders.has(folder); folder = parentOf(folder)) {
      trackedFolders.add(folder);
    }
  }
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const dirent of readFolder(root, folder)) {
      if (dirent.name === ".git") continue;
      const relative = folder === "" ? dirent.name : `${folder}/${dirent.name}`;
      // Like git: a name the index holds is never untracked, whatever is on disk now.
      if (trackedFiles.has(relative)) continue;
      if (dirent.isDirectory()) {
        if (rules.isIgnored(relative, true)) continue;
        if (trackedFolders.has(relative)) walk(relative);
        else if (holdsUntracked(root, relative, rules)) found.push(`${relative}/`);
      } else if (!rules.isIgnored(relative, false)) {
        found.push(relative);
      }
    }
  };
  walk("");
  return found.sort(comparePaths);
}

function holdsUntracked(root: string, folder: string, rules: IgnoreRules): boolean {
  const dirents = readFolder(root, folder);
  if (dirents.some((dirent) => dirent.name === ".git")) return true;
  return dirents.some((dirent) => {
    const relative = `${folder}/${dirent.name}`;
    return dirent.isDirectory() ? !rules.isIgnored(relative, true) && holdsUntracked(root, relative, rules) : !rules.isIgnored(relative, false);
  });
}

function readFolder(root: string, folder: string) {
  try {
    return readdirSync(path.join(root, folder), { withFileTypes: true });
  } catch {
    return [];
  }
}

/** git sorts paths by their bytes. */
export function comparePaths(left: string, right: string): number {
  return left === right ? 0 : Buffer.compare(Buffer.from(left), Buffer.from(right));
}
