/**
 * Ranked search over a CodeIndex: BM25 over code-aware tokens for the query's words, names
 * written as one word, pieces and synonyms (query-plan.ts); files ranked on their evidence
 * together (rank-files.ts), with an exact symbol name putting its definitions first; optional
 * hybrid ranking with vectors; and snippets read from the files at the lines that match best,
 * with the reasons a file ranked.
 */
import path from "node:path";
import { ToolError } from "../errors.js";
import type { CodeIndex } from "./code-index.js";
import type { ScoreBoard } from "./score-board.js";
import { nameSpellings, planQuery, type QueryPlan } from "./query-plan.js";
import { rankFiles, type RankedFile, type RankingView } from "./rank-files.js";
import type { IndexEntry } from "./live-files.js";
import { bestWindow, linesOfFile } from "./snippets.js";
import type { SymbolDefinition, SymbolKind } from "./symbols.js";
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
  /** Why the file ranked: the query words it holds (a synonym counts for its word) and those it lacks. */
  matched: string[];
  missing: string[];
  /** The definition or file name that reads as the query, when one does. */
  nameMatch?: string;
  /** Other chunks of the same file that match, best first. */
  also: Array<{ startLine: number; endLine: number; symbol?: string }>;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Things the caller should know (a shortened query, an empty filter). */
  notes: string[];
}

