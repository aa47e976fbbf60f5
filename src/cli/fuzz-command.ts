/**
 * `clio fuzz`: property checks of the grammar laws and of every registered protocol (see
 * docs/fuzzing.md), with a run count or a time budget, a corpus of failures checked first on
 * every run, statistics per property, JUnit XML, and a closing `N passed, N failed` line.
 * Exit 0 when every property held, 1 on a counterexample, 2 for a bad option, 130/143 when interrupted.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { GrammarUnderTest } from "../fuzz/grammar-laws.js";
import type { FuzzFailure, FuzzOutcome } from "../fuzz/protocol-fuzz.js";
import { loadProtocols } from "../protocol-sources.js";
import type { ProtocolRegistry } from "../registry.js";
import { junitReport } from "../replay/junit.js";
import { INTERRUPT_EXIT_CODES, watchInterrupts } from "./interrupts.js";
import { type FuzzCommandOptions, formatFailure, formatOutcome, rerunLine } from "./fuzz-report.js";

export type { FuzzCommandOptions };

const DEFAULT_RUNS = 100;
/** With --time, runs are bounded by the clock; this is only the ceiling. */
const RUNS_UNDER_A_BUDGET = 10_000_000;

async function loadGrammar(module: string): Promise<GrammarUnderTest> {
  const loaded = (await import(pathToFileURL(path.resolve(module)).href)) as { grammar?: GrammarUnderTest };
  if (!loaded.grammar || typeof loaded.grammar.parse !== "function" || typeof loaded.grammar.print !== "function" || typeof loaded.grammar.scan !== "function") {
    throw new Error(`${module} exports no grammar: export const grammar = { parse, print, scan } (see docs/fuzzing.md).`);
  }
  return loaded.grammar;
}

export async function fuzzCommand(options: FuzzCommandOptions): Promise<number> {
  // The person's MCP servers and shell protocols are fuzzed too, from their declared parameters.
  const { loadConfig } = await import("../config/index.js");
  const { config } = await loadConfig({ cwd: process.cwd(), env: process.env });
  const registry = await loadProtocols({ mcpServers: config.mcpServers, shellProtocols: config.shellProtocols, cwd: config.workspace });
  try {
    await registry.discover(options.protocol ? [options.protocol] : undefined);
    for (const name of registry.names()) {
      const { failure } = registry.notes(name);
      if (failure !== undefined) process.stderr.write(`clio fuzz: ${name} is unavailable: ${failure.split("\n")[0]}\n`);
    }
    return await fuzzWith(registry, options);
  } finally {
    await registry.close();
  }
}

