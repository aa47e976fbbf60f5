/** `clio replay` end to end, through the real bundled CLI (dist/clio.cjs, built by `npm test`). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { SessionStore } from "../../src/sessions/index.js";
import { temporaryFolder } from "../support/workspace.js";
import { bundledCli, repositoryRoot, scriptsFixture, scriptsFolder, scriptsHome } from "./shipped-scripts.js";

const run = promisify(execFile);
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  if (!existsSync(bundledCli)) await run(process.execPath, [path.join(repositoryRoot, "scripts", "build.mjs")], { cwd: repositoryRoot });
  folder = await temporaryFolder("clio-replay-cli-");
  env = { ...(await scriptsHome(folder.path)), CLIO_SESSION_DIR: path.join(folder.path, "sessions") };
});
afterAll(async () => {
  await folder.remove();
});

async function clio(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bundledCli, ...args], { cwd: folder.path, env, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const fileOpScript = path.join(scriptsFolder, "file-op.md");
const fileOpExpectations = path.join(scriptsFolder, "file-op.expected.json");
const replayFileOp = (...more: string[]) => clio("replay", fileOpScript, "--fresh-copy", scriptsFixture, "--permission-mode", "yolo", ...more);

describe("clio replay --expect", () => {
  it("passes the shipped FILE_OP script against its recorded results", async () => {
    const result = await replayFileOp("--expect", fileOpExpectations);
    expect(result.stdout).toContain("All 17 result(s) match");
    expect(result.code).toBe(0);
  });

  it("fails with a readable diff when a recorded result differs", async () => {
    const expectations = JSON.parse(await readFile(fileOpExpectations, "utf8"));
    expectations.results[0].output[0] = "1│# Inventory of the warehouse";
    const changed = path.join(folder.path, "changed.expected.json");
    await writeFile(changed, JSON.stringify(expectations));
    const result = await replayFileOp("--expect", changed);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${fileOpScript}:10:1 FILE_OP.read (command 1) differs from ${changed}:`);
    expect(result.stdout).toContain("-1│# Inventory of the warehouse\n    +1│# Inventory");
  });

  it("writes the expectations with --update, and the next run matches them", async () => {
    const written = path.join(folder.path, "recorded", "file-op.expected.json");
    const update = await replayFileOp("--expect", written, "--update");
    expect(update.stdout).toContain(`Wrote 17 expected result(s) to ${written}.`);
    expect(JSON.parse(await readFile(written, "utf8"))).toMatchObject({ version: 1, script: "file-op.md" });
    expect((await replayFileOp("--expect", written)).code).toBe(0);
  });

  it("refuses an expectation file that is not JSON, naming it, before running anything", async () => {
    const broken = path.join(folder.path, "broken.expected.json");
    await writeFile(broken, '{ "version": 1, ');
    const result = await replayFileOp("--expect", broken);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${broken} is not valid JSON`);
    expect(result.stdout).toBe("");
  });

  it("says when the expectation file is missing or belongs to another script", async () => {
    const missing = await replayFileOp("--expect", path.join(folder.path, "none.json"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no such file (write it with --update)");
    const other = await replayFileOp("--expect", path.join(scriptsFolder, "web.expected.json"));
    expect(other.code).toBe(1);
    expect(other.stdout).toContain("was recorded for the script web.md, not file-op.md");
    expect(other.stdout).toContain("has no recorded result in");
  });
});

describe("clio replay --dry-run and bad scripts", () => {
  it("shows the plan and changes nothing", async () => {
    const workspace = path.join(folder.path, "dry");
    await mkdir(workspace);
    const script = path.join(folder.path, "dry.md");
    await writeFile(script, '[FILE_OP:action=write:path="made.txt":content="x"]\n[EXEC:action=run:command="touch ran.txt"]\n[FILE_OP:action=read:path="a" oops]\n');
    const result = await clio("replay", script, "--workspace", workspace, "--dry-run", "--permission-mode", "auto-edit");
    expect(result.stdout).toMatch(/1:1 +run +write +Writing made\.txt/);
    expect(result.stdout).toMatch(/2:1 +refuse +exec /);
    expect(result.stdout).toMatch(/3:\d+ +syntax/);
    expect(result.stdout).toContain("Dry run: nothing was executed.");
    expect(result.code).toBe(1);
    expect(existsSync(path.join(workspace, "made.txt"))).toBe(false);
    expect(existsSync(path.join(workspace, "ran.txt"))).toBe(false);
  });

  it("reports a syntax error with its line and column, and --stop-on-error runs nothing after it", async () => {
    const workspace = path.join(folder.path, "stop");
    await mkdir(workspace);
    const script = path.join(folder.path, "stop.md");
    await writeFile(
      script,
      '[FILE_OP:action=write:path="one.txt":content="1"]\nthen [FILE_OP:action=write:path="two.txt" content="2"]\n[FILE_OP:action=write:path="three.txt":content="3"]\n',
    );
    const result = await clio("replay", script, "--workspace", workspace, "--permission-mode", "yolo", "--stop-on-error");
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/2:42 ✗ FILE_OP syntax_error: \[FILE_OP: after the quoted value of path \(at 2:41\) the next parameter needs a `:` before it/);
    expect(result.stdout).toContain("1 succeeded, 1 failed, 1 not run");
    expect(existsSync(path.join(workspace, "one.txt"))).toBe(true);
    expect(existsSync(path.join(workspace, "three.txt"))).toBe(false);
  });
});

describe("clio replay --from-session", () => {
  const created = Date.UTC(2026, 10, 22, 2, 43, 10);
  /** The recorded read of the fixture's notes/todo.md, as a session keeps it. */
  const readTodo = {
    protocol: "FILE_OP",
    action: "read",
    args: { path: "notes/todo.md" },
    description: "Read notes/todo.md (4 lines)",
    ok: true,
    output: "1│# Todo\n2│\n3│- [ ] count items per warehouse\n4│- [ ] export the report as CSV",
    durationMs: 3,
    turn: 1,
  };

  async function recordSession(suffix: string, readmeOutput: string): Promise<string> {
    const store = new SessionStore(env.CLIO_SESSION_DIR!, { now: () => created, randomSuffix: () => suffix });
    const session = await store.create({ workspace: "/home/someone/inventory", provider: "test", model: "test-model" });
    await session.appendCommand(readTodo);
    await session.appendCommand({
      protocol: "FILE_OP",
      action: "read",
      args: { path: "README.md", limit: 1 },
      description: "Read README.md lines 1–1 of 4 lines",
      ok: true,
      output: readmeOutput,
      durationMs: 2,
      turn: 1,
    });
    await session.appendCommand({
      protocol: "FILE_OP",
      action: "read",
      args: { path: "/home/someone/inventory/../secret" },
      description: "Reading /home/someone/inventory/../secret",
      ok: false,
      output: "",
      error: { code: "outside_workspace", message: "/home/someone/inventory/../secret is outside the workspace /home/someone/inventory." },
      durationMs: 1,
      turn: 2,
    });
    await session.close();
    return session.id;
  }

  it("re-runs a session's commands and compares them with what it recorded", async () => {
    const readme = "1│# Inventory\n(Showing lines up to 1 of 4. Read on with offset=2 (and limit=N for a window).)";
    const id = await recordSession("a1a1a1", readme);
    const same = await clio("replay", "--from-session", id, "--fresh-copy", scriptsFixture, "--permission-mode", "yolo");
    expect(same.stdout).toContain(`match what session ${id} recorded`);
    expect(same.code).toBe(0);
  });

  it("shows what changed since the session was recorded", async () => {
    const id = await recordSession("b2b2b2", "1│# Inventory (old title)\n(Showing lines up to 1 of 4. Read on with offset=2 (and limit=N for a window).)");
    const changed = await clio("replay", "--from-session", id, "--fresh-copy", scriptsFixture, "--permission-mode", "yolo");
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain(`session ${id}:2:1 FILE_OP.read (command 2) differs`);
    expect(changed.stdout).toContain("-1│# Inventory (old title)");
  });

  it("leaves out the commands the session could not run (a syntax error), which it never kept the text of", async () => {
    const store = new SessionStore(env.CLIO_SESSION_DIR!, { now: () => created, randomSuffix: () => "c3c3c3" });
    const session = await store.create({ workspace: "/home/someone/inventory", provider: "test", model: "test-model" });
    const syntaxError = { code: "syntax_error", message: 'In [MEMORY: (started at 1:1), expected `:` or `]` after the value of key, found "!"' };
    await session.appendCommand({ protocol: "MEMORY", action: "", description: "MEMORY", ok: false, output: "", error: syntaxError, durationMs: 0, turn: 1 });
    await session.appendCommand(readTodo);
    await session.close();
    const replayed = await clio("replay", "--from-session", session.id, "--fresh-copy", scriptsFixture, "--permission-mode", "yolo");
    expect(replayed.stdout).not.toContain("unknown_action");
    expect(replayed.stdout).toContain(`match what session ${session.id} recorded`);
    expect(replayed.stdout).toContain("1 command the session could not run (syntax_error) was left out");
    expect(replayed.code).toBe(0);
  });

  it("replays a session that a running clio has open: replay only reads it", async () => {
    const id = await recordSession("d4d4d4", "1│# Inventory\n(Showing lines up to 1 of 4. Read on with offset=2 (and limit=N for a window).)");
    const held = await new SessionStore(env.CLIO_SESSION_DIR!).open(id);
    try {
      const replayed = await clio("replay", "--from-session", id, "--fresh-copy", scriptsFixture, "--permission-mode", "yolo");
      expect(replayed.stderr).toBe("");
      expect(replayed.stdout).toContain(`match what session ${id} recorded`);
    } finally {
      await held.close();
    }
  });

  it("finds the session in the folder --session-dir names, as chat and sessions do", async () => {
    const elsewhere = path.join(folder.path, "other-sessions");
    const store = new SessionStore(elsewhere, { now: () => created, randomSuffix: () => "e5e5e5" });
    const session = await store.create({ workspace: "/home/someone/inventory", provider: "test", model: "test-model" });
    await session.appendCommand(readTodo);
    await session.close();
    const replayed = await clio("replay", "--from-session", "20261122-0243-e5", "--session-dir", elsewhere, "--fresh-copy", scriptsFixture, "--permission-mode", "yolo");
    expect(replayed.stderr).toBe("");
    expect(replayed.stdout).toContain(`match what session ${session.id} recorded`);
  });

  it("says when a session id matches none or several", async () => {
    const none = await clio("replay", "--from-session", "19990101-0000", "--permission-mode", "yolo");
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/clio replay: .*19990101-0000/);
    const several = await clio("replay", "--from-session", "20261122-0243", "--permission-mode", "yolo");
    expect(several.code).toBe(2);
    expect(several.stderr).toMatch(/20261122-0243/);
    expect(several.stderr).toMatch(/matches|several|more than one/i);
  });
});
