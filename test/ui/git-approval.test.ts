/**
 * GIT actions that write the worktree show, before the question, a diff of exactly what they
 * will change — worked out without changing anything — and what they change is kept for undo.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Chalk } from "chalk";
import { Checkpoints } from "../../src/agent/checkpoints.js";
import type { PermissionRequest } from "../../src/manager/permissions.js";
import { scriptSubmissions } from "../../src/replay/replay.js";
import { createRuntime } from "../../src/runtime.js";
import { permissionPreview } from "../../src/ui/prompt.js";
import { temporaryFolder } from "../support/workspace.js";

const plain = new Chalk({ level: 0 });
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let sessions: Awaited<ReturnType<typeof temporaryFolder>>;

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" };
const git = (...args: string[]) => execFileSync("git", args, { cwd: folder.path, env: gitEnv, encoding: "utf8" });
const read = (name: string) => readFile(path.join(folder.path, name), "utf8");
const write = (name: string, text: string) => writeFile(path.join(folder.path, name), text);

/** main: a.txt "one"; feature: a.txt "ONE" and a new b.txt; main then adds c.txt; main is checked out. */
beforeEach(async () => {
  folder = await temporaryFolder();
  sessions = await temporaryFolder();
  git("init", "-q", "-b", "main");
  await write("a.txt", "one\ntwo\n");
  git("add", ".");
  git("commit", "-qm", "first");
  git("checkout", "-qb", "feature");
  await write("a.txt", "ONE\ntwo\n");
  await write("b.txt", "bee\n");
  git("add", ".");
  git("commit", "-qm", "feature work");
  git("checkout", "-q", "main");
  await write("c.txt", "sea\n");
  git("add", ".");
  git("commit", "-qm", "main work");
});
afterEach(async () => {
  await folder.remove();
  await sessions.remove();
});

/** Runs `text` in ask mode, answering `answer` to every question; the questions, results and checkpoints. */
async function ask(text: string, answer: "yes" | "no" = "no") {
  const asked: PermissionRequest[] = [];
  let checkpoints: Checkpoints | undefined;
  const runtime = await createRuntime({
    workspace: folder.path,
    permissionMode: "ask",
    asker: async (request) => {
      asked.push(request);
      return answer;
    },
    protocolConfig: { GIT: { author: { name: "Clio", email: "clio@example.com" } } },
    onEvent: (event) => checkpoints?.observe(event),
  });
  checkpoints = await Checkpoints.open(path.join(sessions.path, "20261126-1200-abcdef.jsonl"), runtime.environment.workspace);
  checkpoints.begin("git");
  const results = await runtime.manager.runAll(scriptSubmissions(text).submissions);
  await checkpoints.flush();
  await runtime.manager.dispose();
  return { asked, results, checkpoints };
}

describe("the question before a GIT action that writes files", () => {
  it("checkout of a branch: the diff of every file it changes; refused, nothing moved", async () => {
    const head = git("rev-parse", "HEAD");
    const { asked, results } = await ask("[GIT:action=checkout:branch=feature]");
    expect(asked[0]!.changes).toEqual([
      { path: "a.txt", before: "one\ntwo\n", after: "ONE\ntwo\n" },
      { path: "b.txt", before: null, after: "bee\n" },
      { path: "c.txt", before: "sea\n", after: null },
    ]);
    const shown = permissionPreview(asked[0]!, plain).text;
    expect(shown).toMatch(/^ {2}-one$/m);
    expect(shown).toMatch(/^ {2}\+ONE$/m);
    expect(shown).toContain("b.txt (new file)");
    expect(shown).toContain("c.txt (deleted)");
    expect(results[0]!.ok).toBe(false);
    expect(git("rev-parse", "HEAD")).toBe(head);
    expect(git("symbolic-ref", "--short", "HEAD").trim()).toBe("main");
    expect(git("status", "--porcelain")).toBe("");
  });

  it("merge: the files the merged commit changes; refused, the branch, index and worktree are as they were, and git fsck is clean", async () => {
    const head = git("rev-parse", "HEAD");
    const { asked } = await ask("[GIT:action=merge:branch=feature]");
    expect(asked[0]!.changes).toEqual([
      { path: "a.txt", before: "one\ntwo\n", after: "ONE\ntwo\n" },
      { path: "b.txt", before: null, after: "bee\n" },
    ]);
    expect(git("rev-parse", "HEAD")).toBe(head);
    expect(git("status", "--porcelain")).toBe("");
    expect(git("fsck", "--no-dangling")).toBe("");
  });

  it("a hard reset shows the local changes it discards; checkout of files shows what they get back", async () => {
    await write("a.txt", "one\nmy own edit\n");
    const reset = await ask("[GIT:action=reset:mode=hard:ref=HEAD~1]");
    expect(reset.asked[0]!.changes).toEqual([
      { path: "a.txt", before: "one\nmy own edit\n", after: "one\ntwo\n" },
      { path: "c.txt", before: "sea\n", after: null },
    ]);
    const restore = await ask('[GIT:action=checkout:files="a.txt"]');
    expect(restore.asked[0]!.changes).toEqual([{ path: "a.txt", before: "one\nmy own edit\n", after: "one\ntwo\n" }]);
    expect(await read("a.txt")).toBe("one\nmy own edit\n");
    // A mixed reset leaves the files alone: nothing to show.
    const mixed = await ask("[GIT:action=reset:ref=HEAD~1]");
    expect(mixed.asked[0]!.changes).toEqual([]);
    expect(permissionPreview(mixed.asked[0]!, plain).text).not.toContain("@@");
  });

  it("a checkout that would overwrite local changes is refused with its reason, without a question", async () => {
    await write("a.txt", "one\nmine\n");
    const { asked, results } = await ask("[GIT:action=checkout:branch=feature]");
    expect(asked).toHaveLength(0);
    expect(results[0]!.error?.code).toBe("uncommitted_changes");
    expect(await read("a.txt")).toBe("one\nmine\n");
  });

  it("an approved checkout is kept for undo: /undo puts the files back as they were", async () => {
    const { results, checkpoints } = await ask("[GIT:action=checkout:branch=feature]", "yes");
    expect(results[0]!.ok).toBe(true);
    expect(await read("a.txt")).toBe("ONE\ntwo\n");
    const report = await checkpoints.undo();
    expect(report.restored.sort()).toEqual(["a.txt", "b.txt", "c.txt"]);
    expect(await read("a.txt")).toBe("one\ntwo\n");
    expect(await read("c.txt")).toBe("sea\n");
    expect(git("status", "--porcelain", "--untracked-files=no").trim()).not.toBe("");
  });
});
