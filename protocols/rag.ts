/**
 * RAG — a searchable index of the workspace's code: build it, search it (ranked chunks with
 * file:line ranges and the matching symbol), get an overview of the codebase, and explain a
 * symbol or file. All four actions are "read": they change no user file; the index itself lives
 * in clio's own `<workspace>/.clio/index/`, which clio manages like a cache.
 */
import { promises as fs } from "node:fs";
import { z } from "zod";
import { defineAction, defineProtocol, parameter, type ProtocolEnvironment } from "./contract/protocol.js";
import { loadOnce } from "./contract/load-once.js";
import { ProtocolError } from "./contract/errors.js";
import type { CheckedPaths, ResolvedPath } from "../tools/workspace.js";
import { numberLines } from "../tools/files/text.js";
import type { Analysis } from "../tools/index/analyze.js";
import type { CodeIndex, CodeIndexOptions, Embedder, IndexProgress, IndexReport } from "../tools/index/code-index.js";
import type { Explanation } from "../tools/index/explain.js";
import type { SearchHit, SearchResult } from "../tools/index/search.js";
import { plural } from "../tools/format.js";
import { summarizeSkipped } from "../tools/index/skipped.js";

/** The first change check's start, loaded before the rest of the index code (early-check.ts). */
const loadEarlyCheck = loadOnce(() => import("../tools/index/early-check.js"));

/** The code index, loaded on the first RAG command rather than at start-up. */
const loadIndexTools = loadOnce(async () => {
  const [{ CodeIndex }, { analyzeIndex }, { explainInIndex }, { searchIndex }, { createHttpEmbedder, embeddingsSettingsOf }] = await Promise.all([
    import("../tools/index/code-index.js"),
    import("../tools/index/analyze.js"),
    import("../tools/index/explain.js"),
    import("../tools/index/search.js"),
    import("../tools/index/embeddings.js"),
  ]);
  return { CodeIndex, analyzeIndex, explainInIndex, searchIndex, createHttpEmbedder, embeddingsSettingsOf };
});
type IndexTools = Awaited<ReturnType<typeof loadIndexTools>>;

export interface RagOptions {
  /** Shows indexing progress (the terminal passes its status line). */
  onProgress?: (progress: IndexProgress) => void;
  /** Turns on hybrid ranking with these vectors (off by default; `RAG.embeddings` in config turns it on with an HTTP endpoint). */
  embed?: Embedder;
  /** The fetch an embeddings endpoint is called with (default the global one). */
  fetch?: typeof fetch;
  /** How long a refreshed index is trusted before search/analyze/explain look for changed files again (default 2 s). */
  refreshIntervalMs?: number;
}

interface RagState {
  /** The index being opened or open: one per manager, even when read actions start together. */
  index?: Promise<CodeIndex>;
  refreshedAt: number;
  /** The update in flight, shared by read actions that run in parallel. */
  updating?: Promise<IndexReport>;
}

/** The `RAG` section of the config. */
function settingsOf(environment: ProtocolEnvironment): { maxFileBytes?: number; maxChunkLines?: number; semanticWeight?: number; threadMinPaths?: number; embeddings?: unknown } {
  return (environment.config.RAG ?? {}) as ReturnType<typeof settingsOf>;
}

const query = parameter.text("Words or an identifier to look for");
const optionalPath = parameter.optionalPath("A folder or file relative to the workspace (default: the whole workspace)");
const contextSize = parameter.integer("How many lines of code to show (search: per hit, default 12; explain: in all, default 80)", { min: 1, max: 500 });

