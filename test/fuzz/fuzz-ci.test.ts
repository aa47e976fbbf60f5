/** Issue 21 (7, 8, 9): fuzzing that finds planted bugs, readable counterexamples, and runs that fit CI. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import fc from "fast-check";
import { documentArbitrary } from "../../grammar/arbitraries.js";
import { fuzzGrammar } from "../../src/fuzz/grammar-fuzz.js";
import { compactString } from "../../src/fuzz/show.js";
import { rerunLine } from "../../src/cli/fuzz-report.js";
import { temporaryFolder } from "../support/workspace.js";
import { bundledCli, repositoryRoot } from "../replay/shipped-scripts.js";

const run = promisify(execFile);
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
beforeAll(async () => {
  if (!existsSync(bundledCli)) await run(process.execPath, [path.join(repositoryRoot, "scripts", "build.mjs")], { cwd: repositoryRoot });
  folder = await temporaryFolder("clio-fuzz-ci-");
});
afterAll(async () => {
  await folder.remove();
});

/** `clio fuzz` from the sources (tsx), so a planted grammar written in TypeScript can be loaded. */
async function clioFromSources(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", path.join(repositoryRoot, "src", "cli", "main.ts"), ...args], {
      cwd: repositoryRoot,
      env: { ...process.env, NO_COLOR: "1" },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const planted = (name: string) => path.join(repositoryRoot, "test", "fuzz", "planted", `${name}.ts`);

describe("planted bugs are found within 200 runs (7)", () => {
  const cases: [string, string, RegExp][] = [
    ["heredoc-trailing-blanks", "grammar: a heredoc terminator with trailing blanks closes it", /EOF\d* *\t*/],
    ["escape-slash", "grammar: every JSON escape reads as its character", /\[A:k=".*\\\/.*"\]/],
    ["chunk-boundary", "grammar: chunked scanning equals one parse", /chunks .* \| "\]/],
    ["recovery", "grammar: documents with syntax errors scan the same in any chunking", /chunks /],
    ["chevrotain-closes-at-end", "grammar: the command machine and Chevrotain read commands alike", /^"\[[^\]]*"$/],
  ];
  for (const [name, law, counterexample] of cases) {
    it(`${name}: "${law}" fails for seeds 1 to 3`, async () => {
      const { grammar } = await import(planted(name));
      for (const seed of [1, 2, 3]) {
        const failure = (await fuzzGrammar({ runs: 200, seed, grammar, laws: [law] })).find((outcome) => outcome.target === law)?.failure;
        expect(failure, `seed ${seed}`).toBeDefined();
        expect(failure!.script).toMatch(counterexample);
      }
    });
  }

  it("machine-bare-space (the machine's side of the differential law) needs a bigger budget: found within 2,000 runs for seeds 1 to 3", async () => {
    const { grammar } = await import(planted("machine-bare-space"));
    const law = "grammar: the command machine and Chevrotain read commands alike";
    for (const seed of [1, 2, 3]) {
      const failure = (await fuzzGrammar({ runs: 2000, seed, grammar, laws: [law] }))[0]?.failure;
      expect(failure, `seed ${seed}`).toBeDefined();
      expect(failure!.script).toMatch(/^"\[A: ?k ?=a b\]"$/);
      expect(failure!.problem).toContain("Chevrotain took the text as one command; the machine did not");
    }
  }, 120_000);

  it("and clio's own grammar holds every law on the same budget", async () => {
    const outcomes = await fuzzGrammar({ runs: 200, seed: 1 });
    expect(outcomes.filter((outcome) => outcome.failure).map((outcome) => outcome.failure!.problem)).toEqual([]);
    const withErrors = outcomes.find((outcome) => outcome.target.includes("syntax errors"))!;
    expect(Object.keys(withErrors.statistics!.errors).length).toBeGreaterThanOrEqual(4);
  });
});

describe("readable counterexamples (8)", () => {
  it("print repeated pieces compactly", () => {
    expect(compactString("line\n".repeat(820))).toBe('"line\\n" × 820');
    expect(compactString(`a${"x".repeat(300)}b`)).toBe('"a" + "x" × 300 + "b"');
    expect(compactString("short")).toBe('"short"');
  });

  it("shrink a failing chunking to the pieces and boundaries that matter, with expected and actual side by side", async () => {
    const { grammar } = await import(planted("recovery"));
    const failure = (await fuzzGrammar({ runs: 200, seed: 1, grammar, laws: ["grammar: documents with syntax errors scan the same in any chunking"] })).find(
      (outcome) => outcome.failure,
    )!.failure!;
    expect(failure.script.split(" | ")).toHaveLength(2);
    expect(failure.problem).toContain("expected");
    expect(failure.problem).toMatch(/≠ .*│/);
  });

  it("generate few empty documents", () => {
    const empty = fc.sample(documentArbitrary(), { numRuns: 1000, seed: 4 }).filter((document) => document.text === "").length;
    expect(empty).toBeLessThan(10);
  });
});

describe("clio fuzz in CI (9)", () => {
  it("saves shrunk cases in the corpus, checks them first next time, writes JUnit, and repeats every option in the rerun line", async () => {
    const corpus = path.join(folder.path, "corpus");
    const junit = path.join(folder.path, "fuzz.xml");
    const first = await clioFromSources("fuzz", "--target", "grammar", "--runs", "60", "--seed", "1", "--grammar", planted("recovery"), "--corpus", corpus, "--junit", junit);
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(/FAILED grammar: documents with syntax errors scan the same in any chunking {2}\d+ runs {2}\(commands \d+, mentions \d+, errors: /);
    expect(first.stdout).toContain(`rerun the property: clio fuzz --target grammar --seed 1 --runs 60 --grammar ${planted("recovery")} --corpus ${corpus} --junit ${junit}`);
    expect(first.stdout).toMatch(/\n7 passed, 1 failed \(properties\); [\d.]+ s\n$/);
    const saved = await readdir(corpus);
    expect(saved).toHaveLength(1);
    expect(await readFile(junit, "utf8")).toMatch(/<testsuites name="clio fuzz" tests="8" failures="1"/);

    const again = await clioFromSources("fuzz", "--target", "grammar", "--runs", "5", "--seed", "2", "--grammar", planted("recovery"), "--corpus", corpus);
    expect(again.stdout).toMatch(/^FAILED corpus .*documents with syntax errors/m);
    const fixed = await run(process.execPath, [bundledCli, "fuzz", "--target", "grammar", "--runs", "5", "--seed", "2", "--corpus", corpus]).then((result) => ({
      ...result,
      code: 0,
    }));
    expect(fixed.stdout).toMatch(/^fixed {2}corpus /m);
    expect(fixed.stdout).toMatch(/8 passed, 0 failed \(properties\); corpus: [12] fixed, 0 still failing; /);
    expect(fixed.code).toBe(0);
  }, 90_000);

  it("runs the machine-versus-Chevrotain law: its statistics, its failure side by side, JUnit and the rerun line", async () => {
    const junit = path.join(folder.path, "differential.xml");
    const law = "grammar: the command machine and Chevrotain read commands alike";
    const grammar = planted("chevrotain-closes-at-end");
    const result = await clioFromSources("fuzz", "--target", "grammar", "--runs", "100", "--seed", "1", "--grammar", grammar, "--junit", junit);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(new RegExp(`FAILED ${law} {2}\\d+ runs {2}\\(commands \\d+, mentions 0, errors: [a-z_]+ \\d+`));
    expect(result.stdout).toContain("Chevrotain took the text as one command; the machine did not");
    expect(result.stdout).toMatch(/≠ {3}whole: true, .*│ {3}whole: false/);
    expect(result.stdout).toContain(`rerun the property: clio fuzz --target grammar --seed 1 --runs 100 --grammar ${grammar} --junit ${junit}`);
    expect(await readFile(junit, "utf8")).toMatch(new RegExp(`<testcase [^>]*name="${law} \\(\\d+ runs\\)"[^>]*>\\s*<failure`));
  }, 60_000);

  it("refuses a corrupt corpus case by name, and runs within a time budget", async () => {
    const corpus = path.join(folder.path, "bad-corpus");
    await mkdir(corpus);
    await writeFile(path.join(corpus, "broken.json"), '{"version": 1, "kind": "grammar"');
    const corrupt = await run(process.execPath, [bundledCli, "fuzz", "--target", "grammar", "--corpus", corpus]).catch((error) => error);
    expect(corrupt.code).toBe(2);
    expect(corrupt.stderr).toContain(`${path.join(corpus, "broken.json")} is not a corpus case`);
    const timed = await run(process.execPath, [bundledCli, "fuzz", "--target", "grammar", "--time", "2", "--seed", "3"]);
    expect(timed.stdout).toContain("clio fuzz: 2 s in all (0.3 s per property), seed 3");
    expect(timed.stdout).toMatch(/8 passed, 0 failed \(properties\); [\d.]+ s/);
  });

  it("Ctrl-C prints a partial summary and exits 130", async () => {
    const child = spawn(process.execPath, [bundledCli, "fuzz", "--target", "grammar", "--time", "14", "--seed", "5"], { env: { ...process.env, NO_COLOR: "1" } });
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => /^ok /m.test(stdout) && (clearInterval(poll), resolve()), 50);
    });
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stdout).toMatch(/Interrupted by SIGINT after \d of 8 properties: \d passed, 0 failed \(properties\)/);
  }, 60_000);

  it("repeats --allow-internal-errors, --time and the protocol in the rerun line", () => {
    const failure = { kind: "protocol" as const, target: "FILE_OP", seed: 7, runs: 300, script: "", problem: "" };
    expect(rerunLine(failure, { target: "all", allowInternalErrors: true, time: 30 }, 7)).toBe(
      "clio fuzz --target protocols --protocol FILE_OP --seed 7 --time 30 --allow-internal-errors",
    );
  });
});

