/** Issue 21 (4, 5): `clio replay` as a CI test runner, through the real bundled CLI in child processes. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { temporaryFolder } from "../support/workspace.js";
import { bundledCli, repositoryRoot } from "./shipped-scripts.js";

const run = promisify(execFile);
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let env: NodeJS.ProcessEnv;
let fixture: string;

beforeAll(async () => {
  if (!existsSync(bundledCli)) await run(process.execPath, [path.join(repositoryRoot, "scripts", "build.mjs")], { cwd: repositoryRoot });
  folder = await temporaryFolder("clio-replay-ci-");
  const home = path.join(folder.path, "home");
  await mkdir(home);
  env = { ...process.env, HOME: home, CLIO_HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), NO_COLOR: "1" };
  fixture = path.join(folder.path, "fixture");
  await mkdir(fixture);
  await writeFile(path.join(fixture, "a.txt"), "alpha\n");
  await writeFile(path.join(fixture, "b.txt"), "beta\n");
  await mkdir(path.join(folder.path, "suite"));
  await writeFile(path.join(folder.path, "suite", "one.md"), '# One\n\n[FILE_OP:action=read:path="a.txt"]\n[FILE_OP:action=read:path="b.txt"]\n');
  await writeFile(path.join(folder.path, "suite", "two.md"), '# Two\n\n[FILE_OP:action=write:path="c.txt":content="gamma\\n"]\n[FILE_OP:action=read:path="c.txt"]\n');
});
afterAll(async () => {
  await folder.remove();
});

async function clio(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bundledCli, ...args], { cwd: folder.path, env: { ...env, ...extraEnv } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const inFixture = ["--fresh-copy", "fixture", "--permission-mode", "yolo"];

describe("recording is protected (4)", () => {
  it("--update refuses to record refusals of the default mode without a terminal, unless --accept-refused", async () => {
    const file = path.join(folder.path, "refused.expected.json");
    const refused = await clio(["replay", "suite/two.md", "--fresh-copy", "fixture", "--expect", file, "--update"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/Not written: 1 command\(s\) did not run — refused for want of permission or cancelled: FILE_OP\.write at 3:1 \(permission_denied\)/);
    expect(existsSync(file)).toBe(false);
    const accepted = await clio(["replay", "suite/two.md", "--fresh-copy", "fixture", "--expect", file, "--update", "--accept-refused"]);
    expect(accepted.code).toBe(0);
    expect(JSON.parse(await readFile(file, "utf8")).results[0].error.code).toBe("permission_denied");
  });

  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    it(`an --update interrupted by ${signal} writes nothing, exits ${code} and removes its temporary copy`, async () => {
      const temp = path.join(folder.path, `tmp-${signal}`);
      await mkdir(temp);
      const script = path.join(folder.path, `slow-${signal}.md`);
      await writeFile(script, '[FILE_OP:action=read:path="a.txt"]\n[EXEC:action=run:command="sleep 30"]\n[FILE_OP:action=read:path="b.txt"]\n');
      const file = path.join(folder.path, `slow-${signal}.expected.json`);
      const previous = `${JSON.stringify({ version: 1, script: path.basename(script), normalisers: [], results: [] })}\n`;
      await writeFile(file, previous);
      const child = spawn(process.execPath, [bundledCli, "replay", script, ...inFixture, "--expect", file, "--update", "--accept-refused"], {
        cwd: folder.path,
        env: { ...env, TMPDIR: temp },
      });
      let stdout = "";
      child.stdout.on("data", (chunk) => (stdout += chunk));
      let stderr = "";
      child.stderr.on("data", (chunk) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => child.on("exit", (status) => resolve(status)));
      await new Promise<void>((resolve, reject) => {
        const poll = setInterval(() => {
          if (stdout.includes("a.txt")) clearInterval(poll), resolve();
          if (child.exitCode !== null) clearInterval(poll), reject(new Error(`exited early: ${stdout}${stderr}`));
        }, 20);
      });
      // Inside the fresh copy while the sleep runs.
      expect((await readdir(temp)).some((name) => name.startsWith("clio-replay-"))).toBe(true);
      child.kill(signal);
      expect(await exited).toBe(code);
      expect(await readFile(file, "utf8")).toBe(previous);
      expect(await readdir(temp)).toEqual([]);
      expect(stdout + stderr).toContain(`Interrupted by ${signal}`);
    });
  }
});

describe("CI reporting (5)", () => {
  it("runs several scripts and globs with --jobs, expectations beside each, and closes with N passed, N failed", async () => {
    const recorded = await clio(["replay", "suite/*.md", ...inFixture, "--expect", "--update"]);
    expect(recorded.code).toBe(0);
    expect(existsSync(path.join(folder.path, "suite", "one.expected.json"))).toBe(true);
    expect(existsSync(path.join(folder.path, "suite", "two.expected.json"))).toBe(true);
    const passing = await clio(["replay", "suite/one.md", "suite/*.md", ...inFixture, "--expect", "--jobs", "2"]);
    expect(passing.stdout).toMatch(/PASS suite\/one\.md {2}2 commands/);
    expect(passing.stdout).toMatch(/2 passed, 0 failed \(scripts\); 4 passed, 0 failed \(commands\); [\d.]+ s\n$/);
    expect(passing.code).toBe(0);

    const changed = JSON.parse(await readFile(path.join(folder.path, "suite", "two.expected.json"), "utf8"));
    changed.results[1].output = ["1│delta"];
    await writeFile(path.join(folder.path, "suite", "two.expected.json"), JSON.stringify(changed));
    const junit = path.join(folder.path, "report.xml");
    const failing = await clio(["replay", "suite/*.md", ...inFixture, "--expect", "--jobs", "2", "--junit", junit]);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/FAIL suite\/two\.md/);
    expect(failing.stdout).toContain("-1│delta");
    expect(failing.stdout).toMatch(/1 passed, 1 failed \(scripts\); 3 passed, 1 failed \(commands\)/);
    const xml = await readFile(junit, "utf8");
    expect(xml).toContain('<testsuites name="clio replay" tests="4" failures="1" errors="0">');
    expect(xml.match(/<testsuite /g)).toHaveLength(2);
    expect(xml).toMatch(/<testcase classname="suite\/two\.md" name="4:1 FILE_OP\.read \[FILE_OP:action=read:path=&quot;c\.txt&quot;\]"[^>]*>\n +<failure message=/);

    const json = await clio(["replay", "suite/*.md", ...inFixture, "--expect", "--json"]);
    const lines = json.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.type === "result").map((line) => [line.script, line.match])).toEqual([
      ["suite/one.md", true],
      ["suite/one.md", true],
      ["suite/two.md", true],
      ["suite/two.md", false],
    ]);
    expect(lines.at(-1)).toMatchObject({ type: "summary", scripts: { passed: 1, failed: 1 }, commands: { passed: 3, failed: 1 } });
    expect(json.stderr).toContain("differs from");
  });

  it("--only runs one line or the commands with some text, and --show-all shows every difference", async () => {
    const byLine = await clio(["replay", "suite/one.md", ...inFixture, "--only", "4"]);
    expect(byLine.stdout).toContain("b.txt");
    expect(byLine.stdout).not.toContain("a.txt");
    const byText = await clio(["replay", "suite/one.md", ...inFixture, "--only", "a.txt", "--expect", "suite/one.expected.json"]);
    expect(byText.code).toBe(0);
    expect(byText.stdout).toContain("1 passed, 0 failed (commands)");
    const none = await clio(["replay", "suite/one.md", ...inFixture, "--only", "zzz"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--only "zzz" selects no command of suite/one.md');

    const many = path.join(folder.path, "many.md");
    await writeFile(many, Array.from({ length: 5 }, () => '[FILE_OP:action=read:path="a.txt"]').join("\n"));
    const manyExpected = path.join(folder.path, "many.expected.json");
    await clio(["replay", many, ...inFixture, "--expect", manyExpected, "--update"]);
    const file = JSON.parse(await readFile(manyExpected, "utf8"));
    for (const result of file.results) result.output = ["changed"];
    await writeFile(manyExpected, JSON.stringify(file));
    const few = await clio(["replay", many, ...inFixture, "--expect", manyExpected]);
    expect(few.stdout).toContain("… and 2 more difference(s) not shown (--show-all shows them).");
    const all = await clio(["replay", many, ...inFixture, "--expect", manyExpected, "--show-all"]);
    expect(all.stdout.match(/differs from/g)).toHaveLength(5);
  });

  it("refuses bad input clearly, before anything runs or is written", async () => {
    const jobs = await clio(["replay", "suite/one.md", "--jobs", "0"]);
    expect(jobs.code).toBe(2);
    expect(jobs.stderr).toContain("expected a whole number of 1 or more");
    const glob = await clio(["replay", "nothing/*.md", ...inFixture]);
    expect(glob.code).toBe(2);
    expect(glob.stderr).toContain("nothing/*.md matches no file");
    await mkdir(path.join(folder.path, "other"), { recursive: true });
    await writeFile(path.join(folder.path, "other", "one.md"), '[FILE_OP:action=read:path="a.txt"]\n');
    const same = await clio(["replay", "suite/one.md", "other/one.md", ...inFixture, "--expect", "--update"]);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain("suite/one.md and other/one.md have the same file name");
    expect(existsSync(path.join(folder.path, "other", "one.expected.json"))).toBe(false);
    const oneFile = await clio(["replay", "suite/one.md", "suite/two.md", ...inFixture, "--expect", "x.json"]);
    expect(oneFile.code).toBe(2);
    expect(oneFile.stderr).toContain("use --expect without a file");
  });
});

describe("interactive review (6)", () => {
  it("accepts one difference, skips another, and writes only the accepted one", async () => {
    const script = path.join(folder.path, "review.md");
    await writeFile(script, '[FILE_OP:action=read:path="a.txt"]\n[FILE_OP:action=read:path="b.txt"]\n');
    const file = path.join(folder.path, "review.expected.json");
    await clio(["replay", script, ...inFixture, "--expect", file, "--update"]);
    const recorded = JSON.parse(await readFile(file, "utf8"));
    recorded.results[0].output = ["1│old alpha"];
    recorded.results[1].output = ["1│old beta"];
    await writeFile(file, JSON.stringify(recorded));
    const child = spawn(process.execPath, [bundledCli, "replay", script, ...inFixture, "--expect", file, "--review"], { cwd: folder.path, env });
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stdin.end("a\ns\n");
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(stdout).toContain("Accepted 1 of 2 change(s)");
    expect(code).toBe(1);
    const after = JSON.parse(await readFile(file, "utf8"));
    expect(after.results.map((result: { output: string[] }) => result.output)).toEqual([["1│alpha"], ["1│old beta"]]);
    const all = spawn(process.execPath, [bundledCli, "replay", script, ...inFixture, "--expect", file, "--review"], { cwd: folder.path, env });
    all.stdin.end("A\n");
    expect(await new Promise<number | null>((resolve) => all.on("exit", resolve))).toBe(0);
    expect((await clio(["replay", script, ...inFixture, "--expect", file])).code).toBe(0);
  });
});
