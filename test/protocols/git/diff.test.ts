import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callGit, makeSandbox, type Sandbox } from "./support.js";

let sandbox: Sandbox;
const numbered = (count: number, change: (line: number) => string | undefined = () => undefined) =>
  `${Array.from({ length: count }, (_unused, index) => change(index + 1) ?? `    line ${index + 1}`).join("\n")}\n`;

beforeEach(async () => {
  sandbox = await makeSandbox();
  await sandbox.commit("base", { "long.txt": `function top() {\n${numbered(40)}`, "gone.txt": "going away\n", "image.bin": Buffer.from([0, 1, 2, 3]) });
});
afterEach(async () => {
  await sandbox.cleanup();
});

const gitDiff = (...args: string[]) => sandbox.git(["diff", "--no-color", "--no-ext-diff", ...args]);

describe("GIT.diff prints what git diff prints", () => {
  it("for unstaged changes: two hunks with a heading, a deletion, a binary change", async () => {
    await sandbox.write("long.txt", `function top() {\n${numbered(40, (line) => (line === 5 ? "    five!" : line === 30 ? "    thirty!" : undefined))}`);
    await fs.rm(path.join(sandbox.repo, "gone.txt"));
    await sandbox.write("image.bin", Buffer.from([0, 9, 9, 9]));
    const result = await callGit(sandbox, "diff");
    expect(result.output).toBe(await gitDiff());
    expect(result.data).toEqual({
      files: [
        { path: "gone.txt", status: "deleted", binary: false },
        { path: "image.bin", status: "modified", binary: true },
        { path: "long.txt", status: "modified", binary: false },
      ],
    });
  });

  it("for staged changes, a new file and files= limits", async () => {
    await sandbox.write("new.txt", "one\ntwo\n");
    await sandbox.write("long.txt", `function top() {\n${numbered(41)}`);
    await sandbox.git(["add", "-A"]);
    await sandbox.write("long.txt", "unstaged edit\n");
    expect((await callGit(sandbox, "diff", { staged: "true" })).output).toBe(await gitDiff("--cached"));
    expect((await callGit(sandbox, "diff", { staged: "true", files: "new.txt" })).output).toBe(await gitDiff("--cached", "--", "new.txt"));
    expect((await callGit(sandbox, "diff", { path: "long.txt" })).output).toBe(await gitDiff("--", "long.txt"));
  });

  it("between two commits, and from a commit to the worktree; no changes says so", async () => {
    await sandbox.write("long.txt", "short now\n");
    await sandbox.git(["commit", "-q", "-am", "shorten"]);
    expect((await callGit(sandbox, "diff", { from: "HEAD~1", to: "HEAD" })).output).toBe(await gitDiff("HEAD~1", "HEAD"));
    await sandbox.write("gone.txt", "edited\n");
    expect((await callGit(sandbox, "diff", { from: "HEAD~1" })).output).toBe(await gitDiff("HEAD~1"));
    await sandbox.git(["checkout", "-q", "--", "gone.txt"]);
    const none = await callGit(sandbox, "diff");
    expect(none.output).toBe("No differences.");
    expect(none.permission).toBe("read");
  });
});
