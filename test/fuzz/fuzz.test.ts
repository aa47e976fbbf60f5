import { describe, expect, it } from "vitest";
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import fc from "fast-check";
import { parse } from "../../grammar/index.js";
import { LOCAL_URLS, SAFE_COMMANDS, SAFE_JSON, SAFE_WORDS } from "../../src/fuzz/arbitraries.js";
import { commandArbitrary, scriptArbitrary } from "../../src/fuzz/commands.js";
import { fuzzGrammar } from "../../src/fuzz/grammar-fuzz.js";
import { killAll, leftoverProcesses, processListingSupported } from "../../src/fuzz/processes.js";
import { fuzzProtocol, reproductionFor, FUZZ_CASE_PLACEHOLDER } from "../../src/fuzz/protocol-fuzz.js";
import { loadBuiltinProtocols } from "../../src/registry.js";
import { notesProtocol } from "../manager/notes-protocol.js";
import { bundledCli, repositoryRoot } from "../replay/shipped-scripts.js";
import { escapingProtocol, hangingProtocol, leakingProtocol, outlivingProtocol, recordingProtocol, throwingProtocol } from "./bad-protocol.js";

const run = promisify(execFile);

describe("generated commands", () => {
  it("are one line each and parse as a command of their protocol, or as a syntax error", () => {
    for (const lines of fc.sample(scriptArbitrary({ protocol: notesProtocol }), { numRuns: 300, seed: 11 })) {
      for (const line of lines) {
        expect(line).not.toContain("\n");
        const parsed = parse(line);
        expect(parsed.commands.length + parsed.errors.length).toBeGreaterThan(0);
        for (const command of parsed.commands) expect(command.protocol).toBe("NOTES");
      }
    }
  });

  it("follow the action's parameters: mostly valid, sometimes not", () => {
    const samples = fc.sample(commandArbitrary({ protocol: notesProtocol, action: "set" }), { numRuns: 200, seed: 5 }).map(({ text }) => text);
    const withKey = samples.filter((line) => /:key=/.test(line));
    expect(withKey.length).toBeGreaterThan(150);
    expect(samples.every((line) => line.startsWith("[NOTES:action=set"))).toBe(true);
    expect(samples.some((line) => /colour=red|force=1|path2=/.test(line))).toBe(true);
  });
});

