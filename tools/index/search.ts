/**
 * Ranked search over a CodeIndex: BM25 over code-aware tokens, definitions of symbols named in
 * the query lifted (an exact symbol name ranks its definition first), optional hybrid ranking
 * with vectors, and snippets read from the files at the lines that match best.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import type { CodeIndex } from "./code-index.js";
import { decodeText } from "./file-record.js";
import type { ScoreBoard } from "./postings.js";
import type { IndexedFile } from "./store.js";
import { tokenize } from "./tokenize.js";

export interface SearchOptions {
  /** Most hits to return (default 10). */
  limit?: number;
  /** Only files under this folder or matching this glob (`src/`, `*.ts`, `src/**\/*.go`). */
  path?: string;
  /** Only files of this language (`typescript`, `python`, `go`, ...). */
  language?: string;
  /** Lines of snippet per hit (default 12). */
  contextLines?: number;
}

export interface SearchHit {
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  language: string;
  /** The definition in the chunk that best matches the query, if any (`Class.method`). */
  symbol?: string;
  /** The lines shown, from `snippetStartLine`. */
  snippet: string;
  snippetStartLine: number;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Things the caller should know (a shortened query, an empty filter). */
  notes: string[];
}

export const MAX_QUERY_TERMS = 32;
const HITS_PER_FILE = 2;
const EXACT_QUERY_BOOST = 1_000_000;
const GENERATED_PATH = /(^|\/)(dist|build|out|target|vendor|third_party|node_modules|generated)\//;

export async function searchIndex(index: CodeIndex, query: string, options: SearchOptions = {}): Promise<SearchResult> {
  const limit = options.limit ?? 10;
  const notes: string[] = [];
  const trimmed = query.trim();
  if (trimmed === "") {
    throw new ToolError("invalid_argument", "The search query is empty.", 'Give words or an identifier to look for, e.g. query="parse config file".');
  }
  const terms = queryTerms(index, trimmed, notes);
  const scores = index.postings.score(terms);
  if (index.options.embed !== undefined) await blendSemantic(index, trimmed, scores);
  boostDefinitions(index, trimmed, scores);
  const accept = fileFilter(options);
  const chosen: Array<[number, number]> = [];
  const perFile = new Map<string, number>();
  // Most hits come from the best few; rank the rest only if filters need more.
  const best = scores.best(Math.max(100, limit * HITS_PER_FILE * 8));
  function* ranked(): Generator<[number, number]> {
    yield* best;
    if (best.length === scores.size) return;
    const seen = new Set(best.map(([id]) => id));
    yield* scores
      .entries()
      .filter(([id]) => !seen.has(id))
      .sort((left, right) => right[1] - left[1]);
  }
  for (const entry of ranked()) {
    const ref = index.postings.ref(entry[0]);
    const file = index.files.get(ref.path);
    if (file === undefined || !accept(file)) continue;
    const count = perFile.get(ref.path) ?? 0;
    if (count >= HITS_PER_FILE) continue;
    perFile.set(ref.path, count + 1);
    chosen.push(entry);
    if (chosen.length >= limit) break;
  }
  scores.release();
  if (chosen.length === 0 && (options.path !== undefined || options.language !== undefined)) {
    notes.push("No indexed file matched the path or language filter.");
  }
  const queryTokens = new Set(tokenize(trimmed));
  const hits = await Promise.all(chosen.map(([id, score]) => makeHit(index, id, score, queryTokens, options.contextLines ?? 12)));
  return { hits, notes };
}

/** The query's distinct known terms (by id) with weights; a long query keeps its most distinctive terms. */
function queryTerms(index: CodeIndex, query: string, notes: string[]): Map<number, number> {
  const tokens = tokenize(query);
  const terms = new Map<number, number>();
  for (const token of tokens) {
    const id = index.dictionary.lookup(token);
    if (id !== undefined) terms.set(id, Math.min(3, (terms.get(id) ?? 0) + 1));
  }
  if (tokens.length === 0) {
    throw new ToolError("invalid_argument", `The query "${query.slice(0, 80)}" has no searchable words.`, "Use identifiers or words of two or more letters.");
  }
  if (terms.size > MAX_QUERY_TERMS) {
    const kept = [...terms].sort((left, right) => index.postings.idf(right[0]) - index.postings.idf(left[0])).slice(0, MAX_QUERY_TERMS);
    notes.push(`The query had ${new Set(tokens).size} distinct terms (${query.length} characters); the ${MAX_QUERY_TERMS} most distinctive were used.`);
    return new Map(kept);
  }
  return terms;
}

/** Lifts the chunks that define identifiers named in the query; a query that is one symbol puts its definition first. */
function boostDefinitions(index: CodeIndex, query: string, scores: ScoreBoard): void {
  const single = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$~][\w$]*)*$/.test(query);
  const top = scores.max();
  const identifiers = new Set(query.match(/[A-Za-z_$][\w$]*/g) ?? []);
  for (const identifier of identifiers) {
    if (identifier.length < 3) continue;
    const definitions = index.definitions(identifier);
    const parent = single && /(\.|::|#)/.test(query) ? query.split(/\.|::|#/).slice(-2, -1)[0] : undefined;
    for (const { path: filePath, symbol } of definitions) {
      const exact = symbol.name === identifier;
      const isLast = single && query.endsWith(identifier);
      let boost: number;
      if (isLast && (parent === undefined || symbol.parent === parent)) {
        boost = exact ? EXACT_QUERY_BOOST : EXACT_QUERY_BOOST / 2;
        // Among equal definitions, the source wins over build output and vendored copies.
        if (GENERATED_PATH.test(filePath)) boost /= 4;
      }
      else boost = (exact ? 0.6 : 0.3) * Math.max(top, 1);
      const id = chunkAt(index, filePath, symbol.line);
      if (id !== undefined) scores.add(id, boost);
    }
  }
}