/** Makes the RAG protocol; `options` are the seams the terminal and tests pass. */
export function createRagProtocol(options: RagOptions = {}) {
  const indexOptions = (environment: ProtocolEnvironment, tools: IndexTools): CodeIndexOptions => {
    const { embeddings, ...settings } = settingsOf(environment);
    const configured = tools.embeddingsSettingsOf(embeddings, environment.env);
    const embed = options.embed ?? (configured === undefined ? undefined : tools.createHttpEmbedder(configured, { fetch: options.fetch ?? fetch, env: environment.env }));
    return {
      ...settings,
      onProgress: options.onProgress,
      embed,
      ...(environment.workspace.hidesAny ? { hidden: (relative: string) => environment.workspace.isHidden(relative) } : {}),
      persist: () => environment.workspace.mayKeepState(),
      // The first read of an index checks it for changes (the refresh time starts long past).
      checkAfterOpen: true,
    };
  };

  async function openIndex(state: RagState, environment: ProtocolEnvironment): Promise<CodeIndex> {
    state.index ??= loadIndex(environment).catch((error: unknown) => {
      state.index = undefined;
      throw error;
    });
    return state.index;
  }

  /** Loads the index code and opens the workspace's index; its first change check begins before that code loads (early-check.ts), so find is under way meanwhile. */
  async function loadIndex(environment: ProtocolEnvironment): Promise<CodeIndex> {
    const root = environment.workspace.root;
    const { beginCheckEarly } = await loadEarlyCheck();
    const helpers = beginCheckEarly(root, settingsOf(environment));
    const tools = await loadIndexTools();
    return tools.CodeIndex.open(root, { ...indexOptions(environment, tools), helpers });
  }

  /** Runs one update at a time; parallel callers share it. */
  async function update(state: RagState, environment: ProtocolEnvironment, start?: string, signal?: AbortSignal): Promise<IndexReport> {
    const index = await openIndex(state, environment);
    while (state.updating !== undefined) await state.updating.catch(() => undefined);
    state.updating = index.update(start, signal);
    try {
      const report = await state.updating;
      if (start === undefined || start === environment.workspace.root) state.refreshedAt = environment.now();
      return report;
    } finally {
      state.updating = undefined;
    }
  }

  /**
   * Runs `read` on the index, built on first use and brought up to date when the last check is
   * older than the refresh interval (a built index is checked while `read` runs on what is
   * stored: `CodeIndex.readWhileChecking`), so the result always reflects the files as they are.
   * `read` is handed the index code, loaded once the first check has begun (`loadIndex`).
   */
  async function readFresh<Result>(
    state: RagState,
    environment: ProtocolEnvironment,
    signal: AbortSignal,
    readWith: (index: CodeIndex, tools: IndexTools) => Promise<Result>,
  ): Promise<{ result: Result; built?: IndexReport }> {
    const index = await openIndex(state, environment);
    const tools = await loadIndexTools();
    const read = (opened: CodeIndex) => readWith(opened, tools);
    const stale = environment.now() - state.refreshedAt > (options.refreshIntervalMs ?? 2000);
    if (state.updating !== undefined) await state.updating.catch(() => undefined);
    else if (!index.built) {
      const built = await update(state, environment, undefined, signal);
      return { result: await index.reading(() => read(index)), built };
    } else if (stale) {
      return {
        result: await index.readWhileChecking(
          () => read(index),
          () => update(state, environment, undefined, signal),
        ),
      };
    }
    return { result: await index.reading(() => read(index)) };
  }

  /** The confined path, or undefined for the whole workspace. */
  async function resolveScope(environment: ProtocolEnvironment, input: string | undefined, checked?: CheckedPaths): Promise<ResolvedPath | undefined> {
    if (input === undefined || input.trim() === "" || input.trim() === ".") return undefined;
    const resolved = await environment.workspace.resolve(input, "read", checked);
    if (environment.workspace.isHidden(resolved.relative) || environment.workspace.isHidden(environment.workspace.relativeOf(resolved.real))) {
      throw new ProtocolError(
        "permission_denied",
        `${resolved.relative} is kept from being read by the person's deny rules, so RAG does not show it.`,
        "Leave it out; ask the person if you need it.",
      );
    }
    return resolved;
  }
  const relativePath = async (environment: ProtocolEnvironment, input: string | undefined, checked?: CheckedPaths) => (await resolveScope(environment, input, checked))?.relative;

  return defineProtocol<RagState>({
    name: "RAG",
    summary: "Search and understand the workspace's code: a persistent index ranked by code-aware BM25 with a symbol table.",
    aliases: {
      codebase_search: { action: "search", parameters: { target_directories: "path" } },
      search_code: { action: "search" },
    },
    setup: () => ({ refreshedAt: Number.NEGATIVE_INFINITY }),
    // Opening the index begins its first change check (find) while the script is parsed and checked.
    prepare: (state, environment) => void openIndex(state, environment).catch(() => undefined),
    actions: {
      index: defineAction({
        summary: "Build or refresh the code index (only changed files are re-read; .gitignore respected; binary and huge files skipped).",
        permission: "read",
        // Later searches depend on the index it builds: it runs alone, in order.
        exclusive: true,
        parameters: { path: optionalPath },
        describe: (args) => `Indexing ${args.path ?? "the workspace"}`,
        async handler(args, { state, environment, signal, checkedPaths }) {
          const scope = await resolveScope(environment, args.path, checkedPaths);
          if (scope !== undefined) await assertExists(scope.absolute, scope.relative);
          const relative = scope?.relative;
          const report = await update(state, environment, scope?.absolute, signal);
          return {
            output: reportText(report, relative),
            description: `Indexed ${relative ?? "the workspace"} (${plural(report.indexed, "file")} read, ${plural(report.files, "file")} in all)`,
            data: report,
          };
        },
      }),

      search: defineAction({
        summary:
          "Ranked code search, one hit per file: file:line-line with the matching symbol, a snippet, and why it ranked (the name that reads as the query, words found and not found, other matching lines); an exact symbol name ranks its definition first.",
        permission: "read",
        parameters: {
          query,
          path: parameter.optionalText('Only files under this folder or matching this glob, e.g. "src" or "**/*.go"'),
          language: parameter.word("Only files of this language: typescript, javascript, python, go, rust, java, c, cpp, ...", z.string().min(1).optional()),
          context_size: contextSize,
          limit: parameter.integer("Most hits (default 10)", { min: 1, max: 50 }),
        },
        describe: (args) => `Searching the code for ${JSON.stringify(args.query.slice(0, 60))}${args.path === undefined ? "" : ` in ${args.path}`}`,
        async handler(args, { state, environment, signal }) {
          const filter = args.path !== undefined && !/[*?]/.test(args.path) ? await relativePath(environment, args.path) : args.path;
          const { result, built } = await readFresh(state, environment, signal, (index, { searchIndex }) =>
            searchIndex(index, args.query, { path: filter, language: args.language, contextLines: args.context_size, limit: args.limit }),
          );
          const prefix = built === undefined ? [] : [`(Built the index first: ${plural(built.files, "file")}, ${summarizeSkipped(built.skipped)}.)`];
          return {
            output: [...prefix, searchText(result, args.query)].join("\n"),
            description: `Searched the code for ${JSON.stringify(args.query.slice(0, 40))}: ${plural(result.hits.length, "hit")}`,
            data: result,
          };
        },
      }),

      analyze: defineAction({
        summary: "Overview of the codebase or a folder: languages, sizes, largest files, top-level symbols, folder dependencies, entry points, test folders.",
        permission: "read",
        parameters: { path: optionalPath },
        describe: (args) => `Analysing ${args.path ?? "the workspace"}`,
        async handler(args, { state, environment, signal, checkedPaths }) {
          const relative = (await relativePath(environment, args.path, checkedPaths)) ?? ".";
          const {
            result: { analysis, skipped },
          } = await readFresh(state, environment, signal, async (index, { analyzeIndex }) => ({ analysis: await analyzeIndex(index, relative), skipped: index.skipped.length }));
          if (analysis.files === 0) {
            throw new ProtocolError(
              "not_found",
              `No indexed files under ${relative}.`,
              "Give a folder inside the workspace that holds source files, or run RAG index after adding files.",
            );
          }
          return {
            output: analysisText(analysis, skipped),
            description: `Analysed ${relative === "." ? "the workspace" : relative} (${plural(analysis.files, "file")})`,
            data: analysis,
          };
        },
      }),

      explain: defineAction({
        summary:
          'Explain a symbol (query="Server.listen"), the best match for words, or a file (path): definition, usages (file:line), imports, importers and code, within context_size lines.',
        permission: "read",
        parameters: { query: parameter.optionalText("A symbol name (Class.method, Type::fn) or words"), path: optionalPath, context_size: contextSize },
        describe: (args) => `Explaining ${args.query ?? args.path ?? "?"}`,
        async handler(args, { state, environment, signal, checkedPaths }) {
          const relative = await relativePath(environment, args.path, checkedPaths);
          const { result: explanation } = await readFresh(state, environment, signal, (index, { explainInIndex }) =>
            explainInIndex(index, { query: args.query, path: relative, contextLines: args.context_size }),
          );
          return { output: explanationText(explanation), description: `Explained ${explanation.subject}`, data: explanation };
        },
      }),
    },
  });
}