describe("protocol fuzzing", () => {
  it("holds for every registered protocol (a short run; `npm run fuzz` runs a long one)", async () => {
    const registry = await loadBuiltinProtocols();
    for (const protocol of registry.all()) {
      const outcome = await fuzzProtocol(protocol, { runs: 20, seed: 2026 });
      expect(outcome.failure, `${protocol.name}: ${outcome.failure?.problem}\n${outcome.failure?.script.slice(0, 500)}`).toBeUndefined();
      expect(outcome.counts.handled, `${protocol.name} never reached a handler`).toBeGreaterThan(0);
    }
  });

  it("counts the failed results by error code, and the report line shows them (9)", async () => {
    const { formatOutcome } = await import("../../src/cli/fuzz-report.js");
    const outcome = await fuzzProtocol(notesProtocol, { runs: 40, seed: 3, strict: false });
    const codes = Object.keys(outcome.counts.errors);
    expect(codes).toEqual(expect.arrayContaining(["not_found", "unknown_action"]));
    // Every check that refused a command gave a result with its code; handlers' errors add to those.
    const failed = Object.values(outcome.counts.errors).reduce((sum, count) => sum + count, 0);
    expect(failed).toBeGreaterThanOrEqual(outcome.counts.rejected);
    const [top] = Object.entries(outcome.counts.errors).sort((left, right) => right[1] - left[1]);
    expect(formatOutcome(outcome)).toContain(`gated; errors: ${top![0]} ${top![1]}`);
  });

  it("runs exec-class actions only with safe values and network-class ones only with local addresses", async () => {
    const seen = { exec: [] as string[][], network: [] as string[][] };
    const outcome = await fuzzProtocol(recordingProtocol(seen), { runs: 150, seed: 9 });
    expect(outcome.failure).toBeUndefined();
    expect(seen.exec.length).toBeGreaterThan(10);
    const safeText = new Set([...SAFE_COMMANDS, "", "src", "sub/dir", "new/folder/file", "link-out", "link-out/secret", "link-file", "../outside", "../../etc/passwd"]);
    for (const [command, cwd, program, args] of seen.exec) {
      expect(safeText.has(command!) && safeText.has(cwd!)).toBe(true);
      expect(program === "" || SAFE_WORDS.includes(program!)).toBe(true);
      expect(args === "null" || SAFE_JSON.map((json) => JSON.stringify(JSON.parse(json))).includes(args!)).toBe(true);
    }
    expect(seen.network.length).toBeGreaterThan(0);
    for (const values of seen.network) for (const value of values) expect(LOCAL_URLS.includes(value) || !/[.:]/.test(value)).toBe(true);
  });

  it("catches a write outside the workspace", async () => {
    const outcome = await fuzzProtocol(escapingProtocol, { runs: 3, seed: 1 });
    expect(outcome.failure?.problem).toMatch(/written outside the workspace: sentinel\/planted\.txt was created/);
    expect(outcome.failure?.script).toMatch(/^\[ESCAPE:action=go[^\n]*\]$/);
  });

  it("catches an untyped exception, unless told to allow it", async () => {
    const strict = await fuzzProtocol(throwingProtocol, { runs: 3, seed: 1 });
    expect(strict.failure?.problem).toContain("THROW.go at 1:1: an untyped exception escaped the handler: The command failed unexpectedly: cannot read properties");
    expect((await fuzzProtocol(throwingProtocol, { runs: 3, seed: 1, strict: false })).failure).toBeUndefined();
  });

  it("catches a command that never finishes", async () => {
    const outcome = await fuzzProtocol(hangingProtocol, { runs: 2, seed: 1, commandTimeoutMs: 200 });
    expect(outcome.failure?.problem).toContain("a command did not finish within 200 ms");
  });

  it.runIf(processListingSupported)("catches a process left running, and stops it", async () => {
    const outcome = await fuzzProtocol(leakingProtocol, { runs: 2, seed: 1, leftoverGraceMs: 200 });
    expect(outcome.failure?.problem).toMatch(/processes left running after dispose: \d+ \(sleep\)/);
    const pids = [...outcome.failure!.problem.matchAll(/(\d+) \(sleep\)/g)].map((match) => Number(match[1]));
    const still = (await leftoverProcesses("/nonexistent")).filter((info) => pids.includes(info.pid));
    expect(still).toEqual([]);
  });

  it.runIf(processListingSupported)(
    "waits until what it kills is gone before it goes on (the check above failed under load: SIGKILL lands when the process next runs)",
    async () => {
      // A shell and its own child, as a leaking command leaves them.
      const child = spawn("sh", ["-c", "sleep 30 & wait"], { stdio: "ignore" });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const leftovers = (await leftoverProcesses("/nonexistent")).filter((info) => info.pid === child.pid || info.parent === child.pid);
      expect(leftovers.length).toBeGreaterThan(0);
      expect(await killAll(leftovers)).toEqual([]);
      const after = (await leftoverProcesses("/nonexistent")).filter((info) => leftovers.some((left) => left.pid === info.pid));
      expect(after).toEqual([]);
    },
  );

  it("reports a process that outlives the case and writes into its sandbox while it is removed, instead of ending the run with ENOTEMPTY", async () => {
    const outcome = await fuzzProtocol(outlivingProtocol, { runs: 2, seed: 1, leftoverGraceMs: 0 });
    expect(outcome.failure?.problem).toMatch(/the sandbox changed while it was being removed after dispose\(\) \((ENOTEMPTY|EBUSY)\)|the sandbox could not be removed/);
    // The writer stops when the sandbox is gone, or after 3 s when it could not be removed; the run's folder is gone then, or left only while it wrote.
    await new Promise((resolve) => setTimeout(resolve, 1500));
  });

  it("reproduces with the sandbox as CLIO_HOME too, as the fuzz ran, so a reproduction never touches the person's own clio home", async () => {
    const failure = { kind: "protocol" as const, target: "MEMORY", seed: 1, runs: 1, problem: "example", script: '[MEMORY:action=store:key="k":value="v":scope=global]' };
    const { sandbox, command } = await reproductionFor(failure);
    try {
      expect(command).toContain(`CLIO_HOME=${sandbox.home} `);
    } finally {
      await sandbox.remove();
    }
  });

  it("keeps a sandbox with the failing case, replayable by the printed command", async () => {
    const failure = {
      kind: "protocol" as const,
      target: "FILE_OP",
      seed: 1,
      runs: 1,
      problem: "example",
      script: `[FILE_OP:action=read:path="${FUZZ_CASE_PLACEHOLDER}/sentinel/secret.txt"]`,
    };
    const { sandbox, command } = await reproductionFor(failure);
    try {
      expect(await readFile(path.join(sandbox.base, "case.md"), "utf8")).toBe(`[FILE_OP:action=read:path="${sandbox.base}/sentinel/secret.txt"]\n`);
      expect(command).toBe(
        `HOME=${sandbox.home} CLIO_HOME=${sandbox.home} clio replay ${sandbox.base}/case.md --workspace ${sandbox.workspace} --permission-mode yolo --fuzz-check`,
      );
      // The printed command gives a verdict on the property, not only the results.
      const replayed = await run(
        process.execPath,
        [bundledCli, "replay", path.join(sandbox.base, "case.md"), "--workspace", sandbox.workspace, "--permission-mode", "yolo", "--fuzz-check"],
        {
          env: { ...process.env, HOME: sandbox.home, CLIO_HOME: sandbox.home, NO_COLOR: "1" },
        },
      );
      expect(replayed.stdout).toContain("Fuzz property holds: every result is structured (no internal_error) and nothing outside the workspace changed.");
    } finally {
      await sandbox.remove();
    }
  });
});