describe("arbitraries honour integer bounds (10)", () => {
  it("draw numbers inside a schema's bounds, on them and just outside", async () => {
    const { z } = await import("zod");
    const { valueArbitrary } = await import("../../src/fuzz/arbitraries.js");
    const { parameter } = await import("../../protocols/contract/protocol.js");
    const values = fc
      .sample(valueArbitrary({ parameter: parameter.word("a count", z.number().int().min(5).max(9)) }), { numRuns: 400, seed: 1 })
      .map(Number)
      .filter(Number.isFinite);
    const inside = values.filter((value) => value >= 5 && value <= 9);
    expect(inside.length).toBeGreaterThan(values.length / 2);
    expect(values).toContain(4);
    expect(values).toContain(10);
    expect(values.some((value) => value > 10 && value < 1_000_000)).toBe(false);
  });
});

describe("valid commands as structured values (10)", () => {
  it("every generated command passes the manager's checks, with its args as generated", async () => {
    const { commandArbitrary } = await import("../../src/fuzz/commands.js");
    const { ProtocolManager } = await import("../../src/manager/manager.js");
    const { PermissionPolicy } = await import("../../src/manager/permissions.js");
    const { ProtocolRegistry, loadBuiltinProtocols } = await import("../../src/registry.js");
    const { Workspace } = await import("../../tools/workspace.js");
    const { parse } = await import("../../grammar/index.js");
    const registry = await loadBuiltinProtocols();
    for (const name of registry.names()) {
      const protocol = registry.get(name)!;
      const manager = new ProtocolManager({
        registry: new ProtocolRegistry([protocol]),
        environment: { workspace: await Workspace.open(folder.path), config: {}, env: {}, now: Date.now, userAgent: "test" },
        permissions: new PermissionPolicy("plan"),
      });
      for (const { command, text } of fc.sample(commandArbitrary({ protocol, validOnly: true }), { numRuns: 60, seed: 2 })) {
        const parsed = parse(text);
        expect(parsed.errors, text).toEqual([]);
        const checked = manager.check(parsed.commands[0]!);
        expect(checked.ok ? "" : JSON.stringify(checked), text).toBe("");
        if (checked.ok) for (const [key, value] of Object.entries(command.args)) expect(checked.invocation.decoded[key]).toBe(value);
      }
      await manager.dispose();
    }
  });
});
