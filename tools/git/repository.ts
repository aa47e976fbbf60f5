/**
 * A repository at the workspace root, and the small helpers every git action shares:
 * reading the index, resolving refs with clear errors, turning isomorphic-git's errors into
 * ClioErrors a model can act on.
 */
import * as nodeFs from "node:fs";
import path from "node:path";
import git from "isomorphic-git";
import { ToolError } from "../errors.js";
import { emptyIndex, parseIndex, type IndexFile } from "./index-file.js";
import { withIndexLock, type IndexLock, type LockOptions } from "./lock.js";
import { type GitFileSystem, objectListingFileSystem, sharedObjectCache } from "./object-store.js";
import { objectReaderFor, type ObjectReader } from "./object-reader.js";
import { parseTagTarget } from "./object-parse.js";
import { readCommitObject, readObjectOfType } from "./objects.js";

export interface Repository {
  /** The worktree root (the workspace root). */
  dir: string;
  gitdir: string;
  /** The file system isomorphic-git is given (object look-ups answered from listings; see object-store.ts). */
  fs: GitFileSystem;
  /** isomorphic-git's object cache, shared by the actions of this process while the packs stay the same. */
  cache: object;
  /** clio's own reader for the read-only paths: packs read with positioned reads and node's zlib. */
  objects: ObjectReader;
  /** Commits whose parents a shallow clone did not fetch (`.git/shallow`). */
  shallow: ReadonlySet<string>;
  lockOptions: LockOptions;
  /** core.fileMode: false means the executable bit on disk is not trusted (kept as in the index). */
  fileMode: boolean;
}

export interface OpenOptions {
  lockOptions?: LockOptions;
}

/** Opens the repository whose `.git` folder is directly in `root`; `not_a_repository` otherwise. */
export async function openRepository(root: string, options: OpenOptions = {}): Promise<Repository> {
  const gitdir = path.join(root, ".git");
  const stat = statOrUndefined(gitdir);
  if (stat?.isFile()) {
    throw new ToolError(
      "not_a_repository",
      `${root}/.git is a file, not a folder: this is a linked worktree (git worktree) or a submodule, which clio's GIT does not support.`,
      "Use git in a terminal here, or start clio with --workspace set to the main repository's folder.",
    );
  }
  if (!stat?.isDirectory() || !(await exists(path.join(gitdir, "HEAD")))) {
    const enclosing = await enclosingRepository(root);
    if (enclosing !== undefined) {
      throw new ToolError("not_a_repository", `The workspace ${root} is inside the git repository at ${enclosing}; clio's GIT works only at a repository's top folder.`, [
        `To use that repository, start clio with --workspace ${enclosing}. Only if a separate repository nested in it is really wanted: `,
        { action: "init" },
        ".",
      ]);
    }
    throw new ToolError("not_a_repository", `${root} is not a git repository (there is no .git folder at the workspace root).`, [
      "Create one with ",
      { action: "init" },
      ", or start clio with --workspace set to the repository's top folder.",
    ]);
  }
  const fs = objectListingFileSystem(gitdir);
  const fileMode = await git.getConfig({ fs, gitdir, path: "core.fileMode" }).catch(() => undefined);
  return {
    dir: root,
    gitdir,
    fs,
    cache: sharedObjectCache(gitdir),
    objects: objectReaderFor(gitdir),
    shallow: readShallow(gitdir),
    lockOptions: options.lockOptions ?? {},
    fileMode: fileMode !== false && fileMode !== "false",
  };
}

/** The commits `.git/shallow` lists: a shallow clone has not fetched their parents. */
function readShallow(gitdir: string): Set<string> {
  let text = "";
  try {
    text = nodeFs.readFileSync(path.join(gitdir, "shallow"), "utf8");
  } catch {
    // No shallow file: a full clone.
  }
  return new Set(text.split("\n").filter((line) => /^[0-9a-f]{40}$/.test(line)));
}

/** The stat of `file`, or undefined when it cannot be read. Small files of the git folder are read synchronously (see object-store.ts). */
function statOrUndefined(file: string): nodeFs.Stats | undefined {
  try {
    return nodeFs.statSync(file);
  } catch {
    return undefined;
  }
}

/** The closest folder above `root` that holds a `.git` (folder or file), if any. */
export async function enclosingRepository(root: string): Promise<string | undefined> {
  for (let folder = path.dirname(path.resolve(root)); ; folder = path.dirname(folder)) {
    if (await exists(path.join(folder, ".git"))) return folder;
    if (path.dirname(folder) === folder) return undefined;
  }
}

export async function exists(file: string): Promise<boolean> {
  try {
    return nodeFs.lstatSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    // A path through a file (ENOTDIR) or a folder it may not read: nothing there for clio.
    return false;
  }
}

/** The index file last parsed, per path, with the identity of the file it was parsed from. */
const parsedIndexes = new Map<string, { identity: string; index: Readonly<IndexFile & { mtimeMs: number }> }>();
/** How many repositories' parsed indexes the process keeps. */
const KEPT_INDEXES = 8;