async function assertExists(absolute: string, relative: string): Promise<void> {
  try {
    await fs.lstat(absolute);
  } catch {
    throw new ProtocolError("not_found", `${relative} does not exist.`, "Give an existing folder or file relative to the workspace, or leave path out to index everything.");
  }
}

function reportText(report: IndexReport, scope: string | undefined): string {
  const lines = [
    `Indexed ${scope ?? "the workspace"}: ${plural(report.files, "file")} in the index (${report.indexed} read, ${report.unchanged} unchanged, ${report.removed} removed), ${plural(report.chunks, "chunk")}, ${plural(report.symbols, "symbol")}, ${(report.durationMs / 1000).toFixed(2)} s${report.workers > 0 ? ` on ${report.workers + 1} threads` : ""}.`,
    `Skipped: ${summarizeSkipped(report.skipped)}.`,
  ];
  for (const entry of report.skipped.slice(0, 10)) lines.push(`  ${entry.path}: ${entry.reason.replace("_", " ")}${entry.detail === undefined ? "" : ` (${entry.detail})`}`);
  if (report.skipped.length > 10) lines.push(`  … and ${report.skipped.length - 10} more`);
  if (report.invalidUtf8.length > 0) lines.push(`Not valid UTF-8 (indexed with replacement characters): ${report.invalidUtf8.slice(0, 10).join(", ")}`);
  return lines.join("\n");
}

