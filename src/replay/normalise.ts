/**
 * Normalisers: the volatile parts of a result (where the workspace is, times, durations, commit
 * ids, process ids) become placeholders, so a replay in a fresh workspace on another day matches
 * what was recorded. The list is small and documented in docs/scripts.md; each one is a named
 * rewrite applied in order.
 */
import os from "node:os";
import path from "node:path";
import { applyRedactions, type CompiledRedaction } from "./patterns.js";

/** Where the replay ran: paths that differ from one run to the next. */
export interface NormaliseContext {
  /** The workspace root (as given and as its real path, both are replaced). */
  workspaceRoots: string[];
  /** The system temp folder (default os.tmpdir()). */
  temporaryFolder?: string;
  /** The normalisers to apply, by name (default: all); see `checkNormaliserNames`. */
  names?: readonly string[];
  /** The expectation file's own redactions, applied after the normalisers. */
  redactions?: readonly CompiledRedaction[];
}

export interface Normaliser {
  name: string;
  /** What it replaces, for the docs and `--help`. */
  description: string;
  apply(text: string, context: NormaliseContext): string;
}

const MONTH = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const WEEKDAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function regexRewrite(name: string, description: string, pattern: RegExp, replacement: string): Normaliser {
  return { name, description, apply: (text) => text.replace(pattern, replacement) };
}

/** Longest first, so a root inside the temp folder becomes `<workspace>`, not `<tmp>/…`. */
function distinctByLength(paths: string[]): string[] {
  return [...new Set(paths.filter((entry) => entry.length > 1))].sort((left, right) => right.length - left.length);
}

export const NORMALISERS: readonly Normaliser[] = [
  {
    name: "workspace",
    description: "the workspace root (given or real path) → <workspace>",
    apply(text, context) {
      let result = text;
      for (const root of distinctByLength(context.workspaceRoots.flatMap((root) => [root, path.resolve(root)]))) {
        result = result.replace(new RegExp(`${escapeRegExp(root)}(?![\\w-]|\\.[\\w-])`, "g"), "<workspace>");
      }
      return result;
    },
  },
  {
    name: "temp",
    description: "a path in the system temp folder → <tmp> (its first, randomly named folder included)",
    apply(text, context) {
      let result = text;
      const folder = context.temporaryFolder ?? os.tmpdir();
      for (const root of distinctByLength([folder, path.resolve(folder), "/tmp", "/private/tmp"])) {
        result = result.replace(new RegExp(`${escapeRegExp(root)}(?:/[^\\s/"'\`:<>]+)?`, "g"), "<tmp>");
      }
      return result;
    },
  },
  regexRewrite("uuid", "UUIDs (123e4567-e89b-12d3-a456-426614174000) → <uuid>", /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g, "<uuid>"),
  regexRewrite(
    "timestamp",
    "ISO 8601 date-times, also the file-name form with - for : (2026-11-22T02:48:20.123Z) → <time>",
    /\b\d{4}-\d{2}-\d{2}[T ]\d{2}[:-]\d{2}(?:[:-]\d{2}(?:[.-]\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?/g,
    "<time>",
  ),
  regexRewrite(
    "date-text",
    "dates written out (Sun Nov 22 02:48:20 2026 +0000, 22 Nov 2026 …) → <time>",
    new RegExp(`\\b(?:${WEEKDAY},? )?(?:${MONTH} \\d{1,2}|\\d{1,2} ${MONTH})(?: \\d{4})?(?: \\d{2}:\\d{2}(?::\\d{2})?)?(?: \\d{4})?(?: (?:[+-]\\d{4}|GMT|UTC))?`, "g"),
    "<time>",
  ),
  regexRewrite("date", "plain dates (2026-11-22) → <date>", /\b\d{4}-\d{2}-\d{2}\b/g, "<date>"),
  regexRewrite("clock", "times of day (02:48:20, 02:48:20.123) → <clock>", /\b\d{2}:\d{2}:\d{2}(?:\.\d+)?\b/g, "<clock>"),
  regexRewrite("duration", "durations (12 ms, 1.5 s, 3 seconds, 250ms) → <duration>", /\b\d+(?:\.\d+)?\s?(?:ms|milliseconds?|s|secs?|seconds?)\b/g, "<duration>"),
  regexRewrite(
    "duration-field",
    'numbers in fields named for durations (duration_ms: 1.05, # duration_ms 107.7, "durationMs": 12) → <duration>',
    /\b(\w*(?:duration|_ms\b|Ms\b)\w*)(["']?(?:\s*[:=]\s*|[ \t]+))\d+(?:\.\d+)?/gi,
    "$1$2<duration>",
  ),
  regexRewrite(
    "port",
    "port numbers after a loopback or any-address host (127.0.0.1:43121, localhost:8080, [::1]:5000) or the word port (port 43121) → <port>",
    /(\b(?:localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0)|\[::1?\])(:)\d{2,5}\b|\b(port)([ =:#]\s?)\d{2,5}\b/gi,
    "$1$3$2$4<port>",
  ),
  regexRewrite(
    "epoch",
    "seconds (10 digits) and milliseconds (13 digits) since 1970 between the years 2001 and 2040 (1764081234) → <epoch>",
    /(?<![\w.])(?:1\d{9}|2[01]\d{8}|1\d{12}|2[01]\d{11})(?![\w.])/g,
    "<epoch>",
  ),
  regexRewrite(
    "commit",
    "hexadecimal ids of 7 to 40 characters with both a digit and a letter a–f in them, or of exactly 7 or 40 digits (commit ids, hashes) → <commit>; words (defaced, facade) and other numbers stay",
    /\b(?:(?=[0-9]*[a-f])(?=[a-f]*[0-9])[0-9a-f]{7,40}|[0-9]{7}|[0-9]{40})\b(?!\.\d)/g,
    "<commit>",
  ),
  regexRewrite("pid", 'process ids after "pid" or "PID" (pid 4242) → pid <pid>', /\b(pid|PID)([ =:#]\s?)\d+\b/g, "$1$2<pid>"),
];

/** The names of every normaliser, in the order they apply. */
export const NORMALISER_NAMES: readonly string[] = NORMALISERS.map((normaliser) => normaliser.name);

/** The unknown names in a selection of normalisers (empty when all are known). */
export function unknownNormalisers(names: readonly string[]): string[] {
  return names.filter((name) => !NORMALISER_NAMES.includes(name));
}

/** Applies the selected normalisers (all by default) in their order, then the redactions. */
export function normaliseText(text: string, context: NormaliseContext): string {
  const selected = context.names === undefined ? NORMALISERS : NORMALISERS.filter((normaliser) => context.names!.includes(normaliser.name));
  const normalised = selected.reduce((current, normaliser) => normaliser.apply(current, context), text);
  return context.redactions?.length ? applyRedactions(normalised, context.redactions) : normalised;
}