/**
 * Reads `.git/index` (an empty index when the file does not exist yet). The parse is kept for
 * the process while the file is the same one (device, inode, size, change and modification
 * times in nanoseconds: git replaces the index by renaming a new file over it), so a script's
 * commands parse it once; the result is shared, frozen, and must not be changed.
 */
export async function readIndex(repository: Repository): Promise<Readonly<IndexFile & { mtimeMs: number }>> {
  const file = path.join(repository.gitdir, "index");
  let descriptor: number;
  try {
    descriptor = nodeFs.openSync(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { ...emptyIndex(), mtimeMs: 0 };
    throw error;
  }
  try {
    // One open file for the identity and the bytes, so they belong together even if git replaces the index meanwhile.
    const stat = nodeFs.fstatSync(descriptor, { bigint: true });
    const identity = `${stat.dev}:${stat.ino}:${stat.size}:${stat.ctimeNs}:${stat.mtimeNs}`;
    const known = parsedIndexes.get(file);
    if (known?.identity === identity) return known.index;
    const parsed = parseIndex(nodeFs.readFileSync(descriptor));
    Object.freeze(parsed.entries);
    const index = Object.freeze({ ...parsed, mtimeMs: Number(stat.mtimeNs / 1_000_000n) + Number(stat.mtimeNs % 1_000_000n) / 1e6 });
    parsedIndexes.delete(file);
    parsedIndexes.set(file, { identity, index });
    if (parsedIndexes.size > KEPT_INDEXES) parsedIndexes.delete(parsedIndexes.keys().next().value!);
    return index;
  } finally {
    nodeFs.closeSync(descriptor);
  }
}

/** The commits of a merge in progress (`.git/MERGE_HEAD`); none when no merge is. */
export async function readMergeHeads(repository: Repository): Promise<string[]> {
  const text = await nodeFs.promises.readFile(path.join(repository.gitdir, "MERGE_HEAD"), "utf8").catch(() => "");
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^[0-9a-f]{40}$/.test(line));
}

