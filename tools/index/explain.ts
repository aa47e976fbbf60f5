/**
 * Explains a symbol, a file, or the best match for a query: its definition, where it is used,
 * what its file imports and who imports that file, and the code around it — all within a
 * budget of lines.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import type { CodeIndex, SymbolLocation } from "./code-index.js";
import { decodeText } from "./file-record.js";
import { ImportResolver } from "./imports.js";
import { searchIndex } from "./search.js";
import type { IndexEntry } from "./live-files.js";
import type { SymbolDefinition } from "./symbols.js";

export interface ExplainOptions {
  /** A symbol name (`parse`, `Server.listen`, `Parser::parse`) or words to search for. */
  query?: string;
  /** A file or folder to explain, or to narrow the query to. */
  path?: string;
  /** Most lines of code in the answer (default 80). */
  contextLines?: number;
}

export interface CodeExcerpt {
  path: string;
  startLine: number;
  endLine: number;
  code: string;
  /** Lines of the block left out to stay within the budget. */
  omittedLines: number;
}

export interface Explanation {
  /** What was explained: a definition found by name, the best search match, or a file. */
  kind: "symbol" | "search" | "file";
  subject: string;
  definitions: Array<{ path: string; symbol: SymbolDefinition; excerpt: CodeExcerpt }>;
  /** Where the symbol's name appears outside its definitions (file:line and the line). */
  usages: Array<{ path: string; line: number; text: string }>;
  /** The file's own imports (of the first definition, or the file explained). */
  imports: string[];
  /** Workspace files whose imports resolve to that file. */
  importedBy: string[];
  /** The file's definitions, when a file is explained. */
  outline: SymbolDefinition[];
  /** Other definitions with the same name that were not shown. */
  otherDefinitions: number;
}

const MAX_USAGES = 25;
const MAX_DEFINITIONS = 3;

export async function explainInIndex(index: CodeIndex, options: ExplainOptions): Promise<Explanation> {
  const budget = { lines: Math.max(5, options.contextLines ?? 80) };
  const query = options.query?.trim() ?? "";
  const scope = options.path?.replace(/^\.\//, "").replace(/\/+$/, "");
  if (query === "") {
    if (scope === undefined || scope === "") {
      throw new ToolError("invalid_argument", "explain needs a symbol, a query or a path.", 'Write query="ClassName.method" or path="src/main.ts".');
    }
    return explainFile(index, scope, budget);
  }
  const inScope = (filePath: string) => scope === undefined || scope === "" || scope === "." || filePath === scope || filePath.startsWith(`${scope}/`);
  const identifier = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$~][\w$]*)*$/.test(query);
  let found: SymbolLocation[] = [];
  let kind: Explanation["kind"] = "symbol";
  if (identifier) {
    const parts = query.split(/\.|::|#/);
    const name = parts[parts.length - 1]!;
    const parent = parts.length > 1 ? parts[parts.length - 2] : undefined;
    found = index.definitions(name).filter((entry) => inScope(entry.path) && (parent === undefined || entry.symbol.parent === parent));
  }
  if (found.length === 0) {
    kind = "search";
    const { hits } = await searchIndex(index, query, { limit: 1, path: scope });
    const hit = hits[0];
    if (hit === undefined) {
      throw new ToolError("no_match", `Nothing in the index matches "${query.slice(0, 80)}".`, "Try another name or words, or run RAG index first if files were added.");
    }
    const file = index.files.get(hit.path)!;
    const symbol = file.symbols.find((candidate) => candidate.line >= hit.startLine && candidate.line <= hit.endLine);
    if (symbol === undefined) {
      const excerpt = await excerptOf(index, hit.path, hit.startLine, hit.endLine, budget);
      const region: SymbolDefinition = { name: `${hit.path}:${hit.startLine}-${hit.endLine}`, kind: "module", line: hit.startLine, endLine: hit.endLine };
      return {
        kind,
        subject: query,
        definitions: [{ path: hit.path, symbol: region, excerpt }],
        usages: [],
        ...(await fileContext(index, file)),
        outline: file.symbols,
        otherDefinitions: 0,
      };
    }
    found = [{ path: hit.path, symbol }];
  }
  const shown = found.slice(0, MAX_DEFINITIONS);
  const definitions: Explanation["definitions"] = [];
  for (const { path: filePath, symbol } of shown) {
    if (budget.lines <= 0) break;
    definitions.push({ path: filePath, symbol, excerpt: await excerptOf(index, filePath, symbol.line, symbol.endLine, budget) });
  }
  const first = index.files.get(shown[0]!.path)!;
  return {
    kind,
    subject: kind === "symbol" ? query : `${query} → ${shown[0]!.symbol.name}`,
    definitions,
    usages: await usagesOf(index, shown[0]!.symbol.name, found),
    ...(await fileContext(index, first)),
    outline: [],
    otherDefinitions: found.length - definitions.length,
  };
}

