/**
 * Splits a file into chunks along definition boundaries: each top-level definition (with the
 * comments and decorators just above it) is a chunk; one too long is split at its members, or
 * into windows of lines; the lines between definitions form their own chunks. Small neighbours
 * are merged so very short chunks do not dominate the ranking.
 */
import type { SymbolDefinition } from "./symbols.js";

export interface ChunkRange {
  /** 1-based first line. */
  startLine: number;
  /** 1-based last line. */
  endLine: number;
  /** The definition the chunk holds (`Class.method` for members), if any. */
  symbol?: string;
}

export interface ChunkOptions {
  /** Longest chunk in lines (default 60). */
  maxLines?: number;
  /** Chunks shorter than this merge with a neighbour (default 8). */
  minLines?: number;
}

const LEADING_COMMENT = /^\s*(\/\/|\/\*|\*|#(?!include|define|if|endif|else|pragma)|@|"""|\/\/\/)/;

export function chunkLines(lines: string[], symbols: SymbolDefinition[], options: ChunkOptions = {}): ChunkRange[] {
  const maxLines = options.maxLines ?? 60;
  const minLines = options.minLines ?? 8;
  const raw: ChunkRange[] = [];
  split(lines, symbols, 1, lines.length, maxLines, raw, undefined);
  return merge(
    raw.filter((chunk) => hasText(lines, chunk)),
    minLines,
    maxLines,
  );
}

function qualified(symbol: SymbolDefinition): string {
  return symbol.parent === undefined ? symbol.name : `${symbol.parent}.${symbol.name}`;
}

/** Chunks lines start..end (1-based, inclusive) whose definitions are `symbols`. */
function split(lines: string[], symbols: SymbolDefinition[], start: number, end: number, maxLines: number, out: ChunkRange[], label: string | undefined): void {
  const inside = symbols.filter((symbol) => symbol.line >= start && symbol.endLine <= end);
  const outer = inside.filter((symbol) => !inside.some((other) => other !== symbol && contains(other, symbol)));
  let cursor = start;
  for (const symbol of outer) {
    if (symbol.line < cursor) continue;
    let from = symbol.line;
    while (from - 1 >= cursor && LEADING_COMMENT.test(lines[from - 2] ?? "")) from--;
    windows(cursor, from - 1, maxLines, out, label);
    const name = qualified(symbol);
    if (symbol.endLine - from + 1 <= maxLines) {
      out.push({ startLine: from, endLine: symbol.endLine, symbol: name });
    } else {
      const members = inside.filter((other) => other !== symbol && contains(symbol, other));
      if (members.length > 0) split(lines, members, from, symbol.endLine, maxLines, out, name);
      else windows(from, symbol.endLine, maxLines, out, name);
    }
    cursor = symbol.endLine + 1;
  }
  windows(cursor, end, maxLines, out, label);
}

function contains(outer: SymbolDefinition, inner: SymbolDefinition): boolean {
  return outer.line <= inner.line && outer.endLine >= inner.endLine && !(outer.line === inner.line && outer.endLine === inner.endLine && outer.name === inner.name);
}

function windows(start: number, end: number, maxLines: number, out: ChunkRange[], label: string | undefined): void {
  for (let from = start; from <= end; from += maxLines) {
    const chunk: ChunkRange = { startLine: from, endLine: Math.min(end, from + maxLines - 1) };
    if (label !== undefined) chunk.symbol = label;
    out.push(chunk);
  }
}

function hasText(lines: string[], chunk: ChunkRange): boolean {
  for (let line = chunk.startLine; line <= chunk.endLine; line++) if ((lines[line - 1] ?? "").trim() !== "") return true;
  return false;
}

function merge(chunks: ChunkRange[], minLines: number, maxLines: number): ChunkRange[] {
  const merged: ChunkRange[] = [];
  for (const chunk of chunks) {
    const previous = merged[merged.length - 1];
    const size = chunk.endLine - chunk.startLine + 1;
    if (previous !== undefined && chunk.endLine - previous.startLine + 1 <= maxLines && (size < minLines || previous.endLine - previous.startLine + 1 < minLines)) {
      previous.endLine = chunk.endLine;
      if (previous.symbol === undefined && chunk.symbol !== undefined) previous.symbol = chunk.symbol;
      continue;
    }
    merged.push({ ...chunk });
  }
  return merged;
}
