import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withIndexLock } from "../../../tools/git/lock.js";
import { callGit, callGitFailing, fsckClean, gitPorcelain, makeSandbox, repositoryState, type Sandbox } from "./support.js";

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
  await sandbox.commit("base", { "tracked.txt": "v1\n" });
});
afterEach(async () => {
  await sandbox.cleanup();
});

const lockFile = () => path.join(sandbox.repo, ".git", "index.lock");

/** Starts `git commit -a` whose editor waits `seconds`: git holds index.lock the whole time. */
async function startSlowGitCommit(seconds: number) {
  const editor = path.join(sandbox.base, "slow-editor.sh");
  await fs.writeFile(editor, `#!/bin/sh\nsleep ${seconds}\necho "committed by git" > "$1"\n`, { mode: 0o755 });
  await sandbox.write("tracked.txt", "v2 by git\n");
  const child = sandbox.spawnGit(["commit", "-a"], { GIT_EDITOR: editor });
  const exited = new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? -1)));
  for (let attempt = 0; attempt < 400; attempt++) {
    if (
      await fs.access(lockFile()).then(
        () => true,
        () => false,
      )
    )
      return { child, exited };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("git never took index.lock");
}

describe("clio and git share the index through git's index.lock", () => {
  it("a clio write waits while a git process holds the lock, then both changes land intact", async () => {
    const { exited } = await startSlowGitCommit(1);
    await sandbox.write("new.txt", "added by clio\n");
    let gitDoneFirst = false;
    exited.then(() => (gitDoneFirst = true));
    await callGit(sandbox, "add", { files: "new.txt" }, { config: { GIT: { lockTimeoutMs: 10_000 } } });
    expect(gitDoneFirst).toBe(true);
    expect(await exited).toBe(0);
    expect((await sandbox.git(["log", "-1", "--format=%s"])).trim()).toBe("committed by git");
    expect(await gitPorcelain(sandbox)).toEqual(["A  new.txt"]);
    expect(await fsckClean(sandbox)).toBe("");
    await expect(fs.access(lockFile())).rejects.toThrow();
  });

  it("refuses with `locked` after a bounded wait, changing nothing", async () => {
    const { child, exited } = await startSlowGitCommit(2);
    try {
      await sandbox.write("new.txt", "added by clio\n");
      const before = await sandbox.git(["ls-files", "-s"]);
      const error = await callGitFailing(sandbox, "add", { files: "new.txt" }, { config: { GIT: { lockTimeoutMs: 200 } } });
      expect(error.code).toBe("locked");
      expect(error.message).toContain("index.lock");
      expect(error.hint).toContain("stale");
      expect(await sandbox.git(["ls-files", "-s"])).toBe(before);
    } finally {
      child.kill();
      await exited;
    }
  });

  it("while clio holds the lock, a git process refuses instead of writing the index", async () => {
    const before = await repositoryState(sandbox);
    await sandbox.write("other.txt", "x\n");
    const failure = await withIndexLock(path.join(sandbox.repo, ".git"), () =>
      sandbox.git(["add", "other.txt"]).then(
        () => "git wrote the index",
        (error: Error) => error.message,
      ),
    );
    expect(failure).toContain("index.lock");
    expect(await sandbox.git(["ls-files"])).toBe("tracked.txt\n");
    await fs.rm(path.join(sandbox.repo, "other.txt"));
    expect(await repositoryState(sandbox)).toBe(before);
  });

  it("clio's own index writes are git-readable and leave no lock behind", async () => {
    await sandbox.write("a.txt", "a\n");
    await callGit(sandbox, "add", { files: "a.txt" });
    await callGit(sandbox, "reset", { mode: "mixed" });
    expect(await gitPorcelain(sandbox)).toEqual(["?? a.txt"]);
    expect(await sandbox.git(["ls-files", "--debug"])).toContain("tracked.txt");
    await expect(fs.access(lockFile())).rejects.toThrow();
  });
});