export { MAX_QUERY_TERMS } from "./query-plan.js";
/** Other matching chunks listed per hit. */
const ALSO_PER_HIT = 3;
/** A name must read this well as the query to be given as the reason and to choose the snippet. */
const SHOWN_NAME_SCORE = 0.3;
/** Among definitions of one name, types and functions come before constants and variables. */
const DEFINITION_STRENGTH: Partial<Record<SymbolKind, number>> = { class: 2, interface: 2, struct: 2, trait: 2, enum: 2, type: 2, function: 2, method: 2, module: 1.5 };
const SYMBOL_QUERY = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$~][\w$]*)*$/;
/** Constructs of a regular expression that plain words do not use: `.*`, `\d`, `\(`, `[a-z]`, `(?:`, `a|b`, `^`, `$`. */
const REGEX_LOOK = /\\[dswbDSWB.()[\]]|\.[*+?]|\[\^?[^\]\s]+\]|\(\?|\S\|\S|^\^|\$$/;

/**
 * Ranks the files that answer `query`, best first: one hit per file, showing its best chunk or
 * the definition whose name reads as the query, and listing its other matching chunks.
 */
export async function searchIndex(index: CodeIndex, query: string, options: SearchOptions = {}): Promise<SearchResult> {
  const limit = options.limit ?? 10;
  const trimmed = query.trim();
  if (trimmed === "") {
    throw new ToolError("invalid_argument", "The search query is empty.", 'Give words or an identifier to look for, e.g. query="parse config file".');
  }
  const terms = index.queryTerms();
  const plan = planQuery(terms, trimmed);
  const notes = [...plan.notes];
  const exact = exactDefinitions(index, trimmed);
  const namedFile = index.files.has(trimmed.replace(/^\.\//, "")) ? trimmed.replace(/^\.\//, "") : undefined;
  if (plan.concepts.length === 0 && exact.size === 0 && namedFile === undefined) {
    const why =
      plan.foreign.length > 0
        ? `its words are in a script the index does not hold (${plan.foreign.slice(0, 3).join(" ")})`
        : "it has only common words (how, the, of, ...) or one-letter words";
    throw new ToolError(
      "invalid_argument",
      `The query "${trimmed.slice(0, 80)}" has no searchable words: ${why}.`,
      'Search with identifiers or distinctive English words as the code writes them, e.g. query="retry backoff" or query="parseConfig".',
    );
  }
  if (exact.size > 1) notes.push(`${[...exact.values()][0]!.name} is defined in ${exact.size} files; narrow with path= or write Parent.name.`);
  if (REGEX_LOOK.test(trimmed)) notes.push("The query was read as words, not as a regular expression; to search for a pattern, use EXEC with rg.");
  const scores = terms.score(plan.weights, plan.masks);
  const accept = fileFilter(options);
  let ranked: RankedFile[];
  try {
    if (index.options.embed !== undefined) {
      // Semantic ranking is optional: when the endpoint fails, the lexical ranking still answers.
      await blendSemantic(index, trimmed, scores).catch((error: unknown) => notes.push(`Semantic ranking was skipped: ${(error as Error).message}`));
    }
    const first = new Map([...exact].map(([filePath, symbol]) => [filePath, DEFINITION_STRENGTH[symbol.kind] ?? 1]));
    // A query that is a file's path puts that file first.
    if (namedFile !== undefined) first.set(namedFile, 3);
    ranked = rankFiles(rankingView(index, scores, accept), plan, limit, first);
  } finally {
    scores.release();
  }
  if (ranked.length === 0 && (options.path !== undefined || options.language !== undefined)) {
    notes.push("No indexed file matched the path or language filter.");
  }
  const queryTokens = new Set(tokenize(trimmed));
  const hits = await Promise.all(ranked.map((file) => makeHit(index, plan, file, exact.get(file.path), queryTokens, options.contextLines ?? 12)));
  return { hits, notes };
}

function rankingView(index: CodeIndex, scores: ScoreBoard, accept: ((file: IndexEntry) => boolean) | undefined): RankingView {
  return {
    bestChunks: (count) => scores.atLeastBest(count),
    scoreOf: (id) => scores.get(id),
    maskOf: (id) => scores.mask(id),
    pathOf: (id) => index.chunkPath(id),
    linesOf: (id) => index.chunkPlace(id),
    namesOf: (filePath) => index.files.get(filePath)?.names,
    // Without a filter a file's entry is not made: a first search ranks a few hundred files it has not seen.
    accepts:
      accept === undefined
        ? (filePath) => index.files.has(filePath)
        : (filePath) => {
            const file = index.files.get(filePath);
            return file !== undefined && accept(file);
          },
  };
}

/** When the query is one symbol name (`parse`, `Server.listen`, `Parser::parse`), its definitions by file. */
function exactDefinitions(index: CodeIndex, query: string): Map<string, SymbolDefinition> {
  const found = new Map<string, SymbolDefinition>();
  if (!SYMBOL_QUERY.test(query)) {
    // A few words that spell one name in order (`cookie jar from dict`) name it as well.
    for (const spelling of nameSpellings(query)) for (const { path: filePath, symbol } of index.definitions(spelling)) if (!found.has(filePath)) found.set(filePath, symbol);
    return found;
  }
  const parts = query.split(/\.|::|#/);
  const name = parts[parts.length - 1]!;
  const parent = parts.length > 1 ? parts[parts.length - 2] : undefined;
  const definitions = index.definitions(name).filter((entry) => parent === undefined || entry.symbol.parent === parent);
  // Other cases count only when no definition has the query's case.
  const sameCase = definitions.filter((entry) => entry.symbol.name === name);
  for (const { path: filePath, symbol } of sameCase.length > 0 ? sameCase : definitions) {
    const known = found.get(filePath);
    if (known === undefined || (DEFINITION_STRENGTH[symbol.kind] ?? 1) > (DEFINITION_STRENGTH[known.kind] ?? 1)) found.set(filePath, symbol);
  }
  return found;
}

function qualifiedName(symbol: SymbolDefinition): string {
  return symbol.parent === undefined ? symbol.name : `${symbol.parent}.${symbol.name}`;
}

async function makeHit(
  index: CodeIndex,
  plan: QueryPlan,
  ranked: RankedFile,
  exact: SymbolDefinition | undefined,
  queryTokens: Set<string>,
  contextLines: number,
): Promise<SearchHit> {
  const file = index.files.get(ranked.path)!;
  const named = ranked.name !== undefined && ranked.name.score >= SHOWN_NAME_SCORE ? ranked.name : undefined;
  const focusLine = exact?.line ?? named?.line;
  const focus = focusLine === undefined ? undefined : index.chunkAtLine(ranked.path, focusLine);
  const chosen = focus ?? ranked.chunks[0]?.id ?? index.chunkIdsOf(ranked.path)[0];
  const chunk = chosen === undefined ? { startLine: 1, endLine: Math.max(1, file.lines) } : index.chunk(chosen);
  let lines: string[] = [];
  try {
    lines = linesOfFile(path.join(index.root, ranked.path), file, chunk.startLine, chunk.endLine, "startByte" in chunk ? chunk : undefined);
  } catch {
    // The file went away since it was indexed; the hit still names it.
  }
  const window = bestWindow(lines, chunk.startLine, chunk.endLine, queryTokens, Math.max(1, contextLines));
  const mask = exact === undefined ? ranked.mask : ~0;
  const hit: SearchHit = {
    path: ranked.path,
    startLine: chunk.startLine,
    endLine: chunk.endLine,
    score: Math.round(ranked.score * 1000) / 1000,
    language: file.language,
    snippet: lines.slice(window.start - 1, window.end).join("\n"),
    snippetStartLine: window.start,
    matched: plan.concepts.filter((concept) => (mask & (concept.bit | concept.relatedBit)) !== 0).map((concept) => concept.word),
    missing: plan.concepts.filter((concept) => (mask & (concept.bit | concept.relatedBit)) === 0).map((concept) => concept.word),
    also: ranked.chunks
      .filter((entry) => entry.id !== chosen)
      .slice(0, ALSO_PER_HIT)
      .map(({ id }) => {
        const other = index.chunk(id);
        return other.symbol === undefined ? { startLine: other.startLine, endLine: other.endLine } : { startLine: other.startLine, endLine: other.endLine, symbol: other.symbol };
      }),
  };
  const symbol =
    exact !== undefined
      ? qualifiedName(exact)
      : named?.line !== undefined
        ? named.text
        : (symbolInChunk(file, chunk.startLine, chunk.endLine, queryTokens) ?? ("symbol" in chunk ? chunk.symbol : undefined));
  if (symbol !== undefined) hit.symbol = symbol;
  if (named !== undefined) hit.nameMatch = named.text;
  else if (exact !== undefined) hit.nameMatch = qualifiedName(exact);
  return hit;
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
    for (const id of index.chunkIdsOf(filePath)) {
      const vector = index.vectorOf(filePath, index.chunk(id).index);
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

/** A predicate for the path (folder prefix or glob) and language filters; undefined when they keep every file. */
export function fileFilter(options: { path?: string; language?: string }): ((file: IndexEntry) => boolean) | undefined {
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
  if (language === undefined && matchPath === undefined) return undefined;
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

/** The definition in lines start..end whose name shares the most words with the query (only those names are decoded). */
function symbolInChunk(file: IndexEntry, start: number, end: number, queryTokens: Set<string>): string | undefined {
  const names = file.names;
  // The lines read straight from the table: a large file's every definition is looked at, cold in a first search.
  const lines = names.lines;
  let best: string | undefined;
  let bestOverlap = 0;
  for (let symbol = 0; symbol < lines.length; symbol++) {
    const line = lines[symbol]!;
    if (line < start || line > end) continue;
    const overlap = tokenize(names.name(symbol)).filter((token) => queryTokens.has(token)).length;
    if (overlap > bestOverlap) {
      bestOverlap = overlap;
      best = names.qualifiedName(symbol);
    }
  }
  return best;
}
