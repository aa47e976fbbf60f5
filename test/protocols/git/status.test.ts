import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callGit, gitPorcelain, makeSandbox, type Sandbox } from "./support.js";

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

interface Entry {
  path: string;
  index: string;
  worktree: string;
  from?: string;
}

/** clio's status entries in git's `XY path` / `XY old -> new` form. */
async function clioPorcelain(): Promise<string[]> {
  const result = await callGit(sandbox, "status");
  return (result.data as { entries: Entry[] }).entries.map((entry) =>
    entry.from ? `${entry.index}${entry.worktree} ${entry.from} -> ${entry.path}` : `${entry.index}${entry.worktree} ${entry.path}`,
  );
}

describe("GIT.status agrees with git status --porcelain", () => {
  it("on the whole matrix: new, modified, deleted, renamed, staged-then-modified, ignored, nested, spaces, unicode, -rf", async () => {
    await sandbox.write(".gitignore", "*.log\nbuild/\n!keep.log\n");
    await sandbox.write("modified.txt", "one\n");
    await sandbox.write("deleted.txt", "gone soon\n");
    await sandbox.write("staged-deleted.txt", "gone soon too\n");
    await sandbox.write("renamed-old.txt", "content that moves\n");
    await sandbox.write("staged-then-modified.txt", "v1\n");
    await sandbox.write("deep/er/nested/file.txt", "nested\n");
    await sandbox.write("with space.txt", "space\n");
    await sandbox.write("ünïcødé.txt", "unicode\n");
    await sandbox.write("-rf", "dash\n");
    await sandbox.write("same-size.txt", "aaaa\n");
    await sandbox.commit("base");

    await sandbox.write("modified.txt", "one\ntwo\n");
    await sandbox.write("same-size.txt", "bbbb\n");
    await fs.rm(path.join(sandbox.repo, "deleted.txt"));
    await sandbox.git(["rm", "-q", "staged-deleted.txt"]);
    await sandbox.git(["mv", "renamed-old.txt", "renamed-new.txt"]);
    await sandbox.write("staged-then-modified.txt", "v2\n");
    await sandbox.git(["add", "staged-then-modified.txt"]);
    await sandbox.write("staged-then-modified.txt", "v3\n");
    await sandbox.write("deep/er/nested/file.txt", "nested changed\n");
    await sandbox.write("deep/er/nested/new.txt", "new nested\n");
    await sandbox.write("untracked-folder/a/b.txt", "u\n");
    await sandbox.write("with space.txt", "space changed\n");
    await sandbox.write("new file ünï.txt", "new\n");
    await sandbox.write("-rf", "dash changed\n");
    await sandbox.write("debug.log", "ignored\n");
    await sandbox.write("keep.log", "re-included\n");
    await sandbox.write("build/out.js", "ignored folder\n");
    await sandbox.write("only-ignored/x.log", "folder with only ignored files\n");
    await sandbox.write("staged-new.txt", "staged\n");
    await sandbox.git(["add", "staged-new.txt"]);

    const expected = await gitPorcelain(sandbox);
    expect(expected).toContain("R  renamed-old.txt -> renamed-new.txt");
    expect(await clioPorcelain()).toEqual(expected);
  });

  it("on an index in version 4 (prefix-compressed paths)", async () => {
    for (const name of ["deep/one.txt", "deep/two.txt", "deeper/three.txt", "top.txt"]) await sandbox.write(name, `${name}\n`);
    await sandbox.commit("commit");
    await sandbox.git(["update-index", "--index-version", "4"]);
    await sandbox.write("deep/two.txt", "changed\n");
    await sandbox.write("deeper/new.txt", "new\n");
    expect(await clioPorcelain()).toEqual(await gitPorcelain(sandbox));
    expect(await gitPorcelain(sandbox)).toEqual([" M deep/two.txt", "?? deeper/new.txt"]);
  });

  it("limited to some paths with files=", async () => {
    await sandbox.write("a/one.txt", "1\n");
    await sandbox.write("b/two.txt", "2\n");
    await sandbox.commit("commit");
    await sandbox.write("a/one.txt", "changed\n");
    await sandbox.write("b/two.txt", "changed\n");
    await sandbox.write("a/new.txt", "new\n");
    const result = await callGit(sandbox, "status", { files: "a" });
    expect(result.described).toBe("Reading git status of a");
    expect(result.output).toBe("## main\n M a/one.txt\n?? a/new.txt\n0 staged, 1 unstaged, 1 untracked.");
  });

  it("on a repository without commits", async () => {
    await sandbox.write("a.txt", "a\n");
    await sandbox.write("b/c.txt", "c\n");
    await sandbox.git(["add", "a.txt"]);
    expect(await clioPorcelain()).toEqual(await gitPorcelain(sandbox));
  });

  it("on a clean tree after git's own commit (cache-tree present), and says it is clean", async () => {
    for (let number = 0; number < 30; number++) await sandbox.write(`dir${number % 5}/file${number}.txt`, `${number}\n`);
    await sandbox.commit("commit");
    await sandbox.git(["status"]); // lets git refresh its index and cache-tree
    const result = await callGit(sandbox, "status");
    expect((result.data as { entries: Entry[] }).entries).toEqual([]);
    expect(result.output).toBe("## main\nNothing to commit, working tree clean.");
    expect(result.permission).toBe("read");
  });

  it("on type changes, mode changes and a file replaced by a folder", async () => {
    await sandbox.write("script.sh", "#!/bin/sh\n");
    await sandbox.write("link-target.txt", "target\n");
    await sandbox.write("becomes-folder", "file\n");
    await sandbox.commit("commit");
    await fs.chmod(path.join(sandbox.repo, "script.sh"), 0o755);
    await fs.rm(path.join(sandbox.repo, "link-target.txt"));
    await fs.symlink("script.sh", path.join(sandbox.repo, "link-target.txt"));
    await fs.rm(path.join(sandbox.repo, "becomes-folder"));
    await sandbox.write("becomes-folder/inside.txt", "inside\n");
    expect(await clioPorcelain()).toEqual(await gitPorcelain(sandbox));
  });

  it("ignores the executable bit when core.fileMode is false, like git", async () => {
    await sandbox.commit("commit", { "run.sh": "#!/bin/sh\n" });
    await sandbox.git(["config", "core.fileMode", "false"]);
    await fs.chmod(path.join(sandbox.repo, "run.sh"), 0o755);
    expect(await gitPorcelain(sandbox)).toEqual([]);
    expect(await clioPorcelain()).toEqual([]);
  });

  it("on a nested repository and a sub-folder .gitignore that re-includes", async () => {
    await sandbox.write("sub/.gitignore", "!important.tmp\n");
    await sandbox.write(".gitignore", "*.tmp\n");
    await sandbox.write("sub/tracked.txt", "t\n");
    await sandbox.commit("commit");
    await sandbox.write("sub/important.tmp", "kept\n");
    await sandbox.write("sub/other.tmp", "ignored\n");
    await sandbox.git(["init", "-q"], await makeFolder("vendor/lib"));
    await sandbox.write("vendor/lib/x.txt", "x\n");
    expect(await clioPorcelain()).toEqual(await gitPorcelain(sandbox));
  });

  it("shows the branch, upstream and ahead/behind like git status -b", async () => {
    await sandbox.write("a.txt", "a\n");
    await sandbox.commit("one");
    await sandbox.git(["remote", "add", "origin", "http://127.0.0.1:9/none.git"]);
    await sandbox.git(["update-ref", "refs/remotes/origin/main", "HEAD"]);
    await sandbox.git(["config", "branch.main.remote", "origin"]);
    await sandbox.git(["config", "branch.main.merge", "refs/heads/main"]);
    await sandbox.write("a.txt", "b\n");
    await sandbox.commit("two");
    const header = (await sandbox.git(["status", "-b", "--porcelain"])).split("\n")[0];
    const result = await callGit(sandbox, "status");
    expect(result.output.split("\n")[0]).toBe(header);
    expect(result.data).toMatchObject({ branch: "main", upstream: "origin/main", ahead: 1, behind: 0 });
  });
});