function searchText(result: SearchResult, query: string): string {
  const lines = [...result.notes.map((note) => `(${note})`)];
  if (result.hits.length === 0) {
    lines.push(`No code matches ${JSON.stringify(query.slice(0, 80))}. Try other words, an identifier, or fewer filters.`);
    return lines.join("\n");
  }
  result.hits.forEach((hit, position) => {
    lines.push(`${position + 1}. ${hit.path}:${hit.startLine}-${hit.endLine}${hit.symbol === undefined ? "" : `  ${hit.symbol}`}  (${hit.language}, score ${hit.score})`);
    lines.push(`   why: ${whyText(hit)}`);
    if (hit.snippet !== "") lines.push(numberLines(hit.snippet.split("\n"), hit.snippetStartLine));
  });
  return lines.join("\n");
}

/** Why a hit ranked, in words a model can act on: the name that reads as the query, the words found and not found, the file's other matches. */
function whyText(hit: SearchHit): string {
  const parts: string[] = [];
  if (hit.nameMatch !== undefined) parts.push(`name ${hit.nameMatch}`);
  parts.push(hit.matched.length === 0 ? "no query word in the text" : `matched ${hit.matched.join(", ")}`);
  if (hit.missing.length > 0) parts.push(`not found: ${hit.missing.join(", ")}`);
  if (hit.also.length > 0) parts.push(`also ${hit.also.map((other) => `${other.startLine}-${other.endLine}${other.symbol === undefined ? "" : ` ${other.symbol}`}`).join(", ")}`);
  return parts.join("; ");
}

