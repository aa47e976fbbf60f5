/**
 * The symbol table of one file: definitions with their line ranges and containers, and the
 * modules the file imports.
 */
import { braceBlockEnds, braceDefinitionEnd, indentDefinitionEnd } from "./blocks.js";
import type { RawSymbol, SymbolKind } from "./language-spec.js";
import { languageSpecOf } from "./languages.js";

export type { SymbolKind } from "./language-spec.js";

export interface SymbolDefinition {
  name: string;
  kind: SymbolKind;
  /** 1-based first line (the signature). */
  line: number;
  /** 1-based last line of its block. */
  endLine: number;
  /** The class, struct, trait, impl or namespace it is defined in. */
  parent?: string;
}

export interface FileSymbols {
  symbols: SymbolDefinition[];
  imports: string[];
}

const CONTAINER_KINDS: ReadonlySet<SymbolKind> = new Set(["class", "interface", "struct", "trait", "enum", "module"]);
const FUNCTION_KINDS: ReadonlySet<SymbolKind> = new Set(["function", "method"]);

/**
 * Extracts definitions and imports; files of languages without patterns give none. `lines` is
 * `text.split("\n")`, for a caller that has it already.
 */
export function extractSymbols(path: string, text: string, lines: string[] = text.split("\n")): FileSymbols {
  const spec = languageSpecOf(path);
  if (spec === undefined) return { symbols: [], imports: [] };
  const raw = spec.definitions(lines, text);
  const ends = spec.blocks === "brace" ? braceBlockEnds(text, lines.length) : undefined;
  const symbols: SymbolDefinition[] = [];
  const containers: Array<{ name: string; line: number; end: number; kind: SymbolKind }> = [];
  // The last endLine of any function so far: a symbol below it cannot be inside one.
  let functionsEnd = 0;
  for (const symbol of raw) {
    const container = innermost(containers, symbol.line);
    const parent = symbol.parent ?? container?.name;
    if (symbol.memberOnly && (container === undefined || container.kind === "module")) continue;
    if (spec.blocks === "indent" && symbol.kind === "constant" && container !== undefined) continue;
    if (symbol.line < functionsEnd && isInsideFunction(symbols, symbol) && !CONTAINER_KINDS.has(symbol.kind)) continue;
    const end = symbol.singleLine ? symbol.line : ends === undefined ? indentDefinitionEnd(lines, symbol.line) : braceDefinitionEnd(lines, ends, symbol.line);
    const kind: SymbolKind = symbol.kind === "function" && parent !== undefined && container?.kind !== "module" ? "method" : symbol.kind;
    if (CONTAINER_KINDS.has(symbol.kind) || symbol.containerOnly) {
      containers.push({ name: symbol.name, line: symbol.line, end, kind: symbol.kind });
    }
    if (symbol.containerOnly) continue;
    const definition: SymbolDefinition = { name: symbol.name, kind, line: symbol.line + 1, endLine: end + 1 };
    if (parent !== undefined) definition.parent = parent;
    if (FUNCTION_KINDS.has(kind) && definition.endLine > functionsEnd) functionsEnd = definition.endLine;
    symbols.push(definition);
  }
  return { symbols, imports: spec.imports(lines, text) };
}

function innermost<Container extends { line: number; end: number }>(containers: Container[], line: number): Container | undefined {
  let found: Container | undefined;
  for (const container of containers) {
    if (container.line < line && container.end >= line && (found === undefined || container.line > found.line)) found = container;
  }
  return found;
}

/** Local helpers and variables inside a function body are not part of the table. */
function isInsideFunction(symbols: SymbolDefinition[], candidate: RawSymbol): boolean {
  const line = candidate.line + 1;
  for (let index = symbols.length - 1; index >= 0; index--) {
    const symbol = symbols[index]!;
    if (FUNCTION_KINDS.has(symbol.kind) && symbol.line < line && symbol.endLine >= line) return true;
  }
  return false;
}
