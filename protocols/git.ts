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
import * as nodeFs from "node:fs";
import { z } from "zod";
import { defineAction, defineProtocol, parameter, type ActionOutput, type ProtocolDefinition, type ProtocolEnvironment } from "./contract/protocol.js";
import { loadOnce } from "./contract/load-once.js";
import { ClioError } from "../grammar/errors.js";
import { ProtocolError } from "./contract/errors.js";
import { groupStatus, parseFileList, pathFilter, plural, porcelainLine, shortOid } from "../tools/git/format.js";
import type { MergeResult } from "../tools/git/merge-reset.js";
import type { RemoteOptions } from "../tools/git/remote.js";
import type { Resolver } from "../tools/network/guard.js";
import type { Transport } from "../tools/network/transport.js";
import type { Repository } from "../tools/git/repository.js";

type GitTools = typeof import("../tools/git/api.js");

/** The git tool layer, loaded on the first GIT command (isomorphic-git is large). */
const loadGitTools = loadOnce((): Promise<GitTools> => import("../tools/git/api.js"));

interface GitSettings {
  author?: unknown;
  credentials?: unknown;
  allowHosts?: unknown;
  lockTimeoutMs?: number;
  networkTimeoutMs?: number;
  commitTime?: unknown;
}

/** Status lines shown to the model; a bigger change is summarised. */
const MAX_STATUS_LINES = 400;

const settingsOf = (environment: ProtocolEnvironment): GitSettings => (environment.config.GIT ?? {}) as GitSettings;

