/** Files a shell command changes, creates or deletes are part of the turn's checkpoint: /undo takes them back. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { Checkpoints } from "../../src/agent/checkpoints.js";
import { MAX_FILE_BYTES, snapshotChanges, WorkspaceSnapshots } from "../../src/agent/workspace-snapshot.js";
import { scriptSubmissions } from "../../src/replay/replay.js";
import { createRuntime, type Runtime } from "../../src/runtime.js";
import { temporaryFolder } from "../support/workspace.js";

let workspace: Awaited<ReturnType<typeof temporaryFolder>>;
let sessions: Awaited<ReturnType<typeof temporaryFolder>>;
let runtime: Runtime;
let checkpoints: Checkpoints;

beforeEach(async () => {
  workspace = await temporaryFolder();
  sessions = await temporaryFolder();
  runtime = await createRuntime({
    workspace: workspace.path,
    permissionMode: "yolo",
    protocolConfig: { EXEC: { sandbox: false } },
    onEvent: (event) => checkpoints?.observe(event),
    watchRun: (run) => checkpoints.watchRun(run.permissionClass),
  });
  checkpoints = await Checkpoints.open(path.join(sessions.path, "20261126-1300-abcdef.jsonl"), runtime.environment.workspace);
});
afterEach(async () => {
  await runtime.manager.dispose();
  await workspace.remove();
  await sessions.remove();
});

const file = (name: string) => path.join(workspace.path, name);
async function turn(label: string, commands: string): Promise<void> {
  checkpoints.begin(label);
  const results = await runtime.manager.runAll(scriptSubmissions(commands).submissions);
  expect(results.map((result) => result.error?.message ?? "ok")).toEqual(results.map(() => "ok"));
  await checkpoints.flush();
}

describe("shell commands in checkpoints", () => {
  it("undo restores a file a command changed, removes one it created and brings back one it deleted", async () => {
    await writeFile(file("a.txt"), "original\n");
    await writeFile(file("gone.txt"), "keep me\n");
    await mkdir(file("src"));
    await writeFile(file("src/deep.txt"), "deep\n");
    await turn("shell", '[EXEC:action=run:command="echo changed > a.txt && echo new > n.txt && rm gone.txt && echo deeper >> src/deep.txt"]');
    expect(checkpoints.all.at(-1)!.files.map((entry) => entry.path)).toEqual(["a.txt", "gone.txt", "n.txt", "src/deep.txt"]);
    const report = await checkpoints.undo();
    expect(report.restored.sort()).toEqual(["a.txt", "gone.txt", "n.txt", "src/deep.txt"]);
    expect(await readFile(file("a.txt"), "utf8")).toBe("original\n");
    expect(await readFile(file("gone.txt"), "utf8")).toBe("keep me\n");
    expect(await readFile(file("src/deep.txt"), "utf8")).toBe("deep\n");
    expect(existsSync(file("n.txt"))).toBe(false);
  });

  it("a FILE_OP write and then a command on the same file undo to the text before both", async () => {
    await writeFile(file("a.txt"), "first\n");
    await turn("both", '[FILE_OP:action=write:path="a.txt":content="second\\n"]\n[EXEC:action=run:command="echo third >> a.txt"]');
    expect(await readFile(file("a.txt"), "utf8")).toBe("second\nthird\n");
    await checkpoints.undo();
    expect(await readFile(file("a.txt"), "utf8")).toBe("first\n");
  });

  it("leaves out folders .gitignore ignores, and names a file too large to keep instead of restoring it", async () => {
    await writeFile(file(".gitignore"), "build/\n");
    await mkdir(file("build"));
    await writeFile(file("big.txt"), "x".repeat(MAX_FILE_BYTES + 1));
    await turn("build", '[EXEC:action=run:command="echo out > build/out.txt && echo y >> big.txt && echo z > small.txt"]');
    const files = checkpoints.all.at(-1)!.files;
    expect(files.map((entry) => entry.path)).toEqual(["big.txt", "small.txt"]);
    const report = await checkpoints.undo();
    expect(report.restored).toEqual(["small.txt"]);
    expect(report.skipped).toEqual([{ path: "big.txt", reason: "its content was not kept (over 1 MB)" }]);
    expect(existsSync(file("build/out.txt"))).toBe(true);
  });

  it("a command that changes nothing leaves nothing to undo; reading commands are not watched", async () => {
    await writeFile(file("a.txt"), "same\n");
    await turn("look", '[EXEC:action=run:command="cat a.txt"]\n[FILE_OP:action=read:path="a.txt"]');
    expect(checkpoints.all.some((checkpoint) => checkpoint.files.length)).toBe(false);
    expect((await checkpoints.undo()).checkpoints).toBe(0);
  });

  it("a walk cut at its limit watches only what it saw: a file past the cut that goes away is not taken for a deletion", async () => {
    for (let index = 0; index < 10; index++) await writeFile(file(`f${index}.txt`), `${index}\n`);
    const snapshots = new WorkspaceSnapshots(workspace.path, [], 5);
    const before = await snapshots.take();
    expect(before.incomplete).toBe(true);
    expect(before.files.size).toBeLessThan(5);
    const seen = [...before.files.keys()][0]!;
    const unseen = Array.from({ length: 10 }, (_, index) => `f${index}.txt`).find((name) => !before.files.has(name))!;
    await writeFile(file(seen), "changed\n");
    await rm(file(unseen));
    const after = await snapshots.take();
    expect(snapshotChanges(before, after)).toEqual([{ path: seen, before: `${seen.slice(1, -4)}\n`, after: "changed\n" }]);
  });
});
