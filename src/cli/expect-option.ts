/**
 * `--expect FILE` (and `--update`) of the replay commands: reading the expectation file before a
 * run, and after it writing the results as the file — refusing to record refusals and
 * cancellations unless accepted — or comparing them with it.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { formatDifferences } from "../replay/difference-report.js";
import { buildExpectationFile, ExpectationFileError, parseExpectationFile, serialiseExpectationFile, type ExpectationFile, type ExpectedResult } from "../replay/expectations.js";
import { judgeRun, refusedResults } from "../replay/verdict.js";

/**
 * The expectations in `file`. With `update` it is about to be rewritten: a missing one gives
 * none, a readable one keeps its hand-set marks; a damaged one is an error (it may hold marks and
 * redactions a rewrite would lose). Otherwise a file that cannot be read or parsed gives a message saying why.
 */
export async function readExpectations(file: string, update: boolean): Promise<{ expectations?: ExpectationFile } | { error: string }> {
  try {
    return { expectations: parseExpectationFile(await readFile(file, "utf8"), file) };
  } catch (error) {
    if (error instanceof ExpectationFileError)
      return { error: update ? `${error.message} (--update keeps what the file sets by hand, so it must be readable: fix it or remove it first.)` : error.message };
    const code = (error as NodeJS.ErrnoException).code;
    if (update && code === "ENOENT") return {};
    return { error: `Cannot read the expectation file ${file}: ${code === "ENOENT" ? "no such file (write it with --update)" : (error as Error).message}.` };
  }
}

/** The file, written whole or not at all (a temporary file renamed over it). */
export async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, file);
}

export interface RecordOptions {
  file: string;
  scriptName: string;
  expected: ExpectedResult[];
  previous?: ExpectationFile;
  /** Record refused and cancelled commands too (`--accept-refused`). */
  acceptRefused?: boolean;
}

/** Writes the results as the expectation file, unless some were refused or cancelled; says what it did. */
export async function recordExpectations(options: RecordOptions): Promise<{ written: boolean; message: string }> {
  const refused = refusedResults(options.expected);
  if (refused.length > 0 && !options.acceptRefused) {
    const where = refused.slice(0, 5).map((result) => `${result.protocol}.${result.action ?? "?"} at ${result.line ?? "?"}:${result.column ?? "?"} (${result.error!.code})`);
    return {
      written: false,
      message:
        `Not written: ${refused.length} command(s) did not run — refused for want of permission or cancelled: ${where.join(", ")}${refused.length > 5 ? ", …" : ""}. ` +
        `${options.file} is unchanged. Record with a permission mode that lets them run (--permission-mode yolo), or pass --accept-refused to record the refusals as expected.`,
    };
  }
  await writeAtomically(options.file, serialiseExpectationFile(buildExpectationFile(options.scriptName, options.expected, options.previous)));
  return { written: true, message: `Wrote ${options.expected.length} expected result(s) to ${options.file}.` };
}

export interface SettleOptions {
  file: string;
  update: boolean;
  /** The script's name as the expectation file records it. */
  scriptName: string;
  /** The script as the difference report names it. */
  script: string;
  /** The run's results as expectations. */
  expected: ExpectedResult[];
  /** What `readExpectations` gave. */
  expectations?: ExpectationFile;
  acceptRefused?: boolean;
  /** Show every difference, not the first few. */
  showAll?: boolean;
}

/**
 * After a run: with `update`, writes its results as the expectation file; otherwise compares
 * them with the expectations and reports any difference. True when written or all matched.
 */
export async function settleExpectations(options: SettleOptions, write: (text: string) => void): Promise<boolean> {
  const { file, scriptName, expected, expectations } = options;
  if (options.update) {
    const recorded = await recordExpectations({ file, scriptName, expected, ...(expectations ? { previous: expectations } : {}), acceptRefused: options.acceptRefused ?? false });
    write(recorded.message);
    return recorded.written;
  }
  if (expectations === undefined) return true;
  const verdict = judgeRun(expected, { scriptName, expectations });
  if (!verdict.passed) {
    write(formatDifferences(verdict.differences, { script: options.script, expectations: file, ...(options.showAll ? { limit: Infinity } : {}) }));
    return false;
  }
  write(`All ${expected.length} result(s) match ${file}.`);
  return true;
}
