/**
 * `--expect FILE` (and `--update`) of the replay commands: reading the expectation file before a
 * run, and after it writing the results as the file or comparing them with it.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { formatDifferences } from "../replay/difference-report.js";
import { compareResults } from "../replay/compare.js";
import {
  buildExpectationFile,
  ExpectationFileError,
  parseExpectationFile,
  serialiseExpectationFile,
  type ExpectationFile,
  type ExpectedResult,
} from "../replay/expectations.js";

/**
 * The expectations in `file`. With `update` it is about to be rewritten: an unreadable or
 * damaged one gives none, a readable one keeps its hand-set ignoreOutput marks. Otherwise a file
 * that cannot be read or parsed gives a message saying why.
 */
export async function readExpectations(file: string, update: boolean): Promise<{ expectations?: ExpectationFile } | { error: string }> {
  if (update) {
    const expectations = await readFile(file, "utf8")
      .then((previous) => parseExpectationFile(previous, file))
      .catch(() => undefined);
    return expectations === undefined ? {} : { expectations };
  }
  try {
    return { expectations: parseExpectationFile(await readFile(file, "utf8"), file) };
  } catch (error) {
    if (error instanceof ExpectationFileError) return { error: error.message };
    const code = (error as NodeJS.ErrnoException).code;
    return { error: `Cannot read the expectation file ${file}: ${code === "ENOENT" ? "no such file (write it with --update)" : (error as Error).message}.` };
  }
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
}

/**
 * After a run: with `update`, writes its results as the expectation file; otherwise compares
 * them with the expectations and reports any difference. True when written or all matched.
 */
export async function settleExpectations(options: SettleOptions, write: (text: string) => void): Promise<boolean> {
  const { file, scriptName, expected, expectations } = options;
  if (options.update) {
    await mkdir(path.dirname(path.resolve(file)), { recursive: true });
    await writeFile(file, serialiseExpectationFile(buildExpectationFile(scriptName, expected, expectations)));
    write(`Wrote ${expected.length} expected result(s) to ${file}.`);
    return true;
  }
  if (expectations === undefined) return true;
  const differences = compareResults(expectations, scriptName, expected);
  if (differences.length > 0) {
    write(formatDifferences(differences, { script: options.script, expectations: file }));
    return false;
  }
  write(`All ${expected.length} result(s) match ${file}.`);
  return true;
}
