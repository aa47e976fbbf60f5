/** How `clio fuzz` reports a property: its line with statistics, and a failure with its reproduction. */
import type { FuzzFailure, FuzzOutcome } from "../fuzz/protocol-fuzz.js";

const LONGEST_SHOWN_SCRIPT = 2_000;

export interface FuzzCommandOptions {
  runs?: number;
  seed?: number;
  target: "grammar" | "protocols" | "all";
  protocol?: string;
  /** Do not count internal_error results as failures. */
  allowInternalErrors?: boolean;
  /** A time budget in seconds for the whole run, shared by the properties. */
  time?: number;
  /** A folder of saved failures: checked first, and new shrunk cases written there. */
  corpus?: string;
  /** Write a JUnit XML report here. */
  junit?: string;
  /** A module exporting `grammar` (parse, print, scan) to check the grammar laws against instead of clio's. */
  grammar?: string;
}

/** `invalid_path 40, not_found 12`: counts by code, the most frequent first. */
function byCode(errors: Record<string, number>): string {
  return Object.entries(errors)
    .sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]))
    .map(([code, count]) => `${code} ${count}`)
    .join(", ");
}

/** `ok     FILE_OP  100 runs  (commands: …; errors: …)  4.1 s`, or for a grammar law its statistics. */
export function formatOutcome(outcome: FuzzOutcome): string {
  const status = outcome.failure ? "FAILED" : "ok";
  const { handled, gated, rejected, errors } = outcome.counts;
  const errorCodes = byCode(errors);
  let counts =
    handled + gated + rejected ? `  (commands: ${handled} handled, ${rejected} rejected by checks, ${gated} gated; ${errorCodes ? `errors: ${errorCodes}` : "no errors"})` : "";
  const statistics = outcome.statistics;
  if (statistics) {
    const errorText = byCode(statistics.errors) ? `, errors: ${byCode(statistics.errors)}` : ", no syntax errors";
    counts = `  (commands ${statistics.commands}, mentions ${statistics.mentions}${errorText}${statistics.chunks ? `, chunks ${statistics.chunks}` : ""})`;
  }
  const time = outcome.durationMs ? `  ${(outcome.durationMs / 1000).toFixed(1)} s` : "";
  return `${status.padEnd(7)}${outcome.target}  ${outcome.runs} runs${counts}${time}`;
}

const quote = (value: string) => (/^[A-Za-z0-9_./:@%+=-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);

/** The command that reruns exactly this property, every option of the run repeated. */
export function rerunLine(failure: FuzzFailure, options: FuzzCommandOptions, seed: number): string {
  const parts = ["clio fuzz", "--target", failure.kind === "grammar" ? "grammar" : "protocols"];
  if (failure.kind === "protocol") parts.push("--protocol", failure.target);
  parts.push("--seed", String(seed));
  if (options.time) parts.push("--time", String(options.time));
  else parts.push("--runs", String(failure.runs));
  if (options.allowInternalErrors) parts.push("--allow-internal-errors");
  if (options.grammar) parts.push("--grammar", quote(options.grammar));
  if (options.corpus) parts.push("--corpus", quote(options.corpus));
  if (options.junit) parts.push("--junit", quote(options.junit));
  return parts.join(" ");
}

export async function formatFailure(failure: FuzzFailure, rerun: string, savedCase?: string, strict = true): Promise<string> {
  const lines = [``, `✗ ${failure.target} failed (seed ${failure.seed}${failure.path ? `, path ${failure.path}` : ""}):`];
  lines.push(...failure.problem.split("\n").map((line) => `  ${line}`));
  const shown = failure.script.length > LONGEST_SHOWN_SCRIPT ? `${failure.script.slice(0, LONGEST_SHOWN_SCRIPT)}… (${failure.script.length} characters)` : failure.script;
  lines.push(failure.kind === "grammar" ? "  counterexample (shrunk):" : "  counterexample (a one-line script):", ...shown.split("\n").map((line) => `    ${line}`));
  if (failure.kind !== "grammar") {
    const { reproductionFor } = await import("../fuzz/protocol-fuzz.js");
    const { command } = await reproductionFor(failure, { strict });
    lines.push("  reproduce it in a fresh sandbox (kept for you; it says whether the property still fails):", `    ${command}`);
  }
  if (savedCase) lines.push(`  saved in the corpus: ${savedCase} (checked first on every run with --corpus; remove it once fixed)`);
  lines.push(`  rerun the property: ${rerun}`);
  return lines.join("\n");
}