async function explainFile(index: CodeIndex, filePath: string, budget: { lines: number }): Promise<Explanation> {
  const file = index.files.get(filePath);
  if (file === undefined) {
    throw new ToolError(
      "not_found",
      `${filePath} is not in the index.`,
      "Give a file path relative to the workspace; use RAG analyze for a folder, or RAG index if the file is new.",
    );
  }
  const excerpt = await excerptOf(index, filePath, 1, file.lines, budget);
  return {
    kind: "file",
    subject: filePath,
    definitions: [{ path: filePath, symbol: { name: path.posix.basename(filePath), kind: "module", line: 1, endLine: file.lines }, excerpt }],
    usages: [],
    ...(await fileContext(index, file)),
    outline: file.symbols,
    otherDefinitions: 0,
  };
}

async function fileContext(index: CodeIndex, file: IndexEntry): Promise<Pick<Explanation, "imports" | "importedBy">> {
  const resolver = new ImportResolver(index.files);
  const importedBy: string[] = [];
  for (const other of index.files.values()) {
    if (other.path !== file.path && other.imports.some((specifier) => resolver.resolve(other, specifier) === file.path)) importedBy.push(other.path);
  }
  return { imports: file.imports, importedBy };
}

async function readLines(index: CodeIndex, filePath: string): Promise<string[]> {
  try {
    return decodeText(await fs.readFile(path.join(index.root, filePath))).text.split("\n");
  } catch {
    return [];
  }
}

/** Lines start..end of a file, cut to the remaining budget (which it spends). */
async function excerptOf(index: CodeIndex, filePath: string, start: number, end: number, budget: { lines: number }): Promise<CodeExcerpt> {
  const lines = await readLines(index, filePath);
  const last = Math.min(end, lines.length, start + Math.max(1, budget.lines) - 1);
  budget.lines -= last - start + 1;
  return { path: filePath, startLine: start, endLine: last, code: lines.slice(start - 1, last).join("\n"), omittedLines: Math.max(0, Math.min(end, lines.length) - last) };
}

/** Lines that name `name` as a whole word, outside the definitions themselves. */
async function usagesOf(index: CodeIndex, name: string, definitions: SymbolLocation[]): Promise<Explanation["usages"]> {
  const pattern = new RegExp(`(^|[^\\w$])${name.replace(/[$]/g, "\\$")}([^\\w$]|$)`);
  const terms = index.queryTerms();
  const termId = terms.lookup(name.toLowerCase());
  const candidates = new Set<string>();
  if (termId !== undefined) terms.each(termId, (id) => candidates.add(index.chunkPlace(id).path));
  const usages: Explanation["usages"] = [];
  for (const filePath of [...candidates].sort()) {
    const lines = await readLines(index, filePath);
    for (let line = 1; line <= lines.length && usages.length < MAX_USAGES; line++) {
      if (definitions.some((entry) => entry.path === filePath && entry.symbol.line === line)) continue;
      const text = lines[line - 1]!;
      if (pattern.test(text)) usages.push({ path: filePath, line, text: text.trim().slice(0, 200) });
    }
    if (usages.length >= MAX_USAGES) break;
  }
  return usages;
}
