import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callGit, makeSandbox, type Sandbox } from "./support.js";

let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = await makeSandbox();
});

afterEach(async () => {
  await sandbox.cleanup();
});

const oidsOf = (result: { data?: unknown }) => (result.data as { commits: Array<{ oid: string }> }).commits.map((commit) => commit.oid);
const gitOids = async (args: string[]) => (await sandbox.git(["log", "--format=%H", ...args])).trim().split("\n").filter(Boolean);

/** A history with two branches merged twice (once keeping one side's file), commits a second apart. */
async function branchyHistory(): Promise<void> {
  let second = 0;
  const at = () => {
    second++;
    const date = `2026-01-01T00:00:${String(second).padStart(2, "0")}Z`;
    sandbox.env.GIT_AUTHOR_DATE = date;
    sandbox.env.GIT_COMMITTER_DATE = date;
  };
  at();
  await sandbox.commit("base", { "a.txt": "a0\n", "lib/b.txt": "b0\n", "lib/deep/c.txt": "c0\n" });
  await sandbox.git(["checkout", "-q", "-b", "side"]);
  at();
  await sandbox.commit("side changes b", { "lib/b.txt": "b1\n" });
  at();
  await sandbox.commit("side changes c", { "lib/deep/c.txt": "c1\n" });
  await sandbox.git(["checkout", "-q", "main"]);
  at();
  await sandbox.commit("main changes a", { "a.txt": "a1\n" });
  at();
  await sandbox.git(["merge", "-q", "--no-ff", "-m", "merge side", "side"]);
  await sandbox.git(["checkout", "-q", "side"]);
  at();
  await sandbox.commit("side changes b again", { "lib/b.txt": "b2\n" });
  await sandbox.git(["checkout", "-q", "main"]);
  at();
  await sandbox.git(["merge", "-q", "--no-ff", "-s", "ours", "-m", "merge side, keeping ours", "side"]);
  at();
  await sandbox.commit("main changes c", { "lib/deep/c.txt": "c2\n" });
}

describe("GIT.log on a history with merges, checked with git", () => {
  it("lists the same commits in the same order as git log, with and without a path", async () => {
    await branchyHistory();
    expect(oidsOf(await callGit(sandbox, "log", { count: "50" }))).toEqual(await gitOids(["-50"]));
    expect(oidsOf(await callGit(sandbox, "log", { count: "3" }))).toEqual(await gitOids(["-3"]));
    for (const path of ["a.txt", "lib/b.txt", "lib/deep/c.txt", "lib", "lib/deep", "missing.txt"]) {
      expect(oidsOf(await callGit(sandbox, "log", { path, count: "50" })), path).toEqual(await gitOids(["-50", "--", path]));
    }
    expect(oidsOf(await callGit(sandbox, "log", { path: "lib", count: "2" }))).toEqual(await gitOids(["-2", "--", "lib"]));
    expect(oidsOf(await callGit(sandbox, "log", { ref: "side", path: "lib/b.txt" }))).toEqual(await gitOids(["side", "--", "lib/b.txt"]));
  });

  it("diffs between any two commits name the same files as git diff", async () => {
    await branchyHistory();
    const commits = await gitOids([]);
    const pairs: Array<[string, string]> = [
      [commits.at(-1)!, commits[0]!],
      [commits[2]!, commits[0]!],
      [commits[0]!, commits.at(-1)!],
      [commits[1]!, commits[0]!],
    ];
    for (const [from, to] of pairs) {
      const ours = (await callGit(sandbox, "diff", { from, to })).data as { files: Array<{ path: string; status: string }> };
      const theirs = (await sandbox.git(["diff", "--name-status", "--no-renames", from, to])).trim().split("\n").filter(Boolean);
      const letter = { added: "A", deleted: "D", modified: "M" } as const;
      expect(ours.files.map((file) => `${letter[file.status as keyof typeof letter]}\t${file.path}`)).toEqual(theirs);
    }
  });
});
