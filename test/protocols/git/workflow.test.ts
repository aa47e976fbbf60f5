import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callGit, callGitFailing, fsckClean, gitPorcelain, makeSandbox, type Sandbox } from "./support.js";

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
  await sandbox.write("README.md", "# project\n");
  await sandbox.write("src/main.ts", "export const answer = 42;\n");
  await sandbox.commit("base");
});
afterEach(async () => {
  await sandbox.cleanup();
});

const head = () => sandbox.git(["rev-parse", "HEAD"]).then((out) => out.trim());

describe("GIT.add and GIT.commit, checked with git", () => {
  it("stages new, modified and deleted files under a folder, and git's index agrees", async () => {
    await sandbox.write("src/main.ts", "export const answer = 43;\n");
    await sandbox.write("src/new file.ts", "new\n");
    await sandbox.write("other.txt", "not staged\n");
    await fs.rm(path.join(sandbox.repo, "README.md"));
    const result = await callGit(sandbox, "add", { files: "src\nREADME.md" });
    expect(result.permission).toBe("write");
    expect(await gitPorcelain(sandbox)).toEqual(["D  README.md", "M  src/main.ts", "A  src/new file.ts", "?? other.txt"]);
    expect(result.data).toMatchObject({ staged: expect.arrayContaining([{ path: "README.md", change: "deleted" }]) });
  });

  it("accepts files as a JSON list, and all=true stages everything like git add -A", async () => {
    await sandbox.write("a b.txt", "a\n");
    await sandbox.write("c.txt", "c\n");
    await callGit(sandbox, "add", { files: '["a b.txt"]' });
    expect(await gitPorcelain(sandbox)).toEqual(["A  a b.txt", "?? c.txt"]);
    await callGit(sandbox, "add", { all: "true" });
    expect(await gitPorcelain(sandbox)).toEqual(["A  a b.txt", "A  c.txt"]);
  });

  it("stages one file inside an untracked folder without the rest of it", async () => {
    await sandbox.write("docs/one.md", "1\n");
    await sandbox.write("docs/two.md", "2\n");
    await callGit(sandbox, "add", { files: "docs/one.md" });
    expect(await gitPorcelain(sandbox)).toEqual(["A  docs/one.md", "?? docs/two.md"]);
  });

  it("commits with the configured author; git log, git status and git fsck agree", async () => {
    await sandbox.write("src/main.ts", "export const answer = 44;\n");
    await sandbox.write("notes.txt", "notes\n");
    const result = await callGit(
      sandbox,
      "commit",
      { message: "Change the answer\n\nBecause.", files: "src/main.ts\nnotes.txt" },
      {
        config: { GIT: { author: { name: "Clio Bot", email: "clio@example.com" } } },
      },
    );
    expect(result.described).toBe("Committing 2 files: Change the answer");
    const oid = await head();
    expect(result.output.split("\n")[0]).toBe(`[main ${oid.slice(0, 7)}] Change the answer`);
    expect(await sandbox.git(["log", "-1", "--format=%an <%ae>|%cn|%s|%b"])).toBe("Clio Bot <clio@example.com>|Clio Bot|Change the answer|Because.\n\n");
    expect(await sandbox.git(["show", "--name-status", "--format=", "HEAD"])).toBe("A\tnotes.txt\nM\tsrc/main.ts\n");
    expect(await gitPorcelain(sandbox)).toEqual([]);
    expect(await fsckClean(sandbox)).toBe("");
  });

  it("commits files named -rf, with spaces and with unicode, and git agrees", async () => {
    for (const name of ["-rf", "with space.txt", "ünïcødé/naïve.txt"]) await sandbox.write(name, `${name}\n`);
    await callGit(sandbox, "commit", { message: "odd names", files: '["-rf", "with space.txt", "ünïcødé"]' });
    expect(await sandbox.git(["-c", "core.quotePath=false", "ls-files"])).toBe("-rf\nREADME.md\nsrc/main.ts\nwith space.txt\nünïcødé/naïve.txt\n");
    expect(await gitPorcelain(sandbox)).toEqual([]);
    expect(await fsckClean(sandbox)).toBe("");
  });

  it("falls back to the repository's user.name/user.email", async () => {
    await sandbox.write("x.txt", "x\n");
    await callGit(sandbox, "commit", { message: "x", all: "true" });
    expect(await sandbox.git(["log", "-1", "--format=%an <%ae>"])).toBe("Repo User <repo@example.com>\n");
  });

  it("GIT.log lists what git log lists, limited by count and path", async () => {
    for (const number of [1, 2, 3]) {
      await sandbox.write(`file${number}.txt`, `${number}\n`);
      await callGit(sandbox, "commit", { message: `commit ${number}`, all: "true" });
    }
    const log = await callGit(sandbox, "log", { count: "2" });
    const oids = (log.data as { commits: Array<{ oid: string }> }).commits.map((commit) => commit.oid);
    expect(oids).toEqual((await sandbox.git(["log", "-2", "--format=%H"])).trim().split("\n"));
    const byPath = await callGit(sandbox, "log", { path: "file2.txt" });
    expect((byPath.data as { commits: Array<{ message: string }> }).commits.map((commit) => commit.message)).toEqual(["commit 2"]);
    expect(log.permission).toBe("read");
  });
});

