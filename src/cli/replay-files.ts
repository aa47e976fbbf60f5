/**
 * Which scripts a `clio replay` call runs: names and globs (quoted, so clio expands them), each
 * with its expectation file — the one `--expect FILE` names for a single script, or by
 * convention `NAME.expected.json` beside each script when `--expect` is given without a file.
 */
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import type { ScriptRun } from "../replay/run-script.js";
import type { ScriptVerdict } from "../replay/verdict.js";

export interface ScriptEntry {
  /** The file to read (`-` for standard input). */
  file: string;
  /** The script as reports name it: the path as given or as the glob found it. */
  name: string;
  /** The name an expectation file records: the file name without folders. */
  recordedName: string;
  expectationFile?: string;
}

/** `notes.md` → `notes.expected.json`, beside it. */
export function conventionalExpectationFile(script: string): string {
  const extension = path.extname(script);
  return path.join(path.dirname(script), `${path.basename(script, extension)}.expected.json`);
}

export async function resolveScripts(patterns: string[], expect: string | boolean | undefined): Promise<{ entries: ScriptEntry[] } | { error: string }> {
  const given = patterns.length === 0 ? ["-"] : patterns;
  if (given.includes("-") && given.length > 1) return { error: "standard input (-) is a script of its own: give it alone, or give files." };
  const files: string[] = [];
  for (const pattern of given) {
    if (pattern === "-" || existsSync(pattern)) {
      files.push(pattern);
      continue;
    }
    // fast-glob is loaded only for a name that is no file: a replay of named scripts does without it.
    const { default: fg } = await import("fast-glob");
    if (!fg.isDynamicPattern(pattern)) {
      files.push(pattern);
      continue;
    }
    const found = (await fg(pattern, { onlyFiles: true, dot: false, followSymbolicLinks: true })).sort();
    if (found.length === 0) return { error: `${pattern} matches no file. Check the pattern (quote it so the shell leaves it to clio), or name the scripts.` };
    files.push(...found);
  }
  const seen = new Map<string, string>();
  const byName = new Map<string, string>();
  const entries: ScriptEntry[] = [];
  for (const file of files) {
    const real = file === "-" || !existsSync(file) ? path.resolve(file) : realpathSync(file);
    if (seen.has(real)) continue; // the same script named twice (by name and by a glob) runs once
    seen.set(real, file);
    const recordedName = file === "-" ? "-" : path.basename(file);
    const other = byName.get(recordedName);
    if (other !== undefined) {
      return { error: `${other} and ${file} have the same file name, which expectation files and reports name scripts by: rename one, or replay them in separate calls.` };
    }
    byName.set(recordedName, file);
    entries.push({ file, name: file, recordedName });
  }
  if (typeof expect === "string") {
    if (entries.length > 1)
      return {
        error: `--expect ${expect} names one expectation file, but ${entries.length} scripts were given: use --expect without a file to take NAME.expected.json beside each script.`,
      };
    entries[0]!.expectationFile = expect;
  } else if (expect === true) {
    if (entries.some((entry) => entry.file === "-")) return { error: "a script from standard input has no file to find its expectations beside: give --expect FILE." };
    for (const entry of entries) entry.expectationFile = conventionalExpectationFile(entry.file);
  }
  return { entries };
}

/** One script's outcome in a run of several. */
export interface ScriptOutcome {
  entry: ScriptEntry;
  run?: ScriptRun;
  verdict?: ScriptVerdict;
  /** Why the script could not run, or its expectations could not be written. */
  problem?: string;
  /** The text report, printed when the script is done. */
  lines: string[];
  durationMs: number;
}
