/**
 * GIT — version control of the workspace's repository (the workspace root is the repository
 * root): status, diff, log, add, commit, branch, checkout, merge, reset, fetch, pull, push, init.
 * Settings (`config.GIT`): `author` {name, email}; `credentials` {username, password} or
 * {token}, with `hosts` (the only hosts they go to, over https; from the person's own config
 * only); `allowHosts` (remotes reachable although on this machine or a private network, as
 * WEB.allowHosts); `lockTimeoutMs` (wait for another git's index.lock, default 3000);
 * `networkTimeoutMs` (idle limit for push/pull/fetch, default 30000); `commitTime` {start (ISO
 * date-time or epoch seconds), stepSeconds (default 60)}: commits are stamped start, start+step, …
 * instead of the clock's time (replays use it so hashes and log order never vary). Credentials
 * may also come from CLIO_GIT_USERNAME + CLIO_GIT_PASSWORD, or GIT_TOKEN (still only to
 * `credentials.hosts`); they never appear in results.
 * Every index write holds git's `.git/index.lock`, so clio and a running git never interleave.
 * Limits: no clean/smudge filters or core.autocrlf (content is compared as stored), renames
 * are detected only when the content is unchanged, submodules are left alone, no split index.
 */
import { defineProtocol, type ProtocolDefinition } from "./contract/protocol.js";
import { addAction, commitAction, initAction } from "./git/commit-actions.js";
import { branchAction, checkoutAction, mergeAction, resetAction } from "./git/branch-actions.js";
import { diffAction, logAction, statusAction } from "./git/inspect-actions.js";
import { fetchAction, type GitSeams, pullAction, pushAction } from "./git/remote-actions.js";

export type { GitSeams } from "./git/remote-actions.js";

/** Builds the GIT protocol over the given network seams (the real resolver and transport by default). */
export function createGitProtocol(seams: GitSeams = {}): ProtocolDefinition<undefined> {
  return defineProtocol<undefined>({
    name: "GIT",
    summary: "Version control of the workspace repository: status, diff, log, add, commit, branch, checkout, merge, reset, fetch, pull, push, init.",
    aliases: {
      git_status: { action: "status" },
      git_diff: { action: "diff" },
      git_log: { action: "log", parameters: { max_count: "count" } },
      git_commit: { action: "commit" },
    },
    actions: {
      status: statusAction,
      diff: diffAction,
      log: logAction,
      add: addAction,
      commit: commitAction,
      branch: branchAction,
      checkout: checkoutAction,
      merge: mergeAction,
      reset: resetAction,
      fetch: fetchAction(seams),
      pull: pullAction(seams),
      push: pushAction(seams),
      init: initAction,
    },
  });
}

/** The GIT protocol over the real network. */
export const gitProtocol = createGitProtocol();
