import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callGit, callGitFailing, makeSandbox, repositoryState, type Sandbox } from "./support.js";

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
  await sandbox.commit("base", { "shared.txt": "line 1\nline 2\nline 3\n" });
});
afterEach(async () => {
  await sandbox.cleanup();
});

/** Runs a failing action and checks that git sees exactly the same repository before and after. */
async function failsChangingNothing(action: string, raw: Record<string, string>) {
  const before = await repositoryState(sandbox);
  const error = await callGitFailing(sandbox, action, raw);
  expect(await repositoryState(sandbox)).toBe(before);
  return error;
}

describe("GIT refuses bad input with a clear error and changes nothing", () => {
  it("an unknown ref names the branches that exist", async () => {
    const error = await failsChangingNothing("checkout", { branch: "no-such-branch" });
    expect(error.code).toBe("not_found");
    expect(error.message).toContain('"no-such-branch"');
    expect(error.message).toContain("Branches here: main");
    expect((await failsChangingNothing("log", { ref: "nope~2" })).code).toBe("not_found");
    expect((await failsChangingNothing("reset", { mode: "hard", ref: "nope" })).code).toBe("not_found");
  });

  it("a commit on a detached HEAD", async () => {
    await sandbox.git(["checkout", "-q", "--detach"]);
    await sandbox.write("shared.txt", "changed\n");
    await sandbox.git(["add", "shared.txt"]);
    const error = await failsChangingNothing("commit", { message: "on detached" });
    expect(error.message).toContain("HEAD is detached");
    expect(error.hint).toContain("checkout");
  });

  it("an empty commit message", async () => {
    await sandbox.write("shared.txt", "changed\n");
    await sandbox.git(["add", "shared.txt"]);
    const error = await failsChangingNothing("commit", { message: "   \n" });
    expect(error.code).toBe("invalid_argument");
    expect(error.message).toContain("empty");
  });

  it("a commit with nothing staged", async () => {
    await sandbox.write("shared.txt", "changed but not staged\n");
    const error = await failsChangingNothing("commit", { message: "nothing" });
    expect(error.code).toBe("nothing_to_commit");
    expect(error.hint).toContain("action=add");
  });

  it("a merge with conflicts lists the files and leaves branch, index and worktree exactly as they were", async () => {
    await sandbox.git(["checkout", "-q", "-b", "feature"]);
    await sandbox.write("shared.txt", "line 1\nfeature's line 2\nline 3\n");
    await sandbox.git(["commit", "-q", "-am", "feature"]);
    await sandbox.git(["checkout", "-q", "main"]);
    await sandbox.write("shared.txt", "line 1\nmain's line 2\nline 3\n");
    await sandbox.git(["commit", "-q", "-am", "main"]);
    await sandbox.write("untracked.txt", "mine\n");
    const error = await failsChangingNothing("merge", { branch: "feature" });
    expect(error.code).toBe("merge_conflict");
    expect(error.message).toContain("conflicts in 1 file: shared.txt");
    expect(await sandbox.read("shared.txt")).toBe("line 1\nmain's line 2\nline 3\n");
  });

  it("a checkout that would overwrite local changes says which files", async () => {
    await sandbox.git(["checkout", "-q", "-b", "other"]);
    await sandbox.commit("other", { "shared.txt": "other\n", "new-on-other.txt": "other\n" });
    await sandbox.git(["checkout", "-q", "main"]);
    await sandbox.write("shared.txt", "my unsaved work\n");
    await sandbox.write("new-on-other.txt", "my untracked file\n");
    const error = await failsChangingNothing("checkout", { branch: "other" });
    expect(error.code).toBe("uncommitted_changes");
    expect(error.message).toContain("these 2 files: new-on-other.txt, shared.txt");
    expect(await sandbox.read("shared.txt")).toBe("my unsaved work\n");
  });

  it("a checkout refuses to replace an untracked folder that stands where the branch has a file", async () => {
    await sandbox.git(["checkout", "-q", "-b", "other"]);
    await sandbox.commit("other", { notes: "a file on other\n" });
    await sandbox.git(["checkout", "-q", "main"]);
    await sandbox.write("notes/mine.txt", "my untracked work\n");
    const error = await failsChangingNothing("checkout", { branch: "other" });
    expect(error.message).toContain("notes");
    expect(await sandbox.read("notes/mine.txt")).toBe("my untracked work\n");
  });

  it("a merge that would overwrite local changes", async () => {
    await sandbox.git(["checkout", "-q", "-b", "feature"]);
    await sandbox.write("shared.txt", "feature\n");
    await sandbox.git(["commit", "-q", "-am", "feature"]);
    await sandbox.git(["checkout", "-q", "main"]);
    await sandbox.write("shared.txt", "uncommitted\n");
    const error = await failsChangingNothing("merge", { branch: "feature" });
    expect(error.code).toBe("uncommitted_changes");
    expect(error.message).toContain("shared.txt");
  });

  it("a path outside the workspace", async () => {
    expect((await failsChangingNothing("add", { files: "../outside.txt" })).code).toBe("outside_workspace");
    expect((await failsChangingNothing("diff", { files: "/etc/passwd" })).code).toBe("outside_workspace");
    expect((await failsChangingNothing("log", { path: "~/x" })).code).toBe("outside_workspace");
  });

  it("paths that match nothing, or only ignored files", async () => {
    expect((await failsChangingNothing("add", { files: "missing.txt" })).code).toBe("not_found");
    expect((await failsChangingNothing("add", { files: ".git/config" })).message).toContain("git's own folder");
    await sandbox.write(".gitignore", "*.log\n");
    await sandbox.write("debug.log", "x\n");
    expect((await failsChangingNothing("add", { files: "debug.log" })).message).toContain("ignored");
  });

  it("a folder that is not a repository", async () => {
    const plain = await makeSandbox({ init: false });
    try {
      const error = await callGitFailing(plain, "status");
      expect(error.code).toBe("not_a_repository");
      expect(error.hint).toContain("action=init");
    } finally {
      await plain.cleanup();
    }
  });

  it("deleting the current branch, or an unmerged one without force", async () => {
    expect((await failsChangingNothing("branch", { name: "main", delete: "true" })).message).toContain("checked-out branch");
    await sandbox.git(["branch", "unmerged"]);
    await sandbox.git(["checkout", "-q", "unmerged"]);
    await sandbox.commit("unmerged work", { "u.txt": "u\n" });
    await sandbox.git(["checkout", "-q", "main"]);
    const error = await failsChangingNothing("branch", { name: "unmerged", delete: "true" });
    expect(error.message).toContain("not merged");
    expect((await failsChangingNothing("branch", { name: "bad..name" })).code).toBe("invalid_argument");
  });

  it("a commit without any author configured says how to set one", async () => {
    await sandbox.git(["config", "--unset", "user.name"]);
    await sandbox.write("shared.txt", "changed\n");
    await sandbox.git(["add", "shared.txt"]);
    const error = await failsChangingNothing("commit", { message: "who am I" });
    expect(error.code).toBe("not_configured");
    expect(error.hint).toContain("git config user.name");
  });

  it("takes the author from the global ~/.gitconfig when the repository has none", async () => {
    await sandbox.git(["config", "--unset", "user.name"]);
    await sandbox.git(["config", "--unset", "user.email"]);
    await sandbox.git(["config", "--global", "user.name", "Global Person"]);
    await sandbox.git(["config", "--global", "user.email", "global@example.com"]);
    await sandbox.write("shared.txt", "changed\n");
    await callGit(sandbox, "commit", { message: "from global", all: "true" });
    expect(await sandbox.git(["log", "-1", "--format=%an <%ae>"])).toBe("Global Person <global@example.com>\n");
  });
});

