/**
 * GIT's recording actions: add (stage), commit, and init (create the repository).
 */
import * as nodeFs from "node:fs";
import { plural, porcelainLine, shortOid } from "../../tools/git/format.js";
import { ProtocolError } from "../contract/errors.js";
import { defineAction, parameter } from "../contract/protocol.js";
import { commitClock, files, filesForDescription, inRepository, loadGitTools, ref, repositoryPaths, settingsOf } from "./repository-access.js";

/** GIT.add: stage changes. */
export const addAction = defineAction<{ files: string | undefined; all: boolean | undefined }>({
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
});

/** GIT.commit: commit what is staged. */
export const commitAction = defineAction<{ message: string; files: string | undefined; all: boolean | undefined }>({
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
});

/** GIT.init: create a repository at the workspace root. */
export const initAction = defineAction<{ branch: string | undefined }>({
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
});
