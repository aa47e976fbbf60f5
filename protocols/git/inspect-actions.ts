/**
 * GIT's reading actions: status, diff and log. They change nothing.
 */
import { groupStatus, pathFilter, plural, porcelainLine, shortOid } from "../../tools/git/format.js";
import { defineAction, parameter } from "../contract/protocol.js";
import { files, filesForDescription, inRepository, ref, repositoryPaths } from "./repository-access.js";

/** Status lines shown to the model; a bigger change is summarised. */
const MAX_STATUS_LINES = 400;

/** Characters of diff shown to the model before it is cut. */
const MAX_DIFF_CHARACTERS = 200_000;

/** GIT.status: the branch and the porcelain status. */
export const statusAction = defineAction<{ files: string | undefined }>({
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
});

/** GIT.diff: a unified diff of the worktree, the index or commits. */
export const diffAction = defineAction<{ staged: boolean | undefined; from: string | undefined; to: string | undefined; files: string | undefined; path: string | undefined }>({
  summary: "Unified diff: worktree vs index (default), staged=true index vs HEAD, from=REF (to=REF) between commits or a commit and the worktree; files/path limit it.",
  permission: "read",
  parameters: {
    staged: parameter.boolean("Diff what is staged (index against HEAD)"),
    from: ref("Compare from this branch/tag/commit"),
    to: ref("Compare to this branch/tag/commit (default: the worktree when from is given)"),
    files,
    path: parameter.optionalText("One path to limit the diff to (same as files)"),
  },
  describe: (args) => (args.from || args.to ? `Diffing ${args.from ?? "HEAD"}..${args.to ?? "worktree"}` : args.staged ? "Diffing staged changes" : "Diffing unstaged changes"),
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
      if (output.length > MAX_DIFF_CHARACTERS) {
        output = `${output.slice(0, MAX_DIFF_CHARACTERS)}\n[diff truncated at ${MAX_DIFF_CHARACTERS} characters; ${plural(diffs.length, "file")} differ — narrow it with files=]`;
      }
      return { output, data: { files: data }, description: `Diffed ${plural(diffs.length, "file")}` };
    }),
});

/** GIT.log: commit history, newest first. */
export const logAction = defineAction<{ count: number | undefined; path: string | undefined; ref: string | undefined }>({
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
});