function chunkAt(index: CodeIndex, filePath: string, line: number): number | undefined {
  for (const id of index.postings.idsOf(filePath)) {
    const { chunk } = index.postings.ref(id);
    if (chunk.startLine <= line && chunk.endLine >= line) return id;
  }
  return undefined;
}

/** Hybrid ranking: adds the cosine similarity of chunk and query vectors to the normalized BM25 score. */
async function blendSemantic(index: CodeIndex, query: string, scores: ScoreBoard): Promise<void> {
  const [queryVector] = await index.options.embed!([query]);
  if (queryVector === undefined) return;
  const weight = index.options.semanticWeight ?? 0.5;
  // Scores are scaled so the best lexical score counts as (1 - weight) against weight for a perfect match.
  const top = scores.max();
  const scale = top > 0 ? top / (1 - weight) : 1;
  for (const filePath of index.files.keys()) {
    for (const id of index.postings.idsOf(filePath)) {
      const vector = index.vectorOf(filePath, index.postings.ref(id).index);
      const similarity = vector === undefined ? 0 : Math.max(0, cosine(queryVector, vector));
      if (similarity > 0) scores.add(id, similarity * weight * scale);
    }
  }
}

export function cosine(left: number[], right: number[]): number {
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    dot += left[index]! * right[index]!;
    leftNorm += left[index]! ** 2;
    rightNorm += right[index]! ** 2;
  }
  return leftNorm === 0 || rightNorm === 0 ? 0 : dot / Math.sqrt(leftNorm * rightNorm);
}

/** A predicate for the path (folder prefix or glob) and language filters. */
export function fileFilter(options: { path?: string; language?: string }): (file: IndexedFile) => boolean {
  const language = options.language?.toLowerCase();
  let matchPath: ((filePath: string) => boolean) | undefined;
  if (options.path !== undefined && options.path.trim() !== "" && options.path !== ".") {
    const pattern = options.path.replace(/^\.\//, "").replace(/\/+$/, "");
    if (/[*?]/.test(pattern)) {
      const regex = globToRegExp(pattern);
      matchPath = (filePath) => regex.test(filePath) || regex.test(path.posix.basename(filePath));
    } else {
      matchPath = (filePath) => filePath === pattern || filePath.startsWith(`${pattern}/`);
    }
  }
  return (file) => (language === undefined || file.language === language) && (matchPath === undefined || matchPath(file.path));
}

function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let index = 0; index < glob.length; index++) {
    const character = glob[index]!;
    if (character === "*" && glob[index + 1] === "*") {
      source += glob[index + 2] === "/" ? "(?:.*/)?" : ".*";
      index += glob[index + 2] === "/" ? 2 : 1;
    } else if (character === "*") source += "[^/]*";
    else if (character === "?") source += "[^/]";
    else source += character.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

async function makeHit(index: CodeIndex, id: number, score: number, queryTokens: Set<string>, contextLines: number): Promise<SearchHit> {
  const { path: filePath, chunk } = index.postings.ref(id);
  const file = index.files.get(filePath)!;
  let lines: string[] = [];
  try {
    lines = decodeText(await fs.readFile(path.join(index.root, filePath))).text.split("\n");
  } catch {
    // The file went away since it was indexed; the hit still names it.
  }
  const window = bestWindow(lines, chunk.startLine, chunk.endLine, queryTokens, Math.max(1, contextLines));
  const hit: SearchHit = {
    path: filePath,
    startLine: chunk.startLine,
    endLine: chunk.endLine,
    score: Math.round(score * 1000) / 1000,
    language: file.language,
    snippet: lines.slice(window.start - 1, window.end).join("\n"),
    snippetStartLine: window.start,
  };
  const symbol = matchingSymbol(file, chunk.startLine, chunk.endLine, queryTokens) ?? chunk.symbol;
  if (symbol !== undefined) hit.symbol = symbol;
  return hit;
}

/** The `size`-line window of the chunk holding the most query-term matches. */
function bestWindow(lines: string[], start: number, end: number, queryTokens: Set<string>, size: number): { start: number; end: number } {
  if (end - start + 1 <= size) return { start, end };
  const matches: number[] = [];
  for (let line = start; line <= end; line++) matches.push(tokenize(lines[line - 1] ?? "").filter((token) => queryTokens.has(token)).length);
  let best = 0;
  let bestCount = -1;
  let running = 0;
  for (let offset = 0; offset < matches.length; offset++) {
    running += matches[offset]!;
    if (offset >= size) running -= matches[offset - size]!;
    if (offset >= size - 1 && running > bestCount) {
      bestCount = running;
      best = offset - size + 1;
    }
  }
  return { start: start + best, end: start + best + size - 1 };
}

function matchingSymbol(file: IndexedFile, start: number, end: number, queryTokens: Set<string>): string | undefined {
  let best: string | undefined;
  let bestOverlap = 0;
  for (const symbol of file.symbols) {
    if (symbol.line < start || symbol.line > end) continue;
    const overlap = tokenize(symbol.name).filter((token) => queryTokens.has(token)).length;
    if (overlap > bestOverlap) {
      bestOverlap = overlap;
      best = symbol.parent === undefined ? symbol.name : `${symbol.parent}.${symbol.name}`;
    }
  }
  return best;
}