/** Opens the workspace's repository and turns stray library errors into ProtocolErrors. */
async function inRepository<Result = ActionOutput>(environment: ProtocolEnvironment, work: (repository: Repository, tools: GitTools) => Promise<Result>): Promise<Result> {
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
async function repositoryPaths(environment: ProtocolEnvironment, text: string): Promise<string[]> {
  const resolved = await Promise.all(parseFileList(text).map((file) => environment.workspace.resolve(file, "read")));
  return resolved.map((item) => item.relative);
}

const ref = (description: string) => parameter.word(description, z.string().min(1).optional());
const files = parameter.optionalText('Paths relative to the repository root: one per line, or a JSON list ("[\\"a.ts\\", \\"b c.ts\\"]")');
const remote = ref("The remote's name (default origin)");
const remoteBranch = ref("The branch (default: the current branch)");

/** The network I/O GIT stands on; tests pass their own resolver or a transport trusting a test CA. */
export interface GitSeams {
  resolve?: Resolver;
  transport?: Transport;
}

const loadGuard = loadOnce(() => import("../tools/network/guard.js"));
const loadTransport = loadOnce(() => import("../tools/network/transport.js"));

async function remoteOptions(environment: ProtocolEnvironment, signal: AbortSignal, tools: GitTools, seams: GitSeams): Promise<RemoteOptions> {
  const settings = settingsOf(environment);
  const allowHosts = Array.isArray(settings.allowHosts) ? settings.allowHosts.filter((host): host is string => typeof host === "string") : [];
  const network = {
    resolve: seams.resolve ?? (await loadGuard()).systemResolver,
    transport: seams.transport ?? (await loadTransport()).nodeTransport,
    allowHosts,
  };
  return { credentials: tools.resolveCredentials(settings.credentials, environment.env), network, signal, idleTimeoutMs: settings.networkTimeoutMs, env: environment.env };
}

const commitClocks = new WeakMap<ProtocolEnvironment, () => number>();

/**
 * The clock commits are stamped with: with `GIT.commitTime` set, the n-th commit of this
 * environment gets start + n × step (milliseconds), whatever the time; otherwise the environment's clock.
 */
function commitClock(environment: ProtocolEnvironment): () => number {
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

const authorFor = (repository: Repository, environment: ProtocolEnvironment, tools: GitTools) => () =>
  tools.resolveAuthor(repository, settingsOf(environment).author, environment.env);

function mergeOutput(result: MergeResult, theirs: string): ActionOutput {
  const changed = result.changed.length > 0 ? `\n${plural(result.changed.length, "file")} changed: ${result.changed.join(", ")}` : "";
  const output =
    result.kind === "up-to-date"
      ? `Already up to date: ${result.branch} already contains ${theirs}.`
      : result.kind === "fast-forward"
        ? `Fast-forwarded ${result.branch} to ${shortOid(result.oid)} (${theirs}).${changed}`
        : `Merged ${theirs} into ${result.branch}: merge commit ${shortOid(result.oid)}.${changed}`;
  return { output, data: result };
}

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
      status: defineAction<{ files: string | undefined }>({
        summary:
          "Branch (with ahead/behind its upstream) and porcelain status: XY path, X = staged, Y = unstaged, ?? = untracked. Staged renames show as R only when the content is unchanged; edited renames show as D + A. files= limits it to some paths.",
        permission: "read",
        parameters: { files: parameter.optionalText("Only these paths/folders (one per line, or a JSON list)") },
        describe: (args) => (args.files === undefined ? "Reading git status" : `Reading git status of ${filesForDescription(args.files).join(", ")}`),
        handler: (args, { environment }) =>
          inRepository(environment, async (repository, tools) => {
            const [state, status] = await Promise.all([tools.branchState(repository), tools.computeStatus(repository, { env: environment.env })]);
            const inside = args.files === undefined ? () => true : pathFilter(await repositoryPaths(environment, args.files));
            const entries = status.entries.filter((entry) => inside(entry.path.replace(/\/$/, "")) || (entry.from !== undefined && inside(entry.from)));
            const groups = groupStatus(entries);
            const shown = entries.slice(0, MAX_STATUS_LINES).map(porcelainLine);
            if (entries.length > shown.length) shown.push(`… and ${entries.length - shown.length} more not shown (narrow it: [GIT:action=status:files=FOLDER])`);
            const lines = [tools.formatBranchHeader(state), ...shown];
            const summary =
              entries.length === 0
                ? args.files === undefined
                  ? "Nothing to commit, working tree clean."
                  : "No changes there."
                : `${groups.conflicted.length > 0 ? `${groups.conflicted.length} conflicted, ` : ""}${groups.staged.length} staged, ${groups.unstaged.length} unstaged, ${groups.untracked.length} untracked.`;
            return { output: `${lines.join("\n")}\n${summary}`, data: { ...state, entries, ...groups } };
          }),
      }),

      diff: defineAction<{ staged: boolean | undefined; from: string | undefined; to: string | undefined; files: string | undefined; path: string | undefined }>({
        summary: "Unified diff: worktree vs index (default), staged=true index vs HEAD, from=REF (to=REF) between commits or a commit and the worktree; files/path limit it.",
        permission: "read",
        parameters: {
          staged: parameter.boolean("Diff what is staged (index against HEAD)"),
          from: ref("Compare from this branch/tag/commit"),
          to: ref("Compare to this branch/tag/commit (default: the worktree when from is given)"),
          files,
          path: parameter.optionalText("One path to limit the diff to (same as files)"),
        },
        describe: (args) =>
          args.from || args.to ? `Diffing ${args.from ?? "HEAD"}..${args.to ?? "worktree"}` : args.staged ? "Diffing staged changes" : "Diffing unstaged changes",
        handler: (args, { environment }) =>
          inRepository(environment, async (repository, tools) => {
            const limit = [args.files, args.path].filter((value): value is string => value !== undefined).join("\n");
            const paths = limit === "" ? undefined : await repositoryPaths(environment, limit);
            const diffs = (await tools.diffRepository(repository, { staged: args.staged, from: args.from, to: args.to, paths })).map((item) =>
              environment.workspace.isHidden(item.path)
                ? { ...item, patch: `diff --git a/${item.path} b/${item.path}\n(${item.status}; content not shown: a deny rule keeps this file from being read)\n` }
                : item,
            );
            const data = diffs.map(({ patch: _patch, ...rest }) => rest);
            if (diffs.length === 0) return { output: "No differences.", data: { files: data } };
            let output = diffs.map((item) => item.patch).join("");
            const maximum = 200_000;
            if (output.length > maximum) {
              output = `${output.slice(0, maximum)}\n[diff truncated at ${maximum} characters; ${plural(diffs.length, "file")} differ — narrow it with files=]`;
            }
            return { output, data: { files: data }, description: `Diffed ${plural(diffs.length, "file")}` };
          }),
      }),

      log: defineAction<{ count: number | undefined; path: string | undefined; ref: string | undefined }>({
        summary: "Commit history, newest first: count (default 10), only commits touching path, from ref (default HEAD).",
        permission: "read",
        parameters: {
          count: parameter.integer("How many commits (default 10, at most 500)", { min: 1, max: 500 }),
          path: parameter.optionalText("Only commits that change this path"),
          ref: ref("Start from this branch/tag/commit (default HEAD)"),
        },
        describe: (args) => `Reading the git log${args.ref ? ` of ${args.ref}` : ""}${args.path ? ` for ${args.path}` : ""}`,
        handler: (args, { environment }) =>
          inRepository(environment, async (repository, tools) => {
            const path = args.path === undefined ? undefined : (await environment.workspace.resolve(args.path, "read")).relative;
            const commits = await tools.readLog(repository, { ref: args.ref, count: args.count ?? 10, path });
            const lines = commits.map((commit) => {
              const [subject, ...body] = commit.message.split("\n");
              const rest = body.join("\n").trim();
              return `${shortOid(commit.oid)} ${commit.date} ${commit.author} <${commit.email}>\n    ${subject}${rest ? `\n${rest.replace(/^/gm, "    ")}` : ""}`;
            });
            return { output: lines.length > 0 ? lines.join("\n") : "No commits match.", data: { commits } };
          }),
      }),

      add: defineAction<{ files: string | undefined; all: boolean | undefined }>({
        summary: "Stage changes (new, modified, deleted) under the given files/folders, or everything with all=true.",
        permission: "write",
        parameters: { files, all: parameter.boolean("Stage every change in the repository, like git add -A") },
        describe: (args) => (args.all ? "Staging all changes" : `Staging ${args.files ? filesForDescription(args.files).join(", ") : "(no files given)"}`),
        handler: (args, { environment }) =>
          inRepository(environment, async (repository, tools) => {
            if (!args.all && args.files === undefined) {
              throw new ProtocolError("missing_parameter", "GIT.add needs files=... or all=true.", 'e.g. [GIT:action=add:files="src/a.ts"] or [GIT:action=add:all=true].');
            }
            const paths = args.all ? "all" : await repositoryPaths(environment, args.files!);
            const staged = await tools.stagePaths(repository, paths, { env: environment.env });
            const output = staged.length === 0 ? "Nothing to stage: those paths have no changes." : `Staged ${plural(staged.length, "path")}:\n${tools.describeStaged(staged)}`;
            return { output, data: { staged }, description: `Staged ${plural(staged.length, "path")}` };
          }),
      }),

      commit: defineAction<{ message: string; files: string | undefined; all: boolean | undefined }>({
        summary: "Commit what is staged with message; files= stages those paths first, all=true stages everything first.",
        permission: "write",
        parameters: {
          message: parameter.text("The commit message: a short subject line, optionally a blank line and a body"),
          files,
          all: parameter.boolean("Stage every change first, like git add -A"),
        },
        describe: (args) => {
          const subject = args.message.split("\n")[0]!.trim();
          return args.files ? `Committing ${plural(filesForDescription(args.files).length, "file")}: ${subject}` : `Committing staged changes: ${subject}`;
        },
        handler: (args, { environment }) =>
          inRepository(environment, async (repository, tools) => {
            if (args.message.trim() === "") {
              throw new ProtocolError(
                "invalid_argument",
                "The commit message is empty; nothing was committed.",
                'Say what the change does: message="Fix the parser\'s handling of empty input".',
              );
            }
            const author = await tools.resolveAuthor(repository, settingsOf(environment).author, environment.env);
            if (args.all) await tools.stagePaths(repository, "all", { env: environment.env });
            else if (args.files !== undefined) await tools.stagePaths(repository, await repositoryPaths(environment, args.files), { env: environment.env });
            const result = await tools.commitStaged(repository, args.message, author, commitClock(environment));
            const subject = args.message.split("\n")[0]!.trim();
            const output = `[${result.branch} ${shortOid(result.oid)}] ${subject}\n${plural(result.files.length, "file")} committed:\n${result.files.map(porcelainLine).join("\n")}`;
            return { output, data: { ...result, author }, description: `Committed ${plural(result.files.length, "file")}: ${subject}` };
          }),
      }),

      branch: defineAction<{ name: string | undefined; branch: string | undefined; delete: boolean | undefined; force: boolean | undefined; ref: string | undefined }>({
        summary: "List branches (no name), create name (from ref, default HEAD), or delete name with delete=true (force=true for unmerged).",
        permission: (args) => ((args.name ?? args.branch) ? "write" : "read"),
        parameters: {
          name: ref("The branch to create or delete"),
          branch: ref("Same as name"),
          delete: parameter.boolean("Delete the branch instead of creating it"),
          force: parameter.boolean("With delete: delete even if its commits are not merged into HEAD"),
          ref: ref("Where a new branch starts (default HEAD)"),
        },
        describe: (args) => {
          const name = args.name ?? args.branch;
          return name === undefined ? "Listing branches" : args.delete ? `Deleting branch ${name}` : `Creating branch ${name}${args.ref ? ` at ${args.ref}` : ""}`;
        },
        handler: (args, { environment }) =>
          inRepository(environment, async (repository, tools) => {
            const name = args.name ?? args.branch;
            if (name === undefined) {
              const branches = await tools.listBranches(repository);
              const lines = branches.map((item) => `${item.current ? "*" : " "} ${item.name} ${shortOid(item.oid)} ${item.subject}`);
              return { output: lines.length > 0 ? lines.join("\n") : "No branches yet (no commits).", data: { branches } };
            }
            if (args.delete) {
              const oid = await tools.deleteBranch(repository, name, args.force ?? false);
              return { output: `Deleted branch ${name} (was ${shortOid(oid)}).`, data: { name, oid } };
            }
            const oid = await tools.createBranch(repository, name, args.ref);
            return { output: `Created branch ${name} at ${shortOid(oid)} (not checked out).`, data: { name, oid } };
          }),
      }),

      checkout: defineAction<{ branch: string | undefined; ref: string | undefined; create: boolean | undefined; files: string | undefined }>({
        summary:
          "Switch to branch (create=true makes it, from ref or HEAD), or to a commit/tag with ref= (detached); refuses to overwrite local changes. With files=: restore those files from the index (or ref), DISCARDING their uncommitted changes.",
        permission: "write",
        parameters: {
          branch: ref("The branch to switch to (or create)"),
          ref: ref("A commit or tag to check out detached; with create=true, where the new branch starts; with files, where to restore them from"),
          create: parameter.boolean("Create the branch first"),
          files: parameter.optionalText("Restore these paths instead of switching branches (one per line, or a JSON list)"),
        },
        describe: (args) =>
          args.files !== undefined
            ? `Restoring ${filesForDescription(args.files).join(", ")} from ${args.ref ?? "the index"}: discards their uncommitted changes`
            : args.create
              ? `Creating and switching to branch ${args.branch}`
              : `Checking out ${args.branch ?? args.ref}`,
        preview: (args, { environment }) =>
          inRepository(environment, async (repository, tools) => {
            if (args.files !== undefined) return tools.previewRestore(repository, await repositoryPaths(environment, args.files), args.ref);
            const target = args.branch ?? (args.create ? undefined : args.ref);
            if (target === undefined) return [];
            return tools.previewCheckout(repository, target, { create: args.create, startPoint: args.create ? args.ref : undefined, env: environment.env });
          }),
        handler: (args, { environment }) =>
          inRepository(environment, async (repository, tools) => {
            if (args.files !== undefined) {
              const restored = await tools.restorePaths(repository, await repositoryPaths(environment, args.files), args.ref);
              return { output: `Restored ${plural(restored.length, "file")} from ${args.ref ?? "the index"}: ${restored.join(", ")}.`, data: { restored } };
            }
            const target = args.branch ?? (args.create ? undefined : args.ref);
            if (target === undefined) {
              throw new ProtocolError(
                "missing_parameter",
                "GIT.checkout needs branch=NAME (or ref=COMMIT to look at a commit).",
                "e.g. [GIT:action=checkout:branch=main] or [GIT:action=checkout:branch=fix:create=true].",
              );
            }
            const result = await tools.checkout(repository, target, { create: args.create, startPoint: args.create ? args.ref : undefined, env: environment.env });
            const where = result.branch === undefined ? `HEAD is now detached at ${shortOid(result.oid)}` : `Switched to ${result.created ? "a new " : ""}branch ${result.branch}`;
            const output = `${where}. ${result.changed.length > 0 ? `${plural(result.changed.length, "file")} changed in the worktree.` : "No files changed."}`;
            return { output, data: result };
          }),
      }),

      merge: defineAction<{ branch: string; message: string | undefined }>({
        summary: "Merge branch into the current branch (fast-forward or a clean merge commit). Conflicts are refused, changing nothing.",
        permission: "write",
        parameters: { branch: parameter.word("The branch, tag or commit to merge in", z.string().min(1)), message: parameter.optionalText("The merge commit's message") },
        describe: (args) => `Merging ${args.branch} into the current branch`,
        preview: (args, { environment }) =>
          inRepository(environment, (repository, tools) =>
            tools.previewMerge(repository, args.branch, authorFor(repository, environment, tools), { message: args.message, now: environment.now, env: environment.env }),
          ),
        handler: (args, { environment }) =>
          inRepository(environment, async (repository, tools) =>
            mergeOutput(
              await tools.mergeInto(repository, args.branch, authorFor(repository, environment, tools), {
                message: args.message,
                now: commitClock(environment),
                env: environment.env,
              }),
              args.branch,
            ),
          ),
      }),

      reset: defineAction<{ mode: "soft" | "mixed" | "hard" | undefined; ref: string | undefined; files: string | undefined }>({
        summary:
          "Move the branch to ref (default HEAD): soft keeps index and files, mixed (default) unstages, hard DISCARDS all uncommitted changes to tracked files. With files=: only unstage those paths.",
        permission: "write",
        parameters: {
          mode: parameter.choice("soft, mixed (default) or hard", ["soft", "mixed", "hard"]),
          ref: ref("The commit to reset to (default HEAD)"),
          files: parameter.optionalText("Only unstage these paths (mixed mode; the branch does not move)"),
        },
        describe: (args) =>
          args.files !== undefined
            ? `Unstaging ${filesForDescription(args.files).join(", ")}`
            : args.mode === "hard"
              ? `Resetting hard to ${args.ref ?? "HEAD"}: discards every uncommitted change to tracked files`
              : `Resetting (${args.mode ?? "mixed"}) to ${args.ref ?? "HEAD"}`,
        // Only a hard reset writes files; soft and mixed leave the worktree as it is.
        preview: (args, { environment }) =>
          args.mode === "hard" && args.files === undefined
            ? inRepository(environment, (repository, tools) => tools.previewHardReset(repository, args.ref ?? "HEAD", { env: environment.env }))
            : Promise.resolve([]),
        handler: (args, { environment }) =>
          inRepository(environment, async (repository, tools) => {
            const mode = args.mode ?? "mixed";
            if (args.files !== undefined) {
              if (mode !== "mixed") {
                throw new ProtocolError(
                  "invalid_argument",
                  `reset with files only unstages (mixed); mode=${mode} cannot be combined with files.`,
                  'Drop mode, or use [GIT:action=checkout:files="..."] to discard a file\'s changes.',
                );
              }
              const unstaged = await tools.unstagePaths(repository, await repositoryPaths(environment, args.files), args.ref ?? "HEAD");
              return { output: unstaged.length > 0 ? `Unstaged: ${unstaged.join(", ")}. Files unchanged.` : "Nothing staged there; nothing changed.", data: { mode, unstaged } };
            }
            const result = await tools.reset(repository, mode, args.ref ?? "HEAD", { env: environment.env });
            const head = `HEAD is now at ${shortOid(result.oid)}.`;
            const detail =
              mode === "soft"
                ? "Index and files unchanged."
                : mode === "mixed"
                  ? result.affected.length > 0
                    ? `Unstaged: ${result.affected.join(", ")}. Files unchanged.`
                    : "Nothing was staged differently; files unchanged."
                  : result.affected.length > 0
                    ? `Discarded uncommitted changes in: ${result.affected.join(", ")}.`
                    : "There were no uncommitted changes to discard.";
            return { output: `${head} ${detail}`, data: { mode, ...result } };
          }),
      }),

      fetch: defineAction<{ remote: string | undefined; branch: string | undefined }>({
        summary: "Download a remote's commits (remote default origin; branch default all) without changing local branches.",
        permission: "network",
        parameters: { remote, branch: remoteBranch },
        describe: (args) => `Fetching ${args.branch ? `${args.branch} ` : ""}from ${args.remote ?? "origin"}`,
        handler: (args, { environment, signal }) =>
          inRepository(environment, async (repository, tools) => {
            const result = await tools.fetchRemote(repository, args.remote ?? "origin", args.branch, await remoteOptions(environment, signal, tools, seams));
            const fetched = `Fetched ${result.remote}${result.branch ? `/${result.branch}` : ""}${result.oid ? ` (${shortOid(result.oid)})` : ""}.`;
            return { output: `${fetched}\n${tools.formatBranchHeader(result.state)}`, data: result };
          }),
      }),

      pull: defineAction<{ remote: string | undefined; branch: string | undefined }>({
        summary: "Fetch a remote branch (default: the current one's upstream) and merge it into the current branch.",
        permission: "network",
        parameters: { remote, branch: remoteBranch },
        describe: (args) => `Pulling ${args.branch ?? "the current branch"} from ${args.remote ?? "origin"}`,
        handler: (args, { environment, signal }) =>
          inRepository(environment, async (repository, tools) => {
            const remoteName = args.remote ?? "origin";
            const options = { ...(await remoteOptions(environment, signal, tools, seams)), now: commitClock(environment) };
            const result = await tools.pullRemote(repository, remoteName, args.branch, authorFor(repository, environment, tools), options);
            return mergeOutput(result, `${remoteName}/${args.branch ?? result.branch}`);
          }),
      }),

      push: defineAction<{ remote: string | undefined; branch: string | undefined }>({
        summary: "Push a branch (default: the current one) to the same name on remote (default origin). Never forces.",
        permission: "network",
        parameters: { remote, branch: remoteBranch },
        describe: (args) => `Pushing ${args.branch ?? "the current branch"} to ${args.remote ?? "origin"}`,
        handler: (args, { environment, signal }) =>
          inRepository(environment, async (repository, tools) => {
            const result = await tools.pushRemote(repository, args.remote ?? "origin", args.branch, await remoteOptions(environment, signal, tools, seams));
            return { output: `Pushed ${result.branch} to ${result.remote} (${shortOid(result.oid)}).`, data: result, description: `Pushed ${result.branch} to ${result.remote}` };
          }),
      }),

      init: defineAction<{ branch: string | undefined }>({
        summary: "Create a git repository at the workspace root (branch: the first branch's name, default main).",
        permission: "write",
        parameters: { branch: ref("The initial branch name (default main)") },
        describe: () => "Creating a git repository at the workspace root",
        async handler(args, { environment }) {
          const root = environment.workspace.root;
          const tools = await loadGitTools();
          if (await tools.exists(`${root}/.git`)) return { output: `${root} is already a git repository; nothing was changed.`, data: { created: false } };
          const branch = args.branch ?? "main";
          const enclosing = await tools.enclosingRepository(root);
          await tools.git.init({ fs: nodeFs, dir: root, defaultBranch: branch });
          const nested = enclosing === undefined ? "" : ` It is nested inside the repository at ${enclosing}, which now sees this folder as an embedded repository.`;
          return {
            output: `Created an empty git repository in ${root} (branch ${branch}).${nested}`,
            data: { created: true, branch, ...(enclosing === undefined ? {} : { enclosing }) },
          };
        },
      }),
    },
  });
}

export const gitProtocol = createGitProtocol();

/** The paths of a `files` value for a description line (never throws: describe runs before checks). */
function filesForDescription(text: string): string[] {
  try {
    return parseFileList(text);
  } catch {
    return [text];
  }
}
