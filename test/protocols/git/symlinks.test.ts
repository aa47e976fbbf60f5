import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callGit, callGitFailing, fsckClean, gitPorcelain, makeSandbox, repositoryState, type Sandbox } from "./support.js";

let sandbox: Sandbox;
let outside: string;
beforeEach(async () => {
  sandbox = await makeSandbox();
  outside = path.join(sandbox.base, "outside");
  await fs.mkdir(outside);
});
afterEach(async () => {
  await sandbox.cleanup();
});

/** Replaces the worktree folder `folder` with a symlink to the folder outside the workspace. */
async function linkOutside(folder: string): Promise<void> {
  await fs.rm(path.join(sandbox.repo, folder), { recursive: true, force: true });
  await fs.symlink(outside, path.join(sandbox.repo, folder));
}

describe("GIT never reads, writes or deletes through a symlinked folder (git treats what lies beneath it as absent)", () => {
  it("status shows a tracked file beneath a symlinked folder as deleted, as git does", async () => {
    await sandbox.commit("base", { "lib/x.js": "payload\n" });
    await linkOutside("lib");
    await fs.writeFile(path.join(outside, "x.js"), "payload\n");
    const { output } = await callGit(sandbox, "status");
    expect(await gitPorcelain(sandbox)).toEqual([" D lib/x.js", "?? lib"]);
    expect(output).toContain(" D lib/x.js\n?? lib\n");
  });

  it("checkout refuses a branch that would write beneath an untracked symlink, writing nothing outside", async () => {
    await sandbox.commit("base", { README: "r\n" });
    await sandbox.git(["checkout", "-q", "-b", "feature"]);
    await sandbox.commit("lib", { "lib/x.js": "payload\n" });
    await sandbox.git(["checkout", "-q", "main"]);
    await linkOutside("lib");
    const before = await repositoryState(sandbox);
    const error = await callGitFailing(sandbox, "checkout", { branch: "feature" });
    expect(error.code).toBe("uncommitted_changes");
    expect(error.message).toContain("lib/x.js");
    expect(await repositoryState(sandbox)).toBe(before);
    expect(await fs.readdir(outside)).toEqual([]);
  });

  it("checkout does not delete a file outside the workspace through a symlinked folder", async () => {
    await sandbox.commit("base", { README: "r\n" });
    await sandbox.git(["checkout", "-q", "-b", "feature"]);
    await sandbox.commit("lib", { "lib/x.js": "payload\n" });
    await linkOutside("lib");
    await fs.writeFile(path.join(outside, "x.js"), "payload\n");
    await callGit(sandbox, "checkout", { branch: "main" }).catch(() => undefined);
    expect(await fs.readFile(path.join(outside, "x.js"), "utf8")).toBe("payload\n");
  });

  it("reset hard replaces the symlink with a real folder, like git, and writes nothing outside", async () => {
    await sandbox.commit("base", { "lib/x.js": "payload\n" });
    await linkOutside("lib");
    await callGit(sandbox, "reset", { mode: "hard" });
    expect(await fs.readdir(outside)).toEqual([]);
    expect((await fs.lstat(path.join(sandbox.repo, "lib"))).isDirectory()).toBe(true);
    expect(await sandbox.read("lib/x.js")).toBe("payload\n");
    expect(await gitPorcelain(sandbox)).toEqual([]);
    expect(await fsckClean(sandbox)).toBe("");
  });

  it("restoring a file beneath a symlinked folder writes it inside the workspace", async () => {
    await sandbox.commit("base", { "lib/x.js": "payload\n" });
    await linkOutside("lib");
    await callGit(sandbox, "checkout", { files: "lib/x.js", ref: "HEAD" }).catch(() => undefined);
    expect(await fs.readdir(outside)).toEqual([]);
  });
});
