/**
 * What makes a replay give the same results on every machine and under parallel runs: commits
 * by a fixed author (unless the person names another) stamped by a clock that advances one step
 * per commit from a fixed start, and child processes told not to colour their output.
 */

/** A commit author: `Name <email>`. */
export interface GitAuthor {
  name: string;
  email: string;
}

/** The author of every commit a replay makes, unless `--git-author` names another. */
export const REPLAY_GIT_AUTHOR: GitAuthor = { name: "Clio Replay", email: "replay@example.com" };

/** The first commit of a replay is stamped with this time; each further commit one step later. */
export const REPLAY_COMMIT_TIME = { start: "2026-01-01T00:00:00Z", stepSeconds: 60 } as const;

/** Reads `Name <email>` (as `--git-author` takes it); undefined when it is not in that form. */
export function parseGitAuthor(text: string): GitAuthor | undefined {
  const match = /^\s*([^<>]*?)\s*<([^<>\s]+@[^<>\s]+)>\s*$/.exec(text);
  return match?.[1] ? { name: match[1], email: match[2]! } : undefined;
}

/** The protocol settings with GIT's author and commit clock fixed for a replay. */
export function deterministicProtocolConfig(config: Record<string, unknown>, author: GitAuthor = REPLAY_GIT_AUTHOR): Record<string, unknown> {
  const git = typeof config.GIT === "object" && config.GIT !== null ? (config.GIT as Record<string, unknown>) : {};
  return { ...config, GIT: { ...git, author, commitTime: { ...REPLAY_COMMIT_TIME } } };
}

/** The environment handed to protocols (and through them to child processes) without colour. */
export function colourlessEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { CLICOLOR_FORCE: _forced, ...rest } = env;
  return { ...rest, NO_COLOR: "1", FORCE_COLOR: "0" };
}
