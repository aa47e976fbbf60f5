/**
 * No GIT action a model runs writes clio's own folder, at any depth: checkout, merge and reset
 * refuse to change `.clio` files (nothing is written), and add never stages them.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLIO_GITIGNORE, makeFolder } from "../../../tools/clio-folder.js";
import { callGit, callGitFailing, gitPorcelain, makeSandbox, type Sandbox } from "./support.js";

const YOLO = JSON.stringify({ permissionMode: "yolo" });
let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = await makeSandbox();
  await sandbox.commit("base", { "README.md": "# project\n" });
});
afterEach(() => sandbox.cleanup());

/** A branch `evil` whose commit adds `file` (a clio config) next to an ordinary file; back on main after. */
async function branchCarrying(file: string): Promise<void> {
  await sandbox.git(["checkout", "-q", "-b", "evil"]);
  await sandbox.commit("evil", { [file]: YOLO, "ordinary.txt": "ordinary\n" });
  await sandbox.git(["checkout", "-q", "main"]);
}

const exists = (file: string) =>
  fs.access(path.join(sandbox.repo, file)).then(
    () => true,
    () => false,
  );

describe("GIT never writes .clio", () => {
  it.each([".clio/config.json", "pkg/.clio/config.json", "a/b/.CLIO/config.json"])("checkout of a branch carrying %s is refused, nothing written", async (file) => {
    await branchCarrying(file);
    const error = await callGitFailing(sandbox, "checkout", { branch: "evil" });
    expect(error.code).toBe("protected_path");
    expect(error.message).toContain(file);
    expect(await exists(file)).toBe(false);
    expect(await exists("ordinary.txt")).toBe(false);
    expect((await sandbox.git(["rev-parse", "--abbrev-ref", "HEAD"])).trim()).toBe("main");
  });

  it("merge of a branch carrying a nested .clio/config.json is refused, nothing written", async () => {
    await branchCarrying("pkg/.clio/config.json");
    const head = (await sandbox.git(["rev-parse", "HEAD"])).trim();
    const error = await callGitFailing(sandbox, "merge", { branch: "evil" });
    expect(error.code).toBe("protected_path");
    expect(await exists("pkg/.clio/config.json")).toBe(false);
    expect((await sandbox.git(["rev-parse", "HEAD"])).trim()).toBe(head);
  });

  it("reset --hard to a commit whose .clio differs is refused", async () => {
    await branchCarrying(".clio/config.json");
    const error = await callGitFailing(sandbox, "reset", { mode: "hard", ref: "evil" });
    expect(error.code).toBe("protected_path");
    expect(await exists(".clio/config.json")).toBe(false);
  });

  it("add all=true leaves every .clio folder out; naming one is refused", async () => {
    await sandbox.write(".clio/config.json", YOLO);
    await sandbox.write("pkg/.clio/config.json", YOLO);
    await sandbox.write("pkg/code.ts", "export {};\n");
    await sandbox.write("notes.txt", "notes\n");
    await callGit(sandbox, "add", { all: "true" });
    const staged = (await sandbox.git(["diff", "--cached", "--name-only"])).trim().split("\n");
    expect(staged.sort()).toEqual(["notes.txt", "pkg/code.ts"]);
    const error = await callGitFailing(sandbox, "add", { files: "pkg/.clio/config.json" });
    expect(error.code).toBe("protected_path");
  });
});

describe("the .clio folder clio creates", () => {
  it("holds a .gitignore, so real git sees none of it", async () => {
    await makeFolder(path.join(sandbox.repo, ".clio", "outputs"));
    await fs.writeFile(path.join(sandbox.repo, ".clio", "outputs", "cut.txt"), "kept\n");
    expect(await fs.readFile(path.join(sandbox.repo, ".clio", ".gitignore"), "utf8")).toBe(CLIO_GITIGNORE);
    expect(await gitPorcelain(sandbox)).toEqual([]);
  });

  it("leaves a .clio the person made alone", async () => {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), "clio-folder-"));
    try {
      await fs.mkdir(path.join(folder, ".clio"));
      await makeFolder(path.join(folder, ".clio", "index"));
      expect(await fs.readdir(path.join(folder, ".clio"))).toEqual(["index"]);
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
    }
  });
});
