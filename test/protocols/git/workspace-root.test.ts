import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callGit, callGitFailing, makeSandbox, type Sandbox } from "./support.js";

let sandbox: Sandbox;
let sub: string;
beforeEach(async () => {
  sandbox = await makeSandbox();
  await sandbox.commit("base", { "sub/a.txt": "a\n" });
  sub = path.join(sandbox.repo, "sub");
});
afterEach(async () => {
  await sandbox.cleanup();
});

describe("GIT when the workspace is a folder inside a repository", () => {
  it("says which repository the workspace is in and how to open it", async () => {
    const error = await callGitFailing(sandbox, "status", {}, { root: sub });
    expect(error.code).toBe("not_a_repository");
    expect(error.message).toContain(`inside the git repository at ${sandbox.repo}`);
    expect(error.hint).toContain(`--workspace ${sandbox.repo}`);
  });

  it("init says the new repository is nested inside the enclosing one", async () => {
    const result = await callGit(sandbox, "init", {}, { root: sub });
    expect(result.output).toContain(`nested inside the repository at ${sandbox.repo}`);
    expect(await sandbox.git(["rev-parse", "--show-toplevel"], sub)).toBe(`${sub}\n`);
  });
});

describe("GIT in a linked worktree (.git is a file pointing elsewhere)", () => {
  it("says that linked worktrees and submodules are not supported, instead of claiming there is no repository", async () => {
    const linked = path.join(sandbox.base, "linked");
    await sandbox.git(["worktree", "add", "-q", linked]);
    const error = await callGitFailing(sandbox, "status", {}, { root: linked });
    expect(error.code).toBe("not_a_repository");
    expect(error.message).toContain(".git is a file");
    expect(error.message).toContain("linked worktree");
    expect(error.hint).not.toContain("action=init");
  });
});
