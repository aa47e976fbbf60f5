/** A replayed script as a JUnit test suite: one test case per command, failures with their difference. */
import { formatDifferences } from "../replay/difference-report.js";
import type { Difference } from "../replay/compare.js";
import type { JunitCase, JunitSuite } from "../replay/junit.js";
import type { ScriptOutcome } from "./replay-files.js";

function caseName(result: { line?: number | null; column?: number | null; protocol: string; action: string | null }, command: string | undefined): string {
  const where = result.line === undefined || result.line === null ? "" : `${result.line}:${result.column ?? "?"} `;
  const label = result.action ? `${result.protocol}.${result.action}` : result.protocol;
  const written = command === undefined ? "" : ` ${command.length > 80 ? `${command.slice(0, 79)}…` : command}`;
  return `${where}${label}${written.replace(/\s+/g, " ")}`;
}

export function junitSuiteFor(outcome: ScriptOutcome): JunitSuite {
  const suite: JunitSuite = { name: outcome.entry.name, file: outcome.entry.file, time: outcome.durationMs / 1000, cases: [] };
  const expectations = outcome.entry.expectationFile ?? "";
  const report = (differences: Difference[]) => formatDifferences(differences, { script: outcome.entry.name, expectations, limit: Infinity });
  if (outcome.problem && !outcome.run) {
    suite.cases.push({ name: "run", failure: { message: outcome.problem, text: outcome.problem } });
    return suite;
  }
  const { run, verdict } = outcome;
  if (!run || !verdict) return suite;
  run.outcome.results.forEach((result, index) => {
    const entry: JunitCase = { name: caseName(result, run.outcome.commands[index]), time: result.durationMs / 1000 };
    const own = verdict.differences.filter((difference) => (difference.kind === "result" || difference.kind === "unexpected") && difference.index === index);
    if (own.length) entry.failure = { message: `${entry.name} differs from ${expectations}`, text: report(own) };
    else if (verdict.matches[index] === null && !result.ok)
      entry.failure = { message: `${result.error?.code ?? "failed"}: ${result.error?.message ?? result.description}`, text: result.output || (result.error?.message ?? "") };
    suite.cases.push(entry);
  });
  for (const difference of verdict.differences) {
    if (difference.kind === "missing")
      suite.cases.push({ name: caseName(difference.expected, difference.expected.command), failure: { message: "recorded but not run", text: report([difference]) } });
    if (difference.kind === "script") suite.cases.push({ name: "expectation file", failure: { message: "recorded for another script", text: report([difference]) } });
  }
  if (outcome.problem) suite.cases.push({ name: "expectations", failure: { message: outcome.problem, text: outcome.lines.join("\n") } });
  return suite;
}
