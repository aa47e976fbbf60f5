import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callGit, makeSandbox, type Sandbox } from "./support.js";

let sandbox: Sandbox;
const NAMES = ["sp ace.txt", 'q"uote.txt', "tab\there.txt", "back\\slash.txt", "ünï.txt", "plain.txt"];
beforeEach(async () => {
  sandbox = await makeSandbox();
  await sandbox.commit("base", Object.fromEntries(NAMES.map((name) => [name, "one\n"])));
});
afterEach(async () => {
  await sandbox.cleanup();
});

describe("GIT.diff writes file names the way git does, so git apply reads them back", () => {
  it("quotes names with quotes, backslashes or control characters, and ends ---/+++ lines of names with spaces with a tab", async () => {
    for (const name of NAMES) await sandbox.write(name, "two\n");
    const expected = await sandbox.git(["-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff"]);
    const { output } = await callGit(sandbox, "diff");
    expect(output).toBe(expected);
    const patch = path.join(sandbox.base, "clio.patch");
    await fs.writeFile(patch, output);
    await sandbox.git(["apply", "-R", "--check", patch]);
  });

  it("GIT.status quotes the same names the way git status --porcelain does", async () => {
    for (const name of NAMES) await sandbox.write(name, "two\n");
    await sandbox.write("bell\x07.txt", "new\n");
    const expected = await sandbox.git(["-c", "core.quotePath=false", "status", "--porcelain"]);
    const { output } = await callGit(sandbox, "status");
    expect(output.split("\n").slice(1, -1).join("\n")).toBe(expected.trimEnd());
  });
});
