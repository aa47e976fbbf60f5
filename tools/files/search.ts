/**
 * Finding files by glob (fast-glob) and, optionally, lines by regular expression — both
 * respecting .gitignore and hiding `.git`, both capped.
 */
import path from "node:path";
import vm from "node:vm";
import fastGlob from "fast-glob";
import { ToolError } from "../errors.js";
import type { FileContext } from "./context.js";
import { joinRelative, openFolder } from "./list.js";
import { binaryType, SNIFF_BYTES } from "./text.js";

export const SEARCH_FILE_LIMIT = 500;
export const SEARCH_HIT_LIMIT = 200;
/** Files considered by one content search. */
const SCANNED_FILE_LIMIT = 50_000;
/** Larger files are skipped by content search. */
const SCANNED_MAX_BYTES = 4 * 1024 * 1024;
const HIT_TEXT_LENGTH = 300;
const READ_BATCH = 16;

export interface SearchHit {
  path: string;
  line: number;
  text: string;
}

export interface SearchResult {
  folder: string;
  /** The glob as applied (a pattern without `/` matches at any depth). */
  glob: string;
  /** Matching files (workspace-relative). With a content search: the files that had hits. */
  files: string[];
  hits?: SearchHit[];
  truncated: boolean;
  /** Files a content search passed over, by reason. */
  skipped: { binary: number; large: number };
}

/** Compiles a content pattern; `(?i)` in front makes it case-insensitive. */
export function compileContentPattern(source: string): RegExp {
  const insensitive = source.startsWith("(?i)");
  const body = insensitive ? source.slice(4) : source;
  try {
    return new RegExp(body, insensitive ? "i" : "");
  } catch (error) {
    throw new ToolError(
      "invalid_argument",
      `content is not a valid regular expression: ${(error as Error).message}.`,
      'Write a JavaScript regular expression, e.g. content="function\\s+main"; escape ( [ . * with a backslash to match them literally.',
    );
  }
}

/** True if a glob (escapes taken literally) is absolute or has a `..` segment. */
function leavesFolder(glob: string): boolean {
  const literal = glob.replace(/\\(.)/g, "$1");
  return path.isAbsolute(literal) || literal.split("/").includes("..");
}

/** Brace groups one glob may have, and the alternatives (separate walks) they may expand to. */
const BRACE_GROUPS_MAX = 10;
const GLOB_ALTERNATIVES_MAX = 256;