/** Forgets a merge in progress, as git does when it is committed or reset away. */
export async function endMerge(repository: Repository): Promise<void> {
  for (const file of ["MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "AUTO_MERGE"]) await nodeFs.promises.rm(path.join(repository.gitdir, file), { force: true });
}

/** Refuses `doing` while a merge is half done (MERGE_HEAD, or conflicts in the index), as git does. */
export async function assertNoMergeInProgress(repository: Repository, doing: string): Promise<void> {
  const index = await readIndex(repository);
  const conflicted = [...new Set(index.entries.filter((entry) => entry.stage !== 0).map((entry) => entry.path))];
  if (conflicted.length === 0 && (await readMergeHeads(repository)).length === 0) return;
  const files = conflicted.length > 0 ? ` Unresolved conflicts: ${conflicted.join(", ")}.` : " All conflicts are resolved but the merge is not committed.";
  throw new ToolError("merge_conflict", `A merge is in progress, so clio will not ${doing}; nothing was changed.${files}`, [
    "Finish it: edit the conflicted files, stage them (",
    { action: "add", arguments: { files: "..." } },
    ") and ",
    { action: "commit" },
    "; or abandon it with ",
    { action: "reset", arguments: { mode: "hard" } },
    " (discards the merge and all uncommitted changes).",
  ]);
}

/** Runs `work` holding git's index lock, with the repository's wait settings. */
export function lockIndex<Result>(repository: Repository, work: (lock: IndexLock) => Promise<Result>): Promise<Result> {
  return withIndexLock(repository.gitdir, work, repository.lockOptions);
}

/** The checked-out branch's short name, or undefined when HEAD is detached. */
export async function currentBranch(repository: Repository): Promise<string | undefined> {
  const branch = await git.currentBranch({ fs: repository.fs, gitdir: repository.gitdir, fullname: false, test: false });
  return branch ?? undefined;
}

/** Like currentBranch, but a detached HEAD is an error saying how to get back onto a branch. */
export async function requireBranch(repository: Repository, doing: string): Promise<string> {
  const branch = await currentBranch(repository);
  if (branch === undefined) {
    throw new ToolError("git_error", `HEAD is detached (not on a branch), so clio will not ${doing}.`, [
      "Check out a branch first: ",
      { action: "checkout", arguments: { branch: "main" } },
      ", or make one here with ",
      { action: "checkout", arguments: { branch: "NAME", create: "true" } },
      ".",
    ]);
  }
  return branch;
}

/** The commit oid HEAD points to, or undefined in a repository without commits. */
export async function headCommit(repository: Repository): Promise<string | undefined> {
  try {
    return await git.resolveRef({ fs: repository.fs, gitdir: repository.gitdir, ref: "HEAD" });
  } catch {
    return undefined;
  }
}

/**
 * Resolves a branch, tag, remote branch, full or abbreviated oid, with `~N` / `^` suffixes,
 * to a commit oid. Unknown refs are `not_found` with the branches that do exist.
 */
export async function resolveCommit(repository: Repository, ref: string): Promise<string> {
  const { fs, gitdir, cache } = repository;
  const match = /^(.*?)((?:~\d*|\^)*)$/.exec(ref)!;
  const base = match[1]!;
  let oid: string | undefined;
  try {
    oid = await git.resolveRef({ fs, gitdir, ref: base });
  } catch {
    if (/^[0-9a-f]{4,40}$/i.test(base)) {
      oid = await git.expandOid({ fs, gitdir, oid: base.toLowerCase(), cache }).catch(() => undefined);
    }
  }
  if (oid === undefined) throw await unknownRef(repository, ref);
  oid = await peelToCommit(repository, oid, ref);
  for (const step of match[2]!.match(/~\d*|\^/g) ?? []) {
    const generations = step === "^" || step === "~" ? 1 : Number(step.slice(1));
    for (let count = 0; count < generations; count++) {
      const commit = await readCommitObject(repository, oid);
      const parent = commit.parent[0];
      if (parent === undefined) {
        const where = repository.shallow.has(oid) ? "the oldest commit of this shallow clone" : "the first commit";
        throw new ToolError("not_found", `${ref} goes back further than ${where}.`, ["Use a smaller ~N; see the history with ", { action: "log" }, "."]);
      }
      oid = parent;
    }
  }
  return oid;
}

async function peelToCommit(repository: Repository, oid: string, ref: string): Promise<string> {
  for (let depth = 0; depth < 8; depth++) {
    const object = repository.objects.read(oid);
    if (object === undefined) throw await unknownRef(repository, ref);
    if (object.type === "commit") return oid;
    if (object.type !== "tag") break;
    oid = parseTagTarget(oid, readObjectOfType(repository, oid, "tag")).object;
  }
  throw new ToolError("invalid_argument", `${ref} does not name a commit.`, "Give a branch, a tag or a commit id.");
}

async function unknownRef(repository: Repository, ref: string): Promise<ToolError> {
  const branches = await git.listBranches({ fs: repository.fs, gitdir: repository.gitdir }).catch(() => [] as string[]);
  const known = branches.length > 0 ? ` Branches here: ${branches.join(", ")}.` : " This repository has no commits yet.";
  return new ToolError("not_found", `No branch, tag or commit is called ${JSON.stringify(ref)}.${known}`, [
    "Name an existing branch, tag or commit id (see ",
    { action: "branch" },
    " and ",
    { action: "log" },
    ").",
  ]);
}

/**
 * The author/committer for new commits: clio config, then the repository's git config, then
 * the user's global git config (~/.gitconfig, $XDG_CONFIG_HOME/git/config).
 */
export async function resolveAuthor(repository: Repository, configured: unknown, env: NodeJS.ProcessEnv = process.env): Promise<{ name: string; email: string }> {
  const fromConfig = (configured ?? {}) as { name?: unknown; email?: unknown };
  const global = await globalUser(env);
  const read = async (key: "name" | "email") => {
    const value = fromConfig[key];
    if (typeof value === "string" && value !== "") return value;
    const local = await git.getConfig({ fs: repository.fs, gitdir: repository.gitdir, path: `user.${key}` }).catch(() => undefined);
    return typeof local === "string" && local !== "" ? local : global[key];
  };
  const name = await read("name");
  const email = await read("email");
  if (!name || !email) {
    throw new ToolError(
      "not_configured",
      "No commit author is set: neither clio's config (GIT.author) nor git's config (user.name, user.email) names one.",
      'Set it in clio\'s config as GIT.author = {"name": "...", "email": "..."}, or run `git config user.name "Your Name"` and `git config user.email you@example.com` in the repository.',
    );
  }
  return { name, email };
}

/** user.name / user.email from the global git config files (a minimal reader: the [user] section). */
async function globalUser(env: NodeJS.ProcessEnv): Promise<{ name?: string; email?: string }> {
  const home = env.HOME ?? env.USERPROFILE;
  const files = [
    env.XDG_CONFIG_HOME ? path.join(env.XDG_CONFIG_HOME, "git", "config") : home ? path.join(home, ".config", "git", "config") : undefined,
    home ? path.join(home, ".gitconfig") : undefined,
  ];
  const user: { name?: string; email?: string } = {};
  for (const file of files) {
    const text = file ? await nodeFs.promises.readFile(file, "utf8").catch(() => "") : "";
    let inUser = false;
    for (const line of text.split(/\r?\n/)) {
      const section = /^\s*\[([^\]]+)\]/.exec(line);
      if (section) inUser = section[1]!.trim().toLowerCase() === "user";
      const pair = inUser ? /^\s*(name|email)\s*=\s*"?(.*?)"?\s*$/i.exec(line) : null;
      if (pair) user[pair[1]!.toLowerCase() as "name" | "email"] = pair[2]!;
    }
  }
  return user;
}
