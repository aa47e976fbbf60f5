/**
 * `clio replay FILE…` as a test runner: one or more scripts (names or globs), each with its
 * expectation file, run up to `--jobs` at once, reported as text, JSON Lines or JUnit XML, with a
 * closing `N passed, N failed` line. Interrupted runs write nothing and exit 130/143.
 */
import { writeFile } from "node:fs/promises";
import type { CommandResult } from "../manager/result.js";
import { formatDifferences } from "../replay/difference-report.js";
import { normalisingOf, type ExpectationFile } from "../replay/expectations.js";
import { selectorFor } from "../replay/replay.js";
import { runScript } from "../replay/run-script.js";
import { judgeBySuccess, judgeRun } from "../replay/verdict.js";
import { junitReport } from "../replay/junit.js";
import { parseGitAuthor } from "../replay/deterministic.js";
import { canAsk, terminalAsker } from "../ui/prompt.js";
import { createStyle } from "../ui/style.js";
import { readExpectations, recordExpectations } from "./expect-option.js";
import { readInputOrReport } from "./input.js";
import { INTERRUPT_EXIT_CODES, watchInterrupts } from "./interrupts.js";
import { configuredRules, formatResult, jsonResult, summaryLine, type ReplayCommandOptions } from "./replay-support.js";
import { resolveScripts, type ScriptEntry, type ScriptOutcome } from "./replay-files.js";
import { junitSuiteFor } from "./replay-junit.js";

type Output = (text: string) => void;

interface Prepared {
  entry: ScriptEntry;
  text: string;
  expectations?: ExpectationFile;
}

/** Reads every script and expectation file before anything runs: any problem is exit 2. */
async function prepare(entries: ScriptEntry[], options: ReplayCommandOptions, fail: (message: string) => number): Promise<Prepared[] | number> {
  const prepared: Prepared[] = [];
  for (const entry of entries) {
    const input = await readInputOrReport(entry.file === "-" ? undefined : entry.file, "replay");
    if ("exitCode" in input) return input.exitCode;
    const item: Prepared = { entry, text: input.text };
    if (entry.expectationFile) {
      const read = await readExpectations(entry.expectationFile, options.update ?? false);
      if ("error" in read) return fail(read.error);
      if (read.expectations) item.expectations = read.expectations;
    }
    if (options.only !== undefined && !(await selectsACommand(input.text, options.only))) {
      return fail(`--only ${JSON.stringify(options.only)} selects no command of ${entry.name}: give the line a command stands on, or text from a command.`);
    }
    prepared.push(item);
  }
  return prepared;
}

/** Whether `--only` selects a command of `text`, read with the built-in protocols' dialect vocabulary as the run reads it. */
async function selectsACommand(text: string, only: string): Promise<boolean> {
  const [{ scriptSubmissions }, { callVocabularyOf }, { loadBuiltinProtocols }] = await Promise.all([
    import("../replay/replay.js"),
    import("../call-vocabulary.js"),
    import("../registry.js"),
  ]);
  return scriptSubmissions(text, selectorFor(only), callVocabularyOf(await loadBuiltinProtocols())).submissions.length > 0;
}

