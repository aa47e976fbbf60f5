/**
 * `clio fuzz [--runs N] [--seed S] [--target grammar|protocols|all] [--protocol NAME]`:
 * property checks of the grammar laws and of every registered protocol (see docs/fuzzing.md).
 * Exit 0 when every property holds, 1 on a counterexample, 2 for a bad option.
 */
import type { FuzzFailure, FuzzOutcome } from "../fuzz/protocol-fuzz.js";
import { loadProtocols } from "../protocol-sources.js";

export interface FuzzCommandOptions {
  runs?: number;
  seed?: number;
  target: "grammar" | "protocols" | "all";
  protocol?: string;
  /** Do not count internal_error results as failures. */
  allowInternalErrors?: boolean;
}

const DEFAULT_RUNS = 100;
const LONGEST_SHOWN_SCRIPT = 2_000;

export async function fuzzCommand(options: FuzzCommandOptions): Promise<number> {
  const write = (text: string) => void process.stdout.write(`${text}\n`);
  const runs = options.runs ?? DEFAULT_RUNS;
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  // The person's MCP servers and shell protocols are fuzzed too, from their declared parameters.
  const { loadConfig } = await import("../config/index.js");
  const { config } = await loadConfig({ cwd: process.cwd(), env: process.env });
  const registry = await loadProtocols({ mcpServers: config.mcpServers, shellProtocols: config.shellProtocols, cwd: config.workspace });
  await registry.discover(options.protocol ? [options.protocol] : undefined);
  for (const [name, { failure }] of registry.names().map((name) => [name, registry.notes(name)] as const)) {
    if (failure !== undefined) process.stderr.write(`clio fuzz: ${name} is unavailable: ${failure.split("\n")[0]}\n`);
  }
  if (options.protocol && !registry.get(options.protocol)) {
    process.stderr.write(`clio fuzz: no protocol named ${options.protocol}. Known protocols: ${registry.names().join(", ")}.\n`);
    return 2;
  }
  if (options.protocol && options.target === "grammar") {
    process.stderr.write("clio fuzz: --protocol needs --target protocols or all.\n");
    return 2;
  }
  write(`clio fuzz: ${runs} runs per property, seed ${seed} (rerun with --seed ${seed})`);
  const outcomes: FuzzOutcome[] = [];
  if (options.target !== "protocols") {
    const { fuzzGrammar } = await import("../fuzz/grammar-fuzz.js");
    for (const outcome of await fuzzGrammar({ runs, seed })) {
      outcomes.push(outcome);
      write(formatOutcome(outcome, 0));
    }
  }
  if (options.target !== "grammar") {
    const { fuzzProtocol } = await import("../fuzz/protocol-fuzz.js");
    const protocols = options.protocol ? [registry.get(options.protocol)!] : registry.all();
    for (const protocol of protocols) {
      const began = performance.now();
      const outcome = await fuzzProtocol(protocol, { runs, seed, strict: !options.allowInternalErrors });
      outcomes.push(outcome);
      write(formatOutcome(outcome, performance.now() - began));
    }
  }
  const failures = outcomes.flatMap((outcome) => (outcome.failure ? [outcome.failure] : []));
  for (const failure of failures) write(await formatFailure(failure));
  write(failures.length ? `${failures.length} of ${outcomes.length} properties failed.` : `All ${outcomes.length} properties held.`);
  await registry.close();
  return failures.length ? 1 : 0;
}

function formatOutcome(outcome: FuzzOutcome, milliseconds: number): string {
  const status = outcome.failure ? "FAILED" : "ok";
  const { handled, gated, rejected } = outcome.counts;
  const counts = handled + gated + rejected ? `  (commands: ${handled} handled, ${rejected} rejected by checks, ${gated} gated)` : "";
  const time = milliseconds ? `  ${(milliseconds / 1000).toFixed(1)} s` : "";
  return `${status.padEnd(7)}${outcome.target}  ${outcome.runs} runs${counts}${time}`;
}

async function formatFailure(failure: FuzzFailure): Promise<string> {
  const lines = [``, `✗ ${failure.target} failed (seed ${failure.seed}${failure.path ? `, path ${failure.path}` : ""}):`];
  lines.push(...failure.problem.split("\n").map((line) => `  ${line}`));
  const shown = failure.script.length > LONGEST_SHOWN_SCRIPT ? `${failure.script.slice(0, LONGEST_SHOWN_SCRIPT)}… (${failure.script.length} characters)` : failure.script;
  lines.push("  counterexample (a one-line script):", `    ${shown}`);
  if (failure.kind !== "grammar") {
    const { reproductionFor } = await import("../fuzz/protocol-fuzz.js");
    const { command } = await reproductionFor(failure);
    lines.push("  reproduce it in a fresh sandbox (kept for you):", `    ${command}`);
  }
  lines.push(`  rerun the property: clio fuzz --target ${failure.kind === "grammar" ? "grammar" : `protocols --protocol ${failure.target}`} --seed ${failure.seed} --runs ${failure.runs}`);
  return lines.join("\n");
}
