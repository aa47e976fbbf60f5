/** Undo checkpoints: kept per prompt beside the session, restored only where nobody changed the file since. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { Checkpoints } from "../../src/agent/checkpoints.js";
import { scriptSubmissions } from "../../src/replay/replay.js";
import { createRuntime, type Runtime } from "../../src/runtime.js";
import { temporaryFolder } from "../support/workspace.js";

let workspace: Awaited<ReturnType<typeof temporaryFolder>>;
let sessions: Awaited<ReturnType<typeof temporaryFolder>>;
let runtime: Runtime;
let checkpoints: Checkpoints;
let sessionFile: string;

beforeEach(async () => {
  workspace = await temporaryFolder();
  sessions = await temporaryFolder();
  sessionFile = path.join(sessions.path, "20261125-1200-abcdef.jsonl");
  runtime = await createRuntime({ workspace: workspace.path, permissionMode: "yolo", onEvent: (event) => checkpoints?.observe(event) });
  checkpoints = await Checkpoints.open(sessionFile, runtime.environment.workspace);
});
afterEach(async () => {
  await runtime.manager.dispose();
  await workspace.remove();
  await sessions.remove();
});

const file = (name: string) => path.join(workspace.path, name);
async function prompt(label: string, commands: string): Promise<void> {
  checkpoints.begin(label);
  const results = await runtime.manager.runAll(scriptSubmissions(commands).submissions);
  expect(results.every((result) => result.ok)).toBe(true);
  await checkpoints.flush();
}

describe("checkpoints", () => {
  it("go with their session when it is deleted", async () => {
    const { SessionStore } = await import("../../src/sessions/index.js");
    const store = new SessionStore(sessions.path);
    const session = await store.create({ workspace: workspace.path, provider: "test", model: "test" });
    const own = await Checkpoints.open(session.file, runtime.environment.workspace);
    checkpoints = own;
    await writeFile(file("g.txt"), "g\n");
    await prompt("one", '[FILE_OP:action=write:path="g.txt":content="g2"]');
    const folder = `${session.file.replace(/\.jsonl?$/, "")}.checkpoints`;
    expect(existsSync(folder)).toBe(true);
    await session.close();
    await store.delete(session.id);
    expect(existsSync(folder)).toBe(false);
  });

  it("undoes the last prompt's changes: an edited file goes back, a created one goes away", async () => {
    await writeFile(file("keep.txt"), "original\n");
    await prompt(
      "edit",
      '[FILE_OP:action=replace:path="keep.txt":old="original":new="edited"]\n[FILE_OP:action=write:path="new.txt":content="new"]\n[FILE_OP:action=replace:path="keep.txt":old="edited":new="edited twice"]',
    );
    expect(await readFile(file("keep.txt"), "utf8")).toBe("edited twice\n");
    const report = await checkpoints.undo();
    expect(report.restored.sort()).toEqual(["keep.txt", "new.txt"]);
    expect(await readFile(file("keep.txt"), "utf8")).toBe("original\n");
    expect(existsSync(file("new.txt"))).toBe(false);
    expect((await checkpoints.undo()).checkpoints).toBe(0);
  });

  it("rewinds several prompts, and brings back a deleted and a moved file", async () => {
    await writeFile(file("a.txt"), "a\n");
    await writeFile(file("gone.txt"), "precious\n");
    await prompt("first", '[FILE_OP:action=write:path="a.txt":content="a1\\n"]');
    await prompt("second", '[FILE_OP:action=delete:path="gone.txt"]\n[FILE_OP:action=move:path="a.txt":to="b.txt"]');
    expect((await checkpoints.undo(2)).checkpoints).toBe(2);
    expect(await readFile(file("a.txt"), "utf8")).toBe("a\n");
    expect(await readFile(file("gone.txt"), "utf8")).toBe("precious\n");
    expect(existsSync(file("b.txt"))).toBe(false);
  });

  it("leaves a file the person changed or deleted since, and says so", async () => {
    await writeFile(file("c.txt"), "c\n");
    await writeFile(file("d.txt"), "d\n");
    await prompt("change both", '[FILE_OP:action=write:path="c.txt":content="c by clio"]\n[FILE_OP:action=write:path="d.txt":content="d by clio"]');
    await writeFile(file("c.txt"), "c by the person");
    await rm(file("d.txt"));
    const report = await checkpoints.undo();
    expect(report.restored).toEqual([]);
    expect(report.skipped).toEqual([
      { path: "c.txt", reason: "was changed since clio changed it; left as it is" },
      { path: "d.txt", reason: "was deleted since clio changed it; left as it is" },
    ]);
    expect(await readFile(file("c.txt"), "utf8")).toBe("c by the person");
  });

  it("survives a resume: the checkpoints are read back from beside the session file", async () => {
    await writeFile(file("e.txt"), "e\n");
    await prompt("before resume", '[FILE_OP:action=write:path="e.txt":content="e2"]');
    const reopened = await Checkpoints.open(sessionFile, runtime.environment.workspace);
    expect(reopened.all.map((checkpoint) => checkpoint.label)).toEqual(["before resume"]);
    expect((await reopened.changes()).map((change) => change.path)).toEqual(["e.txt"]);
    expect((await reopened.undo()).restored).toEqual(["e.txt"]);
    expect(await readFile(file("e.txt"), "utf8")).toBe("e\n");
  });

  it("moves a corrupt index aside and names it; a damaged blob skips only its file", async () => {
    await writeFile(file("f.txt"), "f\n");
    await prompt("one", '[FILE_OP:action=write:path="f.txt":content="f2"]');
    const folder = sessionFile.replace(/\.jsonl$/, ".checkpoints");
    const index = JSON.parse(await readFile(path.join(folder, "index.json"), "utf8"));
    await rm(path.join(folder, "blobs", index.checkpoints[0].files[0].before));
    expect((await checkpoints.undo()).skipped).toEqual([{ path: "f.txt", reason: "its checkpoint is missing or damaged" }]);
    expect(await readFile(file("f.txt"), "utf8")).toBe("f2");

    await writeFile(path.join(folder, "index.json"), "{ not json");
    const broken = await Checkpoints.open(sessionFile, runtime.environment.workspace);
    expect(broken.problem).toContain("could not be read");
    expect(broken.all).toEqual([]);
    expect((await readdir(folder)).some((name) => name.startsWith("index.json.corrupt-"))).toBe(true);
  });
});
