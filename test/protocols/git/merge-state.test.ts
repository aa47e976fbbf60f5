import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callGit, callGitFailing, fsckClean, gitPorcelain, makeSandbox, repositoryState, type Sandbox } from "./support.js";

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
  await sandbox.commit("base", { "both.txt": "a\n", "deleted-by-us.txt": "a\n", "deleted-by-them.txt": "a\n" });
  await sandbox.git(["checkout", "-q", "-b", "other"]);
  await sandbox.commit("other", { "both.txt": "other\n", "deleted-by-us.txt": "other\n", "added.txt": "other\n" });
  await sandbox.git(["rm", "-q", "deleted-by-them.txt"]);
  await sandbox.git(["commit", "-q", "-m", "other removes"]);
  await sandbox.git(["checkout", "-q", "main"]);
  await sandbox.commit("main", { "both.txt": "main\n", "deleted-by-them.txt": "main\n", "added.txt": "main\n" });
  await sandbox.git(["rm", "-q", "deleted-by-us.txt"]);
  await sandbox.git(["commit", "-q", "-m", "main removes"]);
  // Real git leaves the merge half done: conflicts in the index, MERGE_HEAD set.
  await sandbox.git(["merge", "other"]).catch(() => undefined);
});
afterEach(async () => {
  await sandbox.cleanup();
});

describe("GIT in the middle of a merge git left with conflicts", () => {
  it("status shows each conflict with git's code (AA, UU, UD, DU) and counts them as conflicts", async () => {
    const expected = await gitPorcelain(sandbox);
    expect(expected).toEqual(["AA added.txt", "UU both.txt", "UD deleted-by-them.txt", "DU deleted-by-us.txt"]);
    const result = await callGit(sandbox, "status");
    expect(result.output).toBe("## main\nAA added.txt\nUU both.txt\nUD deleted-by-them.txt\nDU deleted-by-us.txt\n4 conflicted, 0 staged, 0 unstaged, 0 untracked.");
  });

  it("committing the resolution makes a merge commit with both parents and ends the merge, like git commit", async () => {
    const ours = (await sandbox.git(["rev-parse", "HEAD"])).trim();
    const theirs = (await sandbox.git(["rev-parse", "other"])).trim();
    await sandbox.write("both.txt", "main and other\n");
    await sandbox.write("added.txt", "both added\n");
    await callGit(sandbox, "commit", { message: "Merge other", all: "true" });
    expect((await sandbox.git(["log", "-1", "--format=%P"])).trim()).toBe(`${ours} ${theirs}`);
    for (const file of ["MERGE_HEAD", "MERGE_MSG", "MERGE_MODE"]) {
      expect(
        await fs.stat(path.join(sandbox.repo, ".git", file)).then(
          () => true,
          () => false,
        ),
      ).toBe(false);
    }
    expect(await sandbox.git(["status"])).not.toContain("merging");
    expect(await gitPorcelain(sandbox)).toEqual([]);
    expect(await fsckClean(sandbox)).toBe("");
  });

  it("reset hard ends the merge like git: conflicts gone, MERGE_HEAD removed, the next commit is an ordinary one", async () => {
    const result = await callGit(sandbox, "reset", { mode: "hard" });
    expect(result.output).toContain("both.txt");
    expect(await gitPorcelain(sandbox)).toEqual([]);
    expect(
      await fs.stat(path.join(sandbox.repo, ".git", "MERGE_HEAD")).then(
        () => true,
        () => false,
      ),
    ).toBe(false);
    await sandbox.write("new.txt", "new\n");
    await callGit(sandbox, "commit", { message: "after the abandoned merge", all: "true" });
    expect((await sandbox.git(["log", "-1", "--format=%P"])).trim().split(" ")).toHaveLength(1);
  });

  it.each([
    ["checkout", { branch: "other" }],
    ["merge", { branch: "other" }],
    ["reset", { mode: "soft", ref: "HEAD~1" }],
  ])("%s is refused until the merge is concluded, changing nothing", async (action, raw) => {
    const before = await repositoryState(sandbox);
    const error = await callGitFailing(sandbox, action, raw as Record<string, string>);
    expect(error.code).toBe("merge_conflict");
    expect(error.message).toContain("merge");
    expect(error.hint).toContain("action=commit");
    expect(error.hint).toContain("mode=hard");
    expect(await repositoryState(sandbox)).toBe(before);
  });
});