/** fast-glob's tasks for a glob (one per brace alternative with its own base), refusing floods: `{a,b}` twenty times is a million walks. */
function braceExpansion(glob: string): fastGlob.Task[] {
  const tooMany = new ToolError(
    "invalid_argument",
    `pattern ${glob.slice(0, 80)} expands to too many alternatives (at most ${GLOB_ALTERNATIVES_MAX}).`,
    'Use fewer braces, or one wider glob such as pattern="**/*.{ts,tsx}".',
  );
  if ((glob.match(/(?<!\\)\{/g) ?? []).length > BRACE_GROUPS_MAX) throw tooMany;
  let tasks: fastGlob.Task[];
  try {
    tasks = fastGlob.generateTasks(glob);
  } catch {
    throw tooMany; // The brace expander's own limits (ranges over 1,000, deep nesting).
  }
  if (tasks.length > GLOB_ALTERNATIVES_MAX) throw tooMany;
  return tasks;
}

/**
 * The glob fast-glob runs: no absolute paths or `..`, also not once braces are expanded
 * (`.{.,}/x` is `../x`, `{/etc,x}/*` reaches `/etc`); a pattern without `/` matches at any depth.
 */
export function normalizeGlob(pattern: string): string {
  const trimmed = pattern.trim();
  if (trimmed === "") throw new ToolError("invalid_argument", "pattern is empty.", 'Give a glob such as pattern="**/*.ts" or pattern="*.md".');
  const expanded = braceExpansion(trimmed).flatMap((task) => [task.base, ...task.patterns]);
  if ([trimmed, ...expanded].some(leavesFolder)) {
    throw new ToolError(
      "outside_workspace",
      `pattern ${trimmed} reaches outside the search folder.`,
      'Use a relative glob and the path parameter for the folder, e.g. path="src" pattern="*.ts".',
    );
  }
  const relative = trimmed.replace(/^(\.\/)+/, "");
  return relative.includes("/") ? relative : `**/${relative}`;
}

export async function searchFiles(context: FileContext, pattern: string, options: { folder?: string; content?: string } = {}): Promise<SearchResult> {
  const glob = normalizeGlob(pattern);
  const matcher = options.content === undefined ? undefined : compileContentPattern(options.content);
  const folder = await openFolder(context, options.folder ?? ".");
  const fileLimit = matcher === undefined ? SEARCH_FILE_LIMIT : SCANNED_FILE_LIMIT;
  const files: string[] = [];
  let truncated = false;
  const stream = fastGlob.stream(glob, {
    cwd: folder.absolute,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    suppressErrors: true,
    fs: folder.rules.fastGlobAdapter(),
  });
  for await (const entry of stream as AsyncIterable<string>) {
    // Defence in depth: whatever the walk yields must lie below the folder.
    if (path.isAbsolute(entry) || entry.split("/").includes("..")) continue;
    if (context.workspace.isHidden(joinRelative(folder.relative, entry))) continue;
    if (files.length >= fileLimit) {
      truncated = true;
      break;
    }
    files.push(entry);
  }
  files.sort();
  const result: SearchResult = { folder: folder.relative, glob, files: files.map((file) => joinRelative(folder.relative, file)), truncated, skipped: { binary: 0, large: 0 } };
  if (matcher === undefined) return result;

  const hits: SearchHit[] = [];
  const withHits: string[] = [];
  // Files are read a batch at a time (in parallel) and scanned in order.
  for (let start = 0; start < files.length && hits.length <= SEARCH_HIT_LIMIT; start += READ_BATCH) {
    const batch = files.slice(start, start + READ_BATCH);
    const texts = await Promise.all(batch.map((file) => readSearchable(context, path.join(folder.absolute, file), result.skipped)));
    const relatives = batch.map((file) => joinRelative(folder.relative, file));
    const lines = texts.map((text) => (text === undefined ? [] : text.split(/\r?\n/)));
    matchingLines(matcher, lines, SEARCH_HIT_LIMIT + 1 - hits.length, relatives).forEach((found, index) => {
      for (const line of found) {
        const content = lines[index]![line]!;
        hits.push({ path: relatives[index]!, line: line + 1, text: content.length > HIT_TEXT_LENGTH ? `${content.slice(0, HIT_TEXT_LENGTH)} …` : content });
      }
      if (found.length > 0) withHits.push(relatives[index]!);
    });
  }
  if (hits.length > SEARCH_HIT_LIMIT) {
    hits.length = SEARCH_HIT_LIMIT;
    result.truncated = true;
  }
  return { ...result, files: withHits, hits };
}

/** How long a content pattern may take over one batch of files: a regular expression that backtracks catastrophically never returns on its own. */
const MATCH_TIMEOUT_MS = 5000;
const matchContext = vm.createContext({});
const matchScript = new vm.Script(`(() => {
  const found = [];
  let left = limit;
  for (const lines of files) {
    const hits = [];
    for (let i = 0; i < lines.length && left > 0; i++) if (regex.test(lines[i])) { hits.push(i); left--; }
    found.push(hits);
  }
  return found;
})()`);

/**
 * For each file's lines, the indexes of the lines `matcher` matches, up to `limit` in all. Runs
 * as a vm script under a time limit, which V8 can interrupt mid-match.
 */
function matchingLines(matcher: RegExp, files: string[][], limit: number, relatives: string[]): number[][] {
  Object.assign(matchContext, { regex: matcher, files, limit });
  try {
    return matchScript.runInContext(matchContext, { timeout: MATCH_TIMEOUT_MS }) as number[][];
  } catch (error) {
    if ((error as { code?: string }).code !== "ERR_SCRIPT_EXECUTION_TIMEOUT") throw error;
    const where = relatives.length === 1 ? relatives[0] : `one of ${relatives.join(", ")}`;
    throw new ToolError(
      "invalid_argument",
      `content ${matcher.source} took over ${MATCH_TIMEOUT_MS / 1000} s on ${where}: the regular expression backtracks catastrophically.`,
      "Simplify it: avoid nested or overlapping repetition such as (a+)+ or (.*)*; anchor it or use plain text.",
    );
  } finally {
    Object.assign(matchContext, { regex: undefined, files: undefined });
  }
}

async function readSearchable(context: FileContext, absolute: string, skipped: SearchResult["skipped"]): Promise<string | undefined> {
  const stat = await context.fs.stat(absolute).catch(() => undefined);
  if (stat === undefined || !stat.isFile()) return undefined;
  if (stat.size > SCANNED_MAX_BYTES) {
    skipped.large++;
    return undefined;
  }
  const data = await context.fs.readFile(absolute).catch(() => undefined);
  if (data === undefined) return undefined;
  if (binaryType(data.subarray(0, SNIFF_BYTES)) !== undefined) {
    skipped.binary++;
    return undefined;
  }
  return data.toString("utf8");
}
