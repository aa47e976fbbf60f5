/**
 * History: the log, and how far a branch is ahead of / behind its upstream.
 */
import git from "isomorphic-git";
import { ClioError } from "../errors.js";
import { currentBranch, headCommit, resolveCommit, type Repository } from "./repository.js";

export interface LogEntry {
  oid: string;
  author: string;
  email: string;
  /** ISO 8601, UTC. */
  date: string;
  message: string;
}

/** The newest `count` commits reachable from `ref` (default HEAD), optionally only those touching `path`. */
export async function readLog(repository: Repository, options: { ref?: string; count: number; path?: string }): Promise<LogEntry[]> {
  if (options.ref === undefined && (await headCommit(repository)) === undefined) {
    throw new ClioError("not_found", "This repository has no commits yet.", "Make the first one with [GIT:action=commit].");
  }
  const oid = await resolveCommit(repository, options.ref ?? "HEAD");
  const commits = await git.log({
    fs: repository.fs,
    gitdir: repository.gitdir,
    ref: oid,
    depth: options.count,
    filepath: options.path,
    cache: repository.cache,
  }).catch((error: unknown) => {
    // isomorphic-git reports a path with no history as NotFoundError.
    if (options.path !== undefined && (error as { code?: string }).code === "NotFoundError") return [];
    throw error;
  });
  return commits.slice(0, options.count).map(({ oid: commitOid, commit }) => ({
    oid: commitOid,
    author: commit.author.name,
    email: commit.author.email,
    date: new Date(commit.author.timestamp * 1000).toISOString().replace(".000Z", "Z"),
    message: commit.message.replace(/\n+$/, ""),
  }));
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
  const [ours, theirs] = await Promise.all([ancestors(repository, head, limit), ancestors(repository, upstreamOid, limit)]);
  let ahead = 0;
  let behind = 0;
  for (const oid of ours) if (!theirs.has(oid)) ahead++;
  for (const oid of theirs) if (!ours.has(oid)) behind++;
  return { branch, head, upstream, ahead, behind };
}

/** `oid` and its ancestors, at most `limit` of them. */
export async function ancestors(repository: Repository, oid: string, limit: number): Promise<Set<string>> {
  const seen = new Set<string>();
  const queue = [oid];
  while (queue.length > 0 && seen.size < limit) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    const { commit } = await git.readCommit({ fs: repository.fs, gitdir: repository.gitdir, oid: next, cache: repository.cache });
    queue.push(...commit.parent);
  }
  return seen;
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