describe("ahead/behind", () => {
  it("matches git rev-list --left-right --count on diverged history with merges made in the same second", async () => {
    await sandbox.write("a.txt", "a\n");
    await sandbox.commit("base");
    await sandbox.git(["remote", "add", "origin", "http://127.0.0.1:9/none.git"]);
    await sandbox.git(["checkout", "-q", "-b", "theirs"]);
    for (const number of [1, 2]) {
      await sandbox.write(`theirs${number}.txt`, "t\n");
      await sandbox.commit(`theirs ${number}`);
    }
    await sandbox.git(["update-ref", "refs/remotes/origin/main", "HEAD"]);
    await sandbox.git(["checkout", "-q", "main"]);
    await sandbox.git(["checkout", "-q", "-b", "side"]);
    await sandbox.write("side.txt", "s\n");
    await sandbox.commit("side");
    await sandbox.git(["checkout", "-q", "main"]);
    for (const number of [1, 2, 3]) {
      await sandbox.write(`ours${number}.txt`, "o\n");
      await sandbox.commit(`ours ${number}`);
    }
    await sandbox.git(["merge", "-q", "--no-edit", "side"]);
    await sandbox.git(["config", "branch.main.remote", "origin"]);
    await sandbox.git(["config", "branch.main.merge", "refs/heads/main"]);
    const [ahead, behind] = (await sandbox.git(["rev-list", "--left-right", "--count", "HEAD...origin/main"])).trim().split(/\s+/).map(Number);
    const result = await callGit(sandbox, "status");
    expect(result.data).toMatchObject({ ahead, behind });
    expect(result.output.split("\n")[0]).toBe((await sandbox.git(["status", "-b", "--porcelain"])).split("\n")[0]);
  });
});

async function makeFolder(relative: string): Promise<string> {
  const absolute = path.join(sandbox.repo, relative);
  await fs.mkdir(absolute, { recursive: true });
  return absolute;
}
