/**
 * An overview of a codebase from its index: languages, sizes, the largest files, top-level
 * definitions, dependencies between folders and on outside packages, likely entry points and
 * test folders.
 */
import path from "node:path";
import type { CodeIndex } from "./code-index.js";
import { TEST_FILE, TEST_FOLDER } from "./file-kinds.js";
import { ImportResolver } from "./imports.js";
import type { IndexEntry } from "./live-files.js";
import type { SymbolKind } from "./symbols.js";

export interface LanguageSummary {
  language: string;
  files: number;
  lines: number;
}

export interface Analysis {
  /** The folder analysed ("." for the workspace). */
  scope: string;
  files: number;
  lines: number;
  languages: LanguageSummary[];
  largestFiles: Array<{ path: string; lines: number; size: number }>;
  topLevelSymbols: Array<{ path: string; name: string; kind: SymbolKind; line: number }>;
  /** Imports from files in one folder to files in another, most used first. */
  folderDependencies: Array<{ from: string; to: string; imports: number }>;
  /** Imports that name nothing in the workspace (packages, standard library). */
  externalDependencies: Array<{ module: string; files: number }>;
  entryPoints: Array<{ path: string; reason: string }>;
  testFolders: Array<{ folder: string; testFiles: number }>;
}

export interface AnalyzeOptions {
  /** Most rows per list (default 15). */
  limit?: number;
}

const TOP_LEVEL_KINDS: ReadonlySet<SymbolKind> = new Set(["class", "interface", "struct", "trait", "enum", "function", "type", "module"]);
const ENTRY_NAMES = /(^|\/)(main|index|cli|app|server|__main__)\.[a-z]+$/;

/** Analyses the indexed files under `scope` (workspace-relative; "." for all). */
export function analyzeIndex(index: CodeIndex, scope = ".", options: AnalyzeOptions = {}): Analysis {
  const limit = options.limit ?? 15;
  const inScope = (filePath: string) => scope === "." || filePath === scope || filePath.startsWith(`${scope}/`);
  const files = [...index.files.values()].filter((file) => inScope(file.path));
  const languages = new Map<string, LanguageSummary>();
  let lines = 0;
  for (const file of files) {
    lines += file.lines;
    const summary = languages.get(file.language) ?? { language: file.language, files: 0, lines: 0 };
    summary.files++;
    summary.lines += file.lines;
    languages.set(file.language, summary);
  }
  return {
    scope,
    files: files.length,
    lines,
    languages: [...languages.values()].sort((left, right) => right.lines - left.lines),
    largestFiles: [...files]
      .sort((left, right) => right.lines - left.lines)
      .slice(0, limit)
      .map((file) => ({ path: file.path, lines: file.lines, size: file.size })),
    topLevelSymbols: topLevel(files, limit * 3),
    ...dependencies(index, files, limit),
    entryPoints: entryPoints(index, files).slice(0, limit),
    testFolders: testFolders(files).slice(0, limit),
  };
}

function topLevel(files: IndexEntry[], limit: number): Analysis["topLevelSymbols"] {
  const found: Analysis["topLevelSymbols"] = [];
  // Round-robin over files so one large file does not fill the list.
  const perFile = files.map((file) => file.symbols.filter((symbol) => symbol.parent === undefined && TOP_LEVEL_KINDS.has(symbol.kind)));
  for (let round = 0; found.length < limit; round++) {
    let any = false;
    perFile.forEach((symbols, position) => {
      const symbol = symbols[round];
      if (symbol === undefined || found.length >= limit) return;
      any = true;
      found.push({ path: files[position]!.path, name: symbol.name, kind: symbol.kind, line: symbol.line });
    });
    if (!any) break;
  }
  return found;
}

