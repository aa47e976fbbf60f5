/**
 * What every GIT action stands on: the git tool layer (loaded on the first GIT command), the
 * workspace's repository opened with the protocol's settings, stray library errors turned into
 * protocol errors, workspace-confined paths, the commit clock and author, and the parameter kinds
 * several actions share.
 */
import { z } from "zod";
import { ClioError } from "../../grammar/errors.js";
import type { Repository } from "../../tools/git/repository.js";
import { parseFileList } from "../../tools/git/format.js";
import { ProtocolError } from "../contract/errors.js";
import { loadOnce } from "../contract/load-once.js";
import { parameter, type ActionOutput, type ProtocolEnvironment } from "../contract/protocol.js";

/** The git tool layer's functions. */
export type GitTools = typeof import("../../tools/git/api.js");

/** The git tool layer, loaded on the first GIT command (isomorphic-git is large). */
export const loadGitTools = loadOnce((): Promise<GitTools> => import("../../tools/git/api.js"));

/** `config.GIT` as written; each reader checks the values it uses. */
export interface GitSettings {
  author?: unknown;
  credentials?: unknown;
  allowHosts?: unknown;
  lockTimeoutMs?: number;
  networkTimeoutMs?: number;
  commitTime?: unknown;
}

/** The environment's GIT settings (empty when none are configured). */
export const settingsOf = (environment: ProtocolEnvironment): GitSettings => (environment.config.GIT ?? {}) as GitSettings;

/** Opens the workspace's repository and turns stray library errors into ProtocolErrors. */
export async function inRepository<Result = ActionOutput>(environment: ProtocolEnvironment, work: (repository: Repository, tools: GitTools) => Promise<Result>): Promise<Result> {
  const settings = settingsOf(environment);
  const tools = await loadGitTools();
  const repository = await tools.openRepository(environment.workspace.root, { lockOptions: { timeoutMs: settings.lockTimeoutMs } });
  try {
    return await work(repository, tools);
  } catch (error) {
    if (ClioError.isInstance(error)) throw error;
    const { code, message } = error as { code?: string; message?: string };
    const text = tools.scrubSecrets(message ?? String(error));
    if (code === "NotFoundError") throw new ProtocolError("not_found", text, "Check the name with [GIT:action=branch] or [GIT:action=log].");
    if (code === "InvalidRefNameError") throw new ProtocolError("invalid_argument", text, "Use a valid ref name, e.g. feature/parser.");
    throw new ProtocolError("git_error", text);
  }
}

/** Workspace-confined, repository-relative paths from a `files`/`path` value. */
export async function repositoryPaths(environment: ProtocolEnvironment, text: string): Promise<string[]> {
  const resolved = await Promise.all(parseFileList(text).map((file) => environment.workspace.resolve(file, "read")));
  return resolved.map((item) => item.relative);
}

/** A branch, tag or commit name parameter (optional). */
export const ref = (description: string) => parameter.word(description, z.string().min(1).optional());

/** The optional `files` parameter: paths relative to the repository root. */
export const files = parameter.optionalText('Paths relative to the repository root: one per line, or a JSON list ("[\\"a.ts\\", \\"b c.ts\\"]")');

const commitClocks = new WeakMap<ProtocolEnvironment, () => number>();

/**
 * The clock commits are stamped with: with `GIT.commitTime` set, the n-th commit of this
 * environment gets start + n × step (milliseconds), whatever the time; otherwise the environment's clock.
 */
export function commitClock(environment: ProtocolEnvironment): () => number {
  const setting = settingsOf(environment).commitTime;
  if (setting === undefined) return environment.now;
  let clock = commitClocks.get(environment);
  if (clock === undefined) {
    const { start, stepSeconds = 60 } = setting as { start?: unknown; stepSeconds?: unknown };
    const startMs = typeof start === "number" ? start * 1000 : typeof start === "string" ? Date.parse(start) : Number.NaN;
    if (!Number.isFinite(startMs) || typeof stepSeconds !== "number" || !(stepSeconds > 0)) {
      throw new ProtocolError(
        "not_configured",
        `GIT.commitTime must be {start, stepSeconds}: an ISO date-time or epoch seconds and a positive number; got ${JSON.stringify(setting)}.`,
        'Write it as GIT.commitTime = {"start": "2026-01-01T00:00:00Z", "stepSeconds": 60}.',
      );
    }
    let commits = 0;
    clock = () => startMs + stepSeconds * 1000 * commits++;
    commitClocks.set(environment, clock);
  }
  return clock;
}

/** The commit author, resolved from the settings, the repository and the environment when a commit needs it. */
export const authorFor = (repository: Repository, environment: ProtocolEnvironment, tools: GitTools) => () =>
  tools.resolveAuthor(repository, settingsOf(environment).author, environment.env);

/** The paths of a `files` value for a description line (never throws: describe runs before checks). */
export function filesForDescription(text: string): string[] {
  try {
    return parseFileList(text);
  } catch {
    return [text];
  }
}