describe("GIT refuses branch names git refuses, before changing anything", () => {
  it.each(["bad..name", "x.lock", "-rf", "HEAD", "feature/"])("checkout create=true with %j leaves branch, index and worktree as they were", async (name) => {
    await sandbox.commit("second", { "shared.txt": "changed\n", "more.txt": "more\n" });
    const before = await repositoryState(sandbox);
    const error = await failsChangingNothing("checkout", { branch: name, create: "true", ref: "HEAD~1" });
    expect(error.code).toBe("invalid_argument");
    expect(error.message).toContain("not a valid branch name");
    expect(await repositoryState(sandbox)).toBe(before);
    expect(await sandbox.read("more.txt")).toBe("more\n");
  });

  it.each(["-rf", "HEAD"])("branch name=%j is refused like git branch refuses it", async (name) => {
    const error = await failsChangingNothing("branch", { name });
    expect(error.code).toBe("invalid_argument");
  });
});

describe("GIT changes nothing when a folder with files stands where a file must go", () => {
  it("reset hard refuses before writing any file, not halfway through", async () => {
    await sandbox.commit("with notes", { "a.txt": "old a\n", notes: "a file\n" });
    await sandbox.git(["rm", "-q", "notes"]);
    await sandbox.commit("without notes", { "a.txt": "new a\n" });
    await sandbox.write("notes/mine.txt", "precious\n");
    await sandbox.write("shared.txt", "local edit\n");
    const before = await repositoryState(sandbox);
    const error = await callGitFailing(sandbox, "reset", { mode: "hard", ref: "HEAD~1" });
    expect(error.code).toBe("already_exists");
    expect(error.message).toContain("notes");
    expect(await repositoryState(sandbox)).toBe(before);
    expect(await sandbox.read("a.txt")).toBe("new a\n");
    expect(await sandbox.read("shared.txt")).toBe("local edit\n");
    expect(await sandbox.read("notes/mine.txt")).toBe("precious\n");
  });
});