async function fuzzWith(registry: ProtocolRegistry, options: FuzzCommandOptions): Promise<number> {
  const began = performance.now();
  const write = (text: string) => void process.stdout.write(`${text}\n`);
  const fail = (message: string) => (process.stderr.write(`clio fuzz: ${message}\n`), 2);
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const runs = options.runs ?? (options.time ? RUNS_UNDER_A_BUDGET : DEFAULT_RUNS);
  if (options.protocol && !registry.get(options.protocol)) return fail(`no protocol named ${options.protocol}. Known protocols: ${registry.names().join(", ")}.`);
  if (options.protocol && options.target === "grammar") return fail("--protocol needs --target protocols or all.");
  if (options.grammar && options.target === "protocols") return fail("--grammar is the grammar the laws check: it needs --target grammar or all.");
  let grammar: GrammarUnderTest | undefined;
  try {
    if (options.grammar) grammar = await loadGrammar(options.grammar);
  } catch (error) {
    return fail((error as Error).message);
  }
  const { loadCorpus, CorpusError } = await import("../fuzz/corpus.js");
  let corpus: Awaited<ReturnType<typeof loadCorpus>> = [];
  try {
    if (options.corpus) corpus = await loadCorpus(options.corpus);
  } catch (error) {
    if (error instanceof CorpusError) return fail(error.message);
    throw error;
  }
  const protocols = options.target === "grammar" ? [] : options.protocol ? [registry.get(options.protocol)!] : registry.all();
  const { grammarLaws } = await import("../fuzz/grammar-laws.js");
  const properties = (options.target === "protocols" ? 0 : grammarLaws().length) + protocols.length;
  const budgetMs = options.time ? (options.time * 1000) / Math.max(1, properties) : undefined;
  write(
    `clio fuzz: ${options.time ? `${options.time} s in all (${(budgetMs! / 1000).toFixed(1)} s per property)` : `${runs} runs per property`}, seed ${seed} (rerun with --seed ${seed})`,
  );

  const interrupts = watchInterrupts((signal) => write(`Interrupted (${signal}): finishing the current case, then the summary.`));
  const outcomes: FuzzOutcome[] = [];
  const corpusResults: { file: string; target: string; problem?: string }[] = [];
  try {
    for (const saved of corpus) {
      if (interrupts.signal.aborted) break;
      const problem = await recheck(saved, registry, grammar, options);
      corpusResults.push({ file: saved.file, target: saved.target, ...(problem ? { problem } : {}) });
      write(`${problem ? "FAILED " : "fixed  "}corpus ${saved.file} (${saved.target})${problem ? `: ${problem.split("\n")[0]}` : ""}`);
    }
    const shared = { runs, seed, ...(budgetMs ? { timeLimitMs: budgetMs } : {}), signal: interrupts.signal };
    if (options.target !== "protocols" && !interrupts.signal.aborted) {
      const { fuzzGrammar } = await import("../fuzz/grammar-fuzz.js");
      await fuzzGrammar({ ...shared, ...(grammar ? { grammar } : {}), onOutcome: (outcome) => (outcomes.push(outcome), write(formatOutcome(outcome))) });
    }
    const { fuzzProtocol } = await import("../fuzz/protocol-fuzz.js");
    for (const protocol of protocols) {
      if (interrupts.signal.aborted) break;
      const startedAt = performance.now();
      const outcome = await fuzzProtocol(protocol, { ...shared, strict: !options.allowInternalErrors, onRunFolder: (folder) => interrupts.track(folder) });
      outcome.durationMs = performance.now() - startedAt;
      outcomes.push(outcome);
      write(formatOutcome(outcome));
    }
  } finally {
    interrupts.dispose();
  }

  const failures = outcomes.flatMap((outcome) => (outcome.failure ? [outcome.failure] : []));
  for (const failure of failures) {
    const saved = options.corpus ? await (await import("../fuzz/corpus.js")).saveCase(options.corpus, failure) : undefined;
    write(await formatFailure(failure, rerunLine(failure, options, seed), saved, !options.allowInternalErrors));
  }
  if (options.junit) await writeFile(options.junit, junitReport(junitSuites(outcomes, corpusResults), "clio fuzz"));
  const stillFailing = corpusResults.filter((result) => result.problem).length;
  const passed = outcomes.length - failures.length;
  const corpusNote = corpusResults.length ? `; corpus: ${corpusResults.length - stillFailing} fixed, ${stillFailing} still failing` : "";
  const closing = `${passed} passed, ${failures.length} failed (properties)${corpusNote}; ${((performance.now() - began) / 1000).toFixed(1)} s`;
  if (interrupts.received) {
    write(`Interrupted by ${interrupts.received} after ${outcomes.length} of ${properties} properties: ${closing}`);
    return INTERRUPT_EXIT_CODES[interrupts.received];
  }
  write(closing);
  return failures.length || stillFailing ? 1 : 0;
}

/** Checks a saved case again: its problem if it still fails, undefined when the property holds now. */
async function recheck(
  saved: { kind: string; target: string; value: unknown; file: string },
  registry: ProtocolRegistry,
  grammar: GrammarUnderTest | undefined,
  options: FuzzCommandOptions,
): Promise<string | undefined> {
  if (saved.kind === "grammar") {
    const { grammarLaws } = await import("../fuzz/grammar-laws.js");
    const { clioGrammar, lawFailure } = await import("../fuzz/grammar-fuzz.js");
    const law = grammarLaws().find((candidate) => candidate.name === saved.target);
    if (!law) return `no grammar law is named "${saved.target}" any more: remove ${saved.file}`;
    return lawFailure(law, saved.value, grammar ?? clioGrammar);
  }
  const protocol = registry.get(saved.target);
  if (!protocol) return `no protocol named ${saved.target} is registered: remove ${saved.file}`;
  if (!Array.isArray(saved.value) || !saved.value.every((line) => typeof line === "string")) return `${saved.file} holds no script lines`;
  const { recheckProtocolCase } = await import("../fuzz/protocol-fuzz.js");
  const problems = await recheckProtocolCase(protocol, saved.value as string[], { strict: !options.allowInternalErrors });
  return problems.length ? problems.join("\n") : undefined;
}

function junitSuites(outcomes: FuzzOutcome[], corpus: { file: string; target: string; problem?: string }[]) {
  const property = (outcome: FuzzOutcome) => ({
    name: `${outcome.target} (${outcome.runs} runs)`,
    ...(outcome.durationMs === undefined ? {} : { time: outcome.durationMs / 1000 }),
    ...(outcome.failure ? { failure: { message: outcome.failure.problem.split("\n")[0]!, text: `${outcome.failure.problem}\n${outcome.failure.script}` } } : {}),
  });
  const suites = [{ name: "properties", cases: outcomes.map(property) }];
  if (corpus.length)
    suites.push({
      name: "corpus",
      cases: corpus.map((entry) => ({
        name: `${entry.target}: ${entry.file}`,
        ...(entry.problem ? { failure: { message: entry.problem.split("\n")[0]!, text: entry.problem } } : {}),
      })),
    });
  return suites;
}

export type { FuzzFailure };