describe("grammar laws", () => {
  it("hold for generated text, commands and chunkings", async () => {
    const outcomes = await fuzzGrammar({ runs: 150, seed: 3 });
    expect(outcomes.map((outcome) => outcome.target)).toHaveLength(8);
    for (const outcome of outcomes) expect(outcome.failure, `${outcome.target}: ${outcome.failure?.problem}`).toBeUndefined();
  });
});

describe("clio fuzz", () => {
  async function clio(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    if (!existsSync(bundledCli)) await run(process.execPath, [path.join(repositoryRoot, "scripts", "build.mjs")], { cwd: repositoryRoot });
    try {
      const { stdout, stderr } = await run(process.execPath, [bundledCli, ...args], { cwd: repositoryRoot, env: { ...process.env, NO_COLOR: "1" } });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  it("fuzzes one protocol and the grammar, printing the seed", async () => {
    const result = await clio("fuzz", "--protocol", "WEB", "--runs", "5", "--seed", "42");
    expect(result.stdout).toContain("clio fuzz: 5 runs per property, seed 42 (rerun with --seed 42)");
    expect(result.stdout).toMatch(/ok +WEB +5 runs/);
    expect(result.stdout).toMatch(/\n9 passed, 0 failed \(properties\); [\d.]+ s\n$/);
    expect(result.code).toBe(0);
  });

  it("refuses a protocol that is not registered", async () => {
    const result = await clio("fuzz", "--protocol", "NOPE", "--runs", "1");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no protocol named NOPE\. Known protocols: .*FILE_OP/);
  });
});

describe("clean-up", () => {
  it("leaves no sandbox in the temp folder after a failing run", async () => {
    // A temp folder of its own: other tests (and other processes) make fuzz sandboxes in the shared one.
    const temp = await mkdtemp(path.join(os.tmpdir(), "clio-fuzz-test-"));
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = temp;
    try {
      const outcome = await fuzzProtocol(escapingProtocol, { runs: 1, seed: 4 });
      expect(outcome.failure).toBeDefined();
      expect(await readdir(temp)).toEqual([]);
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
      await rm(temp, { recursive: true, force: true });
    }
  });
});