describe("GIT.branch, GIT.checkout, GIT.merge, GIT.reset, checked with git", () => {
  it("lists, creates and deletes branches; listing is read, creating is write", async () => {
    const created = await callGit(sandbox, "branch", { name: "feature" });
    expect(created.permission).toBe("write");
    expect((await sandbox.git(["branch", "--format=%(refname:short)"])).trim().split("\n")).toEqual(["feature", "main"]);
    const listed = await callGit(sandbox, "branch");
    expect(listed.permission).toBe("read");
    expect(listed.output).toMatch(/^ {2}feature [0-9a-f]{7} base\n\* main [0-9a-f]{7} base$/);
    await callGit(sandbox, "branch", { name: "feature", delete: "true" });
    expect((await sandbox.git(["branch", "--format=%(refname:short)"])).trim()).toBe("main");
  });

  it("checks out a new branch, carries unrelated local changes, and switches back", async () => {
    await callGit(sandbox, "checkout", { branch: "feature", create: "true" });
    expect((await sandbox.git(["symbolic-ref", "--short", "HEAD"])).trim()).toBe("feature");
    await sandbox.write("feature.txt", "feature\n");
    await callGit(sandbox, "commit", { message: "feature work", all: "true" });
    await sandbox.write("README.md", "# local edit\n");
    const back = await callGit(sandbox, "checkout", { branch: "main" });
    expect(back.output).toBe("Switched to branch main. 1 file changed in the worktree.");
    await expect(fs.access(path.join(sandbox.repo, "feature.txt"))).rejects.toThrow();
    expect(await gitPorcelain(sandbox)).toEqual([" M README.md"]);
    expect(await sandbox.read("README.md")).toBe("# local edit\n");
    expect(await fsckClean(sandbox)).toBe("");
  });

  it("fast-forwards, and the worktree and git agree", async () => {
    await sandbox.git(["checkout", "-q", "-b", "feature"]);
    await sandbox.commit("feature", { "src/feature.ts": "feature\n" });
    await sandbox.git(["checkout", "-q", "main"]);
    const result = await callGit(sandbox, "merge", { branch: "feature" });
    expect(result.output).toMatch(/^Fast-forwarded main to [0-9a-f]{7} \(feature\)\.\n1 file changed: src\/feature.ts$/);
    expect(await head()).toBe((await sandbox.git(["rev-parse", "feature"])).trim());
    expect(await sandbox.read("src/feature.ts")).toBe("feature\n");
    expect(await gitPorcelain(sandbox)).toEqual([]);
  });

  it("makes a clean three-way merge commit with both parents", async () => {
    await sandbox.git(["checkout", "-q", "-b", "feature"]);
    await sandbox.commit("feature", { "src/feature.ts": "feature\n" });
    await sandbox.git(["checkout", "-q", "main"]);
    await sandbox.write("README.md", "# project, on main\n");
    await sandbox.git(["commit", "-q", "-am", "main work"]);
    const result = await callGit(sandbox, "merge", { branch: "feature" });
    expect(result.output).toMatch(/^Merged feature into main: merge commit [0-9a-f]{7}\./);
    expect((await sandbox.git(["log", "-1", "--format=%P"])).trim().split(" ")).toHaveLength(2);
    expect(await sandbox.read("src/feature.ts")).toBe("feature\n");
    expect(await gitPorcelain(sandbox)).toEqual([]);
    expect(await fsckClean(sandbox)).toBe("");
  });

  it("resets soft, mixed and hard like git", async () => {
    const base = await head();
    await sandbox.write("src/main.ts", "export const answer = 1;\n");
    await sandbox.git(["commit", "-q", "-am", "second"]);
    await callGit(sandbox, "reset", { mode: "soft", ref: "HEAD~1" });
    expect(await head()).toBe(base);
    expect(await gitPorcelain(sandbox)).toEqual(["M  src/main.ts"]);
    const mixed = await callGit(sandbox, "reset", {});
    expect(mixed.output).toContain("Unstaged: src/main.ts");
    expect(await gitPorcelain(sandbox)).toEqual([" M src/main.ts"]);
    await sandbox.write("untracked.txt", "kept\n");
    const hard = await callGit(sandbox, "reset", { mode: "hard" });
    expect(hard.described).toBe("Resetting hard to HEAD: discards every uncommitted change to tracked files");
    expect(hard.output).toContain("Discarded uncommitted changes in: src/main.ts");
    expect(await gitPorcelain(sandbox)).toEqual(["?? untracked.txt"]);
    expect(await sandbox.read("src/main.ts")).toBe("export const answer = 42;\n");
    expect(await fsckClean(sandbox)).toBe("");
  });

  it("unstages chosen files with reset files=, and restores a file's content with checkout files=", async () => {
    await sandbox.write("README.md", "# staged\n");
    await sandbox.write("src/main.ts", "export const answer = 0;\n");
    await sandbox.git(["add", "-A"]);
    const unstaged = await callGit(sandbox, "reset", { files: "README.md" });
    expect(unstaged.described).toBe("Unstaging README.md");
    expect(await gitPorcelain(sandbox)).toEqual([" M README.md", "M  src/main.ts"]);
    const restored = await callGit(sandbox, "checkout", { files: "README.md" });
    expect(restored.described).toBe("Restoring README.md from the index: discards their uncommitted changes");
    expect(await sandbox.read("README.md")).toBe("# project\n");
    await callGit(sandbox, "checkout", { files: "src", ref: "HEAD" });
    expect(await sandbox.read("src/main.ts")).toBe("export const answer = 42;\n");
    expect(await gitPorcelain(sandbox)).toEqual([]);
  });

  it("works on a packed repository (after git gc)", async () => {
    await sandbox.write("src/main.ts", "export const answer = 7;\n");
    await sandbox.git(["commit", "-q", "-am", "second"]);
    await sandbox.git(["gc", "-q", "--aggressive"]);
    expect((await callGit(sandbox, "diff", { from: "HEAD~1", to: "HEAD" })).output).toBe(await sandbox.git(["diff", "HEAD~1", "HEAD"]));
    await callGit(sandbox, "checkout", { branch: "old", create: "true", ref: "HEAD~1" });
    expect(await sandbox.read("src/main.ts")).toBe("export const answer = 42;\n");
    await callGit(sandbox, "checkout", { branch: "main" });
    await callGit(sandbox, "merge", { branch: "old" });
    expect(await gitPorcelain(sandbox)).toEqual([]);
    expect(await fsckClean(sandbox)).toBe("");
  });

  it("initialises a repository that git recognises", async () => {
    const fresh = await makeSandbox({ init: false });
    try {
      const result = await callGit(fresh, "init");
      expect(result.data).toEqual({ created: true, branch: "main" });
      expect((await fresh.git(["symbolic-ref", "HEAD"])).trim()).toBe("refs/heads/main");
      expect((await callGit(fresh, "init")).data).toEqual({ created: false });
    } finally {
      await fresh.cleanup();
    }
  });
});

describe("GIT.add and an embedded repository (a folder with its own .git)", () => {
  it("refuses to copy its files into this repository, naming it, and stages nothing", async () => {
    await sandbox.write("vendor/lib/a.txt", "a\n");
    await sandbox.git(["init", "-q"], path.join(sandbox.repo, "vendor/lib"));
    await sandbox.write("other.txt", "o\n");
    const before = await sandbox.git(["ls-files", "-s"]);
    for (const raw of [{ all: "true" }, { files: "vendor" }, { files: "vendor/lib" }] as Record<string, string>[]) {
      const error = await callGitFailing(sandbox, "add", raw);
      expect(error.code).toBe("invalid_argument");
      expect(error.message).toContain("vendor/lib is a separate git repository");
      expect(error.hint).toContain(".gitignore");
      expect(await sandbox.git(["ls-files", "-s"])).toBe(before);
    }
    await callGit(sandbox, "add", { files: "other.txt" });
    await sandbox.write(".gitignore", "vendor/lib/\n");
    await callGit(sandbox, "add", { all: "true" });
    expect(await sandbox.git(["ls-files"])).not.toContain("vendor");
  });
});
