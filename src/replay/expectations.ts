/**
 * Expectation files: what a script's commands gave when it was recorded, normalised so a replay
 * in a fresh workspace matches, and the comparison of a new run against them.
 *
 *     { "version": 1, "script": "file-op.md", "normalisers": [...],
 *       "results": [ { "line": 3, "column": 1, "protocol": "FILE_OP", "action": "read",
 *                      "ok": true, "description": "...", "output": ["line 1", "line 2"] } ] }
 *
 * Outputs are kept as arrays of lines so the file reads (and diffs) well in version control.
 */
import { z } from "zod";
import { parseJsonText } from "../config/json-text.js";
import type { CommandResult } from "../manager/result.js";
import { matchResults } from "./matching.js";
import { NORMALISER_NAMES, normaliseText, unknownNormalisers, type NormaliseContext } from "./normalise.js";
import { compileRedactions, RedactionError, textMatches, type Redaction } from "./patterns.js";

/** The format version this clio writes; older or newer files are refused with a clear error. */
export const EXPECTATION_FORMAT_VERSION = 1;

export interface ExpectedResult {
  /** The command as the script writes it: with protocol and action, what results are matched by. */
  command?: string;
  /** Where the command stood when recorded (informative: results are matched by order and content). */
  line: number | null;
  column: number | null;
  protocol: string;
  action: string | null;
  ok: boolean;
  description: string;
  error?: { code: string; message: string };
  /** The output, normalised, one entry per line (empty for no output). */
  output: string[];
  /**
   * Set by hand for a command whose output depends on the machine (a test runner's report, a
   * tool's version): the output, and all but the first line of an error message, are recorded for
   * readers but not compared. `--update` keeps it.
   */
  ignoreOutput?: boolean;
}

export interface ExpectationFile {
  version: typeof EXPECTATION_FORMAT_VERSION;
  /** The script's file name (without folders). */
  script: string;
  /** The normalisers applied, in their order; remove a name to keep what it would replace. */
  normalisers: string[];
  /** The file's own rewrites: matches of `pattern` (a regular expression) become `placeholder`. */
  redactions?: Redaction[];
  results: ExpectedResult[];
}

const expectedResultSchema = z
  .object({
    command: z.string().optional(),
    line: z.number().int().positive().nullable(),
    column: z.number().int().positive().nullable(),
    protocol: z.string(),
    action: z.string().nullable(),
    ok: z.boolean(),
    description: z.string(),
    error: z.object({ code: z.string(), message: z.string() }).strict().optional(),
    output: z.array(z.string()),
    ignoreOutput: z.boolean().optional(),
  })
  .strict();

const expectationFileSchema = z
  .object({
    version: z.literal(EXPECTATION_FORMAT_VERSION),
    script: z.string(),
    normalisers: z.array(z.string()),
    redactions: z.array(z.object({ pattern: z.string(), placeholder: z.string() }).strict()).optional(),
    results: z.array(expectedResultSchema),
  })
  .strict();

/** An expectation file that cannot be used: not JSON, or not in this format. */
export class ExpectationFileError extends Error {}

function splitLines(text: string): string[] {
  return text === "" ? [] : text.split("\n");
}

/** A result as it is recorded: volatile parts normalised, run-specific fields (id, duration) left out. */
export function expectedFromResult(result: CommandResult, context: NormaliseContext, command?: string): ExpectedResult {
  const normalise = (text: string) => normaliseText(text, context);
  const expected: ExpectedResult = {
    ...(command === undefined ? {} : { command }),
    line: result.line ?? null,
    column: result.column ?? null,
    protocol: result.protocol,
    action: result.action,
    ok: result.ok,
    description: normalise(result.description),
    output: splitLines(normalise(result.output)),
  };
  if (result.error) expected.error = { code: result.error.code, message: normalise(result.error.message) };
  return expected;
}

/** A new result that keeps what the person wrote by hand in its recorded one: the ignoreOutput mark, and wildcards that still match. */
export function carriedOver(result: ExpectedResult, before: ExpectedResult): ExpectedResult {
  const carried: ExpectedResult = { ...result };
  if (before.ignoreOutput) carried.ignoreOutput = true;
  if (textMatches(before.description, result.description)) carried.description = before.description;
  if (before.error && result.error && before.error.code === result.error.code && textMatches(before.error.message, result.error.message))
    carried.error = { ...result.error, message: before.error.message };
  if (before.ignoreOutput || textMatches(before.output.join("\n"), result.output.join("\n"))) carried.output = before.output;
  return carried;
}

/**
 * The file to write for a run whose results are already in recorded form. `previous` (the file
 * being rewritten) passes on its normalisers and redactions, and for the commands it is matched
 * with, `ignoreOutput` marks and the wildcards (`[..]`, `...`) that still match.
 */
export function buildExpectationFile(script: string, results: ExpectedResult[], previous?: ExpectationFile): ExpectationFile {
  const carried = [...results];
  if (previous) {
    for (const pairing of matchResults(previous.results, results)) {
      if (pairing.expected !== undefined && pairing.actual !== undefined) carried[pairing.actual] = carriedOver(results[pairing.actual]!, previous.results[pairing.expected]!);
    }
  }
  return {
    version: EXPECTATION_FORMAT_VERSION,
    script,
    normalisers: previous ? [...previous.normalisers] : [...NORMALISER_NAMES],
    ...(previous?.redactions ? { redactions: previous.redactions } : {}),
    results: carried,
  };
}

export function serialiseExpectationFile(file: ExpectationFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** Reads an expectation file's text; `name` is used in the error messages. */
export function parseExpectationFile(text: string, name: string): ExpectationFile {
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    throw new ExpectationFileError(
      `${name}:${parsed.line}:${parsed.column}: invalid JSON: ${parsed.message} (${name} is not valid JSON). Fix it there, or rewrite it with --update.`,
    );
  }
  const document = parsed.value;
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    const holds = Array.isArray(document) ? "an array" : document === null ? "null" : `a ${typeof document}`;
    throw new ExpectationFileError(`${name} is not an expectation file: it holds ${holds}, not an object. Rewrite it with --update.`);
  }
  const version = (document as { version?: unknown } | null)?.version;
  if (typeof document === "object" && document !== null && version !== EXPECTATION_FORMAT_VERSION) {
    throw new ExpectationFileError(
      `${name} is in expectation format ${JSON.stringify(version ?? null)}; this clio reads format ${EXPECTATION_FORMAT_VERSION}. Rewrite it with --update.`,
    );
  }
  const checked = expectationFileSchema.safeParse(document);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const where = issue.path.length ? issue.path.join(".") : "the document";
    throw new ExpectationFileError(`${name} is not an expectation file: ${where}: ${issue.message}. Rewrite it with --update.`);
  }
  const file = checked.data as ExpectationFile;
  const unknown = unknownNormalisers(file.normalisers);
  if (unknown.length) {
    throw new ExpectationFileError(`${name}: unknown normaliser(s) ${unknown.map((entry) => JSON.stringify(entry)).join(", ")}. Known: ${NORMALISER_NAMES.join(", ")}.`);
  }
  try {
    compileRedactions(file.redactions ?? [], name);
  } catch (error) {
    if (error instanceof RedactionError) throw new ExpectationFileError(error.message);
    throw error;
  }
  return file;
}

/** How a run is normalised to be compared with (or recorded over) `file`: its normalisers and redactions. */
export function normalisingOf(file: ExpectationFile | undefined, name: string): Pick<NormaliseContext, "names" | "redactions"> {
  if (file === undefined) return {};
  return { names: file.normalisers, redactions: compileRedactions(file.redactions ?? [], name) };
}