function analysisText(analysis: Analysis, skipped: number): string {
  const lines = [
    `${analysis.scope === "." ? "Workspace" : analysis.scope}: ${plural(analysis.files, "file")}, ${plural(analysis.lines, "line")}${skipped > 0 ? ` (${skipped} skipped by the index)` : ""}.`,
    "",
    "Languages:",
  ];
  for (const language of analysis.languages) lines.push(`  ${language.language}: ${plural(language.files, "file")}, ${plural(language.lines, "line")}`);
  lines.push("", "Largest files:", ...analysis.largestFiles.map((file) => `  ${file.path} (${plural(file.lines, "line")})`));
  lines.push("", "Entry points:", ...(analysis.entryPoints.length === 0 ? ["  (none found)"] : analysis.entryPoints.map((entry) => `  ${entry.path} — ${entry.reason}`)));
  lines.push(
    "",
    "Test folders:",
    ...(analysis.testFolders.length === 0 ? ["  (none found)"] : analysis.testFolders.map((entry) => `  ${entry.folder} (${plural(entry.testFiles, "test file")})`)),
  );
  lines.push(
    "",
    "Folder dependencies (imports):",
    ...(analysis.folderDependencies.length === 0 ? ["  (none resolved)"] : analysis.folderDependencies.map((edge) => `  ${edge.from} → ${edge.to} (${edge.imports})`)),
  );
  lines.push(
    "",
    "External dependencies:",
    ...(analysis.externalDependencies.length === 0 ? ["  (none)"] : analysis.externalDependencies.map((entry) => `  ${entry.module} (${plural(entry.files, "file")})`)),
  );
  lines.push("", "Top-level symbols:", ...analysis.topLevelSymbols.map((symbol) => `  ${symbol.path}:${symbol.line} ${symbol.kind} ${symbol.name}`));
  return lines.join("\n");
}

function explanationText(explanation: Explanation): string {
  const lines: string[] = [];
  for (const { path, symbol, excerpt } of explanation.definitions) {
    const title =
      explanation.kind === "file"
        ? `File ${path}`
        : `${symbol.kind} ${symbol.parent === undefined ? "" : `${symbol.parent}.`}${symbol.name} — ${path}:${symbol.line}-${symbol.endLine}`;
    lines.push(title, numberLines(excerpt.code.split("\n"), excerpt.startLine));
    if (excerpt.omittedLines > 0) lines.push(`  … ${plural(excerpt.omittedLines, "more line")} (raise context_size or read ${path} from line ${excerpt.endLine + 1})`);
    lines.push("");
  }
  if (explanation.otherDefinitions > 0)
    lines.push(`(${plural(explanation.otherDefinitions, "other definition")} with this name not shown; qualify it as Parent.name or give path.)`, "");
  if (explanation.outline.length > 0) {
    lines.push(
      "Definitions:",
      ...explanation.outline.map((symbol) => `  ${symbol.line}: ${symbol.kind} ${symbol.parent === undefined ? "" : `${symbol.parent}.`}${symbol.name}`),
      "",
    );
  }
  if (explanation.kind !== "file") {
    lines.push(
      explanation.usages.length === 0 ? "Used: nowhere else in the index." : "Used at:",
      ...explanation.usages.map((usage) => `  ${usage.path}:${usage.line}: ${usage.text}`),
      "",
    );
  }
  lines.push(`Imports: ${explanation.imports.length === 0 ? "(none)" : explanation.imports.join(", ")}`);
  lines.push(`Imported by: ${explanation.importedBy.length === 0 ? "(no indexed file)" : explanation.importedBy.join(", ")}`);
  return lines.join("\n");
}

export const ragProtocol = createRagProtocol();