export async function replayScriptsCommand(patterns: string[], options: ReplayCommandOptions): Promise<number> {
  const began = performance.now();
  const fail = (message: string) => (process.stderr.write(`clio replay: ${message}\n`), 2);
  const resolved = await resolveScripts(patterns, options.expect);
  if ("error" in resolved) return fail(resolved.error);
  const prepared = await prepare(resolved.entries, options, fail);
  if (typeof prepared === "number") return prepared;

  const single = prepared.length === 1;
  const json = options.json ?? false;
  const out: Output = (text) => void process.stdout.write(`${text}\n`);
  // In JSON mode standard output holds JSON Lines only; everything a person reads goes to standard error.
  const say: Output = json ? (text) => void process.stderr.write(`${text}\n`) : out;
  const style = createStyle(process.stdout);
  const interactive = !json && canAsk() && single;
  const interrupts = watchInterrupts((signal) => say(`Interrupted (${signal}): cancelling the running commands; nothing will be recorded.`));
  const shared = {
    permissionMode: options.permissionMode,
    ...(await configuredRules(options)),
    ...(interactive ? { asker: terminalAsker(createStyle(process.stderr)) } : {}),
    stopOnError: options.stopOnError ?? false,
    ...(options.gitAuthor ? { gitAuthor: parseGitAuthor(options.gitAuthor)! } : {}),
    ...(options.only !== undefined ? { select: selectorFor(options.only) } : {}),
    signal: interrupts.signal,
    onWorkspace: (folder: string) => interrupts.track(folder),
  };

  const runOne = async ({ entry, text, expectations }: Prepared): Promise<ScriptOutcome> => {
    const started = performance.now();
    const outcome: ScriptOutcome = { entry, lines: [], durationMs: 0 };
    const note = single ? say : (line: string) => void outcome.lines.push(line);
    // Results are kept only for what needs them all at the end; otherwise they stream and only counts stay.
    const keepResults = json || options.junit !== undefined || entry.expectationFile !== undefined;
    try {
      outcome.run = await runScript(text, {
        ...shared,
        normalising: normalisingOf(expectations, entry.expectationFile ?? entry.name),
        ...(options.freshCopy ? { freshCopy: options.freshCopy } : options.workspace ? { workspace: options.workspace } : {}),
        ...(single && !json ? { onResult: (result: CommandResult) => out(formatResult(result, style)) } : {}),
        keepResults,
      });
    } catch (error) {
      outcome.problem = (error as Error).message;
      outcome.durationMs = performance.now() - started;
      return outcome;
    }
    const { outcome: replayed, expected } = outcome.run;
    const notRun = replayed.total - replayed.ran;
    // Recording passes when the file is written: every result it records counts as passed.
    outcome.verdict = options.update
      ? { matches: expected.map(() => null), differences: [], commands: { passed: expected.length, failed: notRun }, passed: true }
      : keepResults
        ? judgeRun(expected, { scriptName: entry.recordedName, ...(expectations ? { expectations } : {}), partial: options.only !== undefined, notRun })
        : judgeBySuccess(replayed.ran, replayed.failed, notRun);
    if (json) {
      replayed.results.forEach((result, index) =>
        out(JSON.stringify({ type: "result", script: entry.name, ...jsonResult(result), match: outcome.verdict!.matches[index] ?? null })),
      );
      for (const difference of outcome.verdict.differences) {
        if (difference.kind === "missing") out(JSON.stringify({ type: "missing", script: entry.name, expected: difference.expected, match: false }));
      }
    }
    if (single && !json) note(summaryLine(replayed, style));
    if (entry.expectationFile && options.update) {
      if (interrupts.received) {
        outcome.problem = `interrupted: ${entry.expectationFile} was not written.`;
        note(`Not written: interrupted, so ${entry.expectationFile} is unchanged.`);
      } else {
        const recorded = await recordExpectations({
          file: entry.expectationFile,
          scriptName: entry.recordedName,
          expected,
          ...(expectations ? { previous: expectations } : {}),
          acceptRefused: options.acceptRefused ?? false,
        });
        note(recorded.message);
        if (!recorded.written) outcome.problem = "its expectations were not written";
      }
    } else if (entry.expectationFile && outcome.verdict.differences.length) {
      note(formatDifferences(outcome.verdict.differences, { script: entry.name, expectations: entry.expectationFile, ...(options.showAll ? { limit: Infinity } : {}) }));
    } else if (entry.expectationFile) {
      note(`All ${expected.length} result(s) match ${entry.expectationFile}.`);
    }
    outcome.durationMs = performance.now() - started;
    return outcome;
  };

  const outcomes: ScriptOutcome[] = [];
  const queue = [...prepared];
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined && !interrupts.signal.aborted; next = queue.shift()) {
      const outcome = await runOne(next);
      outcomes.push(outcome);
      if (!single) reportScript(outcome, say, style);
      else if (outcome.problem && !outcome.run) say(`clio replay: ${outcome.problem}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(options.jobs ?? 1, prepared.length) }, worker));
  } finally {
    interrupts.dispose();
  }

  const ordered = prepared.flatMap((item) => outcomes.filter((outcome) => outcome.entry === item.entry));
  if (options.junit) await writeFile(options.junit, junitReport(ordered.map(junitSuiteFor), "clio replay"));
  const totals = closingTotals(ordered, prepared.length);
  const closing = `${totals.scripts.passed} passed, ${totals.scripts.failed} failed (scripts); ${totals.commands.passed} passed, ${totals.commands.failed} failed (commands); ${((performance.now() - began) / 1000).toFixed(1)} s`;
  if (json)
    out(
      JSON.stringify({
        type: "summary",
        scripts: totals.scripts,
        commands: totals.commands,
        interrupted: interrupts.received ?? null,
        durationMs: Math.round(performance.now() - began),
      }),
    );
  say(interrupts.received ? `Interrupted by ${interrupts.received}: ${closing}` : closing);
  if (interrupts.received) return INTERRUPT_EXIT_CODES[interrupts.received];
  if (options.review) {
    const targets = ordered.flatMap((outcome) => {
      const recorded = prepared.find((item) => item.entry === outcome.entry)?.expectations;
      return outcome.run && recorded && outcome.verdict?.differences.length
        ? [{ script: outcome.entry.name, file: outcome.entry.expectationFile!, expectations: recorded, actual: outcome.run.expected }]
        : [];
    });
    const { reviewDifferences } = await import("./replay-review.js");
    const left = await reviewDifferences(targets, say);
    return left === 0 && ordered.every((outcome) => outcome.verdict && outcome.problem === undefined) ? 0 : 1;
  }
  if (!single || options.expect) return totals.scripts.failed ? 1 : 0;
  const only = ordered[0];
  return only?.run && !only.problem && only.run.outcome.failed === 0 && !only.run.outcome.stopped ? 0 : 1;
}

/** A script passes when it ran, nothing about it was a problem, and its verdict passed. */
export function scriptPassed(outcome: ScriptOutcome): boolean {
  return outcome.problem === undefined && outcome.verdict !== undefined && outcome.verdict.passed;
}

function closingTotals(outcomes: ScriptOutcome[], planned: number): { scripts: { passed: number; failed: number }; commands: { passed: number; failed: number } } {
  const passedScripts = outcomes.filter(scriptPassed).length;
  const commands = { passed: 0, failed: 0 };
  for (const outcome of outcomes) {
    commands.passed += outcome.verdict?.commands.passed ?? 0;
    commands.failed += outcome.verdict?.commands.failed ?? 0;
  }
  // Scripts an interruption kept from running count as failed.
  return { scripts: { passed: passedScripts, failed: planned - passedScripts }, commands };
}

function reportScript(outcome: ScriptOutcome, say: Output, style: ReturnType<typeof createStyle>): void {
  const passed = scriptPassed(outcome);
  const counts = outcome.verdict ? `  ${outcome.verdict.commands.passed + outcome.verdict.commands.failed} commands` : "";
  const status = passed ? style.green("PASS") : style.red("FAIL");
  say(`${status} ${outcome.entry.name}${counts}  ${(outcome.durationMs / 1000).toFixed(1)} s`);
  for (const line of outcome.lines) say(line.replace(/^/gm, "  "));
  if (outcome.problem && !outcome.lines.length) say(`  ${outcome.problem}`);
}