function dependencies(index: CodeIndex, files: IndexEntry[], limit: number): Pick<Analysis, "folderDependencies" | "externalDependencies"> {
  const resolver = new ImportResolver(index.files);
  const edges = new Map<string, number>();
  const external = new Map<string, Set<string>>();
  for (const file of files) {
    const from = path.posix.dirname(file.path);
    for (const { specifier, target } of resolver.resolveAll(file)) {
      if (target === undefined) {
        const module = packageName(file.language, specifier);
        if (module === undefined) continue;
        const users = external.get(module) ?? new Set<string>();
        users.add(file.path);
        external.set(module, users);
        continue;
      }
      const to = path.posix.dirname(target);
      if (to === from) continue;
      const key = `${from}\u0000${to}`;
      edges.set(key, (edges.get(key) ?? 0) + 1);
    }
  }
  return {
    folderDependencies: [...edges]
      .map(([key, imports]) => {
        const [from, to] = key.split("\u0000") as [string, string];
        return { from, to, imports };
      })
      .sort((left, right) => right.imports - left.imports || left.from.localeCompare(right.from))
      .slice(0, limit * 2),
    externalDependencies: [...external]
      .map(([module, users]) => ({ module, files: users.size }))
      .sort((left, right) => right.files - left.files || left.module.localeCompare(right.module))
      .slice(0, limit),
  };
}

/** The package a non-workspace import belongs to (`@scope/name`, `github.com/a/b`, `java.util`). */
function packageName(language: string, specifier: string): string | undefined {
  if (specifier.startsWith(".")) return undefined;
  switch (language) {
    case "typescript":
    case "javascript":
      return specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0];
    case "python":
      return specifier.split(".")[0];
    case "rust":
      return ["crate", "self", "super"].includes(specifier.split("::")[0]!) ? undefined : specifier.split("::")[0];
    case "java":
      return specifier.split(".").slice(0, 2).join(".");
    default:
      return specifier;
  }
}

function entryPoints(index: CodeIndex, files: IndexEntry[]): Analysis["entryPoints"] {
  const found: Analysis["entryPoints"] = [];
  const seen = new Set<string>();
  const add = (filePath: string, reason: string) => {
    if (seen.has(filePath)) return;
    seen.add(filePath);
    found.push({ path: filePath, reason });
  };
  for (const file of files) {
    if (path.posix.basename(file.path) !== "package.json") continue;
    for (const target of packageEntries(index, file)) add(target, `named in ${file.path}`);
  }
  for (const file of files) if (file.entry !== undefined && !TEST_FILE.test(file.path)) add(file.path, file.entry);
  for (const file of files) {
    if (ENTRY_NAMES.test(file.path) && file.language !== "other" && !TEST_FILE.test(file.path) && !TEST_FOLDER.test(file.path)) {
      add(file.path, "conventional entry file name");
    }
  }
  return found;
}

function packageEntries(index: CodeIndex, file: IndexEntry): string[] {
  const manifest = index.readJson(file.path) as { main?: string; bin?: string | Record<string, string> } | undefined;
  if (manifest === undefined) return [];
  const folder = path.posix.dirname(file.path);
  const named = [manifest.main, ...(typeof manifest.bin === "string" ? [manifest.bin] : Object.values(manifest.bin ?? {}))];
  return named
    .filter((entry): entry is string => typeof entry === "string")
    .map((entry) => path.posix.normalize(path.posix.join(folder, entry)))
    .filter((entry) => index.files.has(entry));
}

function testFolders(files: IndexEntry[]): Analysis["testFolders"] {
  const counts = new Map<string, number>();
  for (const file of files) {
    const folderMatch = TEST_FOLDER.exec(file.path);
    if (folderMatch === null && !TEST_FILE.test(file.path)) continue;
    const folder = folderMatch !== null ? file.path.slice(0, folderMatch.index + folderMatch[0].replace(/\/$/, "").length) : path.posix.dirname(file.path);
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return [...counts].map(([folder, testFiles]) => ({ folder, testFiles })).sort((left, right) => right.testFiles - left.testFiles);
}
