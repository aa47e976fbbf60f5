/**
 * History: the log, and how far a branch is ahead of / behind its upstream.
 */
import git, { type CommitObject } from "isomorphic-git";
import { ToolError } from "../errors.js";
import { currentBranch, headCommit, resolveCommit, type Repository } from "./repository.js";
import { entryAt, readCommitObject } from "./tree.js";

export interface LogEntry {
  oid: string;
  author: string;
  email: string;
  /** ISO 8601, UTC. */
  date: string;
  message: string;
}

/**
 * The newest `count` commits reachable from `ref` (default HEAD), newest first by commit time
 * as git walks them; with `path`, only commits that change what is at that path (a file or a
 * folder), simplified as git does by default: a merge that kept one parent's version is not
 * shown, and only that parent's side is followed.
 */
export async function readLog(repository: Repository, options: { ref?: string; count: number; path?: string }): Promise<LogEntry[]> {
  if (options.ref === undefined && (await headCommit(repository)) === undefined) {
    throw new ToolError("not_found", "This repository has no commits yet.", ["Make the first one with ", { action: "commit" }, "."]);
  }
  const start = await resolveCommit(repository, options.ref ?? "HEAD");
  const entries: LogEntry[] = [];
  const queue: Array<{ oid: string; commit: CommitObject }> = [{ oid: start, commit: await readCommitObject(repository, start) }];
  const queued = new Set([start]);
  while (queue.length > 0 && entries.length < options.count) {
    const { oid, commit } = queue.shift()!;
    let parents = commit.parent;
    let shown = true;
    if (options.path !== undefined) {
      const sameParent = await parentWithSameEntry(repository, commit, options.path);
      if (sameParent !== undefined) {
        parents = [sameParent];
        shown = false;
      } else if (commit.parent.length === 0) shown = (await entryAt(repository, commit.tree, options.path)) !== undefined;
    }
    if (shown) entries.push(logEntry(oid, commit));
    for (const parent of parents) {
      if (queued.has(parent)) continue;
      queued.add(parent);
      const parentCommit = await readCommitObject(repository, parent);
      const time = parentCommit.committer.timestamp;
      const at = queue.findIndex((item) => item.commit.committer.timestamp < time);
      queue.splice(at === -1 ? queue.length : at, 0, { oid: parent, commit: parentCommit });
    }
  }
  return entries;
}

/** The first parent whose tree has the same thing at `path` as the commit's (git's TREESAME), if any. */
async function parentWithSameEntry(repository: Repository, commit: CommitObject, path: string): Promise<string | undefined> {
  if (commit.parent.length === 0) return undefined;
  const mine = await entryAt(repository, commit.tree, path);
  for (const parent of commit.parent) {
    const theirs = await entryAt(repository, (await readCommitObject(repository, parent)).tree, path);
    if (mine?.oid === theirs?.oid) return parent;
  }
  return undefined;
}

function logEntry(oid: string, commit: CommitObject): LogEntry {
  return {
    oid,
    author: commit.author.name,
    email: commit.author.email,
    date: new Date(commit.author.timestamp * 1000).toISOString().replace(".000Z", "Z"),
    message: commit.message.replace(/\n+$/, ""),
  };
}

export interface BranchState {
  /** The branch name, undefined when HEAD is detached. */
  branch?: string;
  /** HEAD's commit (undefined before the first commit). */
  head?: string;
  /** e.g. origin/main, when the branch tracks one that exists locally. */
  upstream?: string;
  ahead?: number;
  behind?: number;
}

/** The branch, its upstream and ahead/behind counts (counted up to `limit` commits each way). */
export async function branchState(repository: Repository, limit = 2000): Promise<BranchState> {
  const branch = await currentBranch(repository);
  const head = await headCommit(repository);
  if (branch === undefined || head === undefined) return { branch, head };
  const { fs, gitdir } = repository;
  const remote = await git.getConfig({ fs, gitdir, path: `branch.${branch}.remote` }).catch(() => undefined);
  const merge = await git.getConfig({ fs, gitdir, path: `branch.${branch}.merge` }).catch(() => undefined);
  if (typeof remote !== "string" || typeof merge !== "string") return { branch, head };
  const upstream = `${remote}/${merge.replace(/^refs\/heads\//, "")}`;
  const upstreamOid = await git.resolveRef({ fs, gitdir, ref: `refs/remotes/${upstream}` }).catch(() => undefined);
  if (upstreamOid === undefined) return { branch, head, upstream };
  const counts = await aheadBehind(repository, head, upstreamOid, limit);
  return { branch, head, upstream, ...counts };
}

/**
 * How many commits each side has that the other lacks, git's way: walk both histories
 * newest-first, carrying "reachable from ours/theirs" marks, until what is left is shared.
 * Undefined counts after `limit` steps.
 */
export async function aheadBehind(repository: Repository, ours: string, theirs: string, limit: number): Promise<{ ahead?: number; behind?: number }> {
  if (ours === theirs) return { ahead: 0, behind: 0 };
  const OURS = 1;
  const THEIRS = 2;
  const marks = new Map<string, number>();
  const facts = new Map<string, { time: number; parents: string[] }>();
  const queue: string[] = [];
  const mark = async (oid: string, flag: number): Promise<void> => {
    const had = marks.get(oid) ?? 0;
    if ((had | flag) === had) return;
    marks.set(oid, had | flag);
    let fact = facts.get(oid);
    if (!fact) {
      const commit = await readCommitObject(repository, oid);
      facts.set(oid, (fact = { time: commit.committer.timestamp, parents: commit.parent }));
    }
    if (queue.includes(oid)) return;
    const time = fact.time;
    const at = queue.findIndex((queued) => facts.get(queued)!.time < time);
    queue.splice(at === -1 ? queue.length : at, 0, oid);
  };
  await mark(ours, OURS);
  await mark(theirs, THEIRS);
  const BOTH = OURS | THEIRS;
  // Done when every queued commit is shared and older than every one-sided commit: then
  // nothing still to walk can be an ancestor of a one-sided commit (commits made in the same
  // second are walked through, so ties do not end the walk early).
  const done = () => {
    if (queue.some((oid) => marks.get(oid) !== BOTH)) return false;
    let oldestOneSided = Infinity;
    for (const [oid, flag] of marks) if (flag !== BOTH) oldestOneSided = Math.min(oldestOneSided, facts.get(oid)!.time);
    return queue.length === 0 || facts.get(queue[0]!)!.time < oldestOneSided;
  };
  for (let steps = 0; !done(); steps++) {
    if (steps >= limit) return {};
    const oid = queue.shift()!;
    for (const parent of facts.get(oid)!.parents) await mark(parent, marks.get(oid)!);
  }
  let ahead = 0;
  let behind = 0;
  for (const flag of marks.values()) {
    if (flag === OURS) ahead++;
    else if (flag === THEIRS) behind++;
  }
  return { ahead, behind };
}

/** `git status -b`'s header line: `## main...origin/main [ahead 1, behind 2]`. */
export function formatBranchHeader(state: BranchState): string {
  if (state.branch === undefined) return state.head ? `## HEAD (detached at ${state.head.slice(0, 7)})` : "## HEAD (no branch)";
  if (state.head === undefined) return `## No commits yet on ${state.branch}`;
  let line = `## ${state.branch}`;
  if (state.upstream) line += `...${state.upstream}`;
  const counts = [state.ahead ? `ahead ${state.ahead}` : "", state.behind ? `behind ${state.behind}` : ""].filter(Boolean);
  if (counts.length > 0) line += ` [${counts.join(", ")}]`;
  return line;
}
