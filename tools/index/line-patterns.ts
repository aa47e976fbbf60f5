/**
 * The machinery of the languages' line patterns: cheap line filters run before a language's gate,
 * definition patterns compiled once (named groups made numbered), and import collection from the
 * lines that can hold one.
 */
import type { LanguageSpec, RawSymbol, SymbolKind } from "./language-spec.js";

/** Words that look like a call or definition by shape but are control flow. */
const KEYWORDS = new Set("if else for while switch case catch return new throw typeof sizeof do try finally elif except synchronized super this await yield".split(" "));

/**
 * A test cheaper than the gate that every line a language's gate and patterns can match passes:
 * an anchored `start` (one failed match at column 0 is cheap, unlike the gate's alternatives that
 * look for a `{` or `(` at the end), the line's last character, and for the rest an optional `tail`.
 */
export interface LineFilter {
  start: RegExp;
  /** Characters the line may end with (before trailing blanks). */
  ends: Uint8Array;
  /** For lines that end otherwise, but not with one of `notLast`: a pattern they must match. */
  tail?: { pattern: RegExp; notLast: string };
}

export function lineFilter(start: RegExp, ends = "", tail?: LineFilter["tail"]): LineFilter {
  const filter: LineFilter = { start, ends: new Uint8Array(128) };
  for (const character of ends) filter.ends[character.charCodeAt(0)] = 1;
  if (tail !== undefined) filter.tail = tail;
  return filter;
}

/** Whether `text` passes `filter`; a line ending in an unusual blank or non-ASCII always does. */
function mayMatch(text: string, filter: LineFilter): boolean {
  if (filter.start.test(text)) return true;
  let end = text.length - 1;
  let code = text.charCodeAt(end);
  while (code === 32 || code === 9 || code === 13) code = text.charCodeAt(--end);
  if (end < 0) return false;
  if (code < 33 || code > 126 || filter.ends[code] === 1) return true;
  const tail = filter.tail;
  return tail !== undefined && !tail.notLast.includes(text[end]!) && tail.pattern.test(text);
}

/** The lines (0-based, ascending) that `start` (anchored at the line's start, so cheap to fail) matches. */
function linesMatching(lines: string[], start: RegExp): number[] {
  const found: number[] = [];
  for (let line = 0; line < lines.length; line++) if (start.test(lines[line]!)) found.push(line);
  return found;
}

/**
 * The lines (0-based, ascending) that contain one of `needles`, found in the whole text at once;
 * `lines` is `text.split("\n")`. Needles with a rare first character are found fastest.
 */
export function linesContaining(text: string, lines: string[], needles: string[]): number[] {
  const offsets: number[] = [];
  for (const needle of needles) for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) offsets.push(at);
  if (offsets.length === 0) return offsets;
  offsets.sort((left, right) => left - right);
  const found: number[] = [];
  let line = 0;
  let lineEnd = lines[0]!.length;
  for (const offset of offsets) {
    while (offset >= lineEnd) lineEnd += lines[++line]!.length + 1;
    if (found[found.length - 1] !== line) found.push(line);
  }
  return found;
}

/**
 * A pattern, the kind it finds, extra fields, whether it matches by shape alone (then control-flow
 * words are not names), and text every line it matches contains (a cheap test before a costly pattern).
 */
export type Pattern = [RegExp, SymbolKind, Partial<RawSymbol>?, "shape"?, string?];

/** A pattern with its named groups `name` and `parent` made plain numbered ones (cheaper matches). */
interface CompiledPattern {
  pattern: RegExp;
  name: number;
  /** 0 when the pattern has no `parent` group. */
  parent: number;
  kind: SymbolKind;
  extra: Partial<RawSymbol> | undefined;
  shape: boolean;
  needs: string | undefined;
}

function compilePattern([pattern, kind, extra, shape, needs]: Pattern): CompiledPattern {
  const groups: Record<string, number> = {};
  let count = 0;
  // Capturing groups in order: `(` not escaped, not in a class, not `(?:`/`(?=`/`(?!`/`(?<=`/`(?<!`.
  const source = pattern.source.replace(/\\[\s\S]|\[(?:\\[\s\S]|[^\]\\])*\]|\((\?<(\w+)>|\?)?/g, (token, question: string | undefined, name: string | undefined) => {
    if (!token.startsWith("(") || (question !== undefined && name === undefined)) return token;
    count++;
    if (name === undefined) return token;
    groups[name] = count;
    return "(";
  });
  return { pattern: new RegExp(source, pattern.flags), name: groups.name!, parent: groups.parent ?? 0, kind, extra, shape: shape === "shape", needs };
}

/**
 * Definitions found by trying each pattern on each line that passes `filter` and `gate` (cheap
 * tests that rule out most body lines) and not `skip`; the named group `name` (and `parent`) make
 * the symbol. The patterns are compiled for the first file of the language: a process that only
 * searches never needs them (compiling every language's at start-up was 1-3 ms of a one-off search).
 */
export function byPatterns(patterns: Pattern[], skip: RegExp, gate: RegExp, filter?: LineFilter): (lines: string[]) => RawSymbol[] {
  let compiledOnce: CompiledPattern[] | undefined;
  return (lines) => {
    compiledOnce ??= patterns.map(compilePattern);
    const compiled = compiledOnce;
    const symbols: RawSymbol[] = [];
    for (let line = 0; line < lines.length; line++) {
      const text = lines[line]!;
      if ((filter !== undefined && !mayMatch(text, filter)) || !gate.test(text) || skip.test(text)) continue;
      for (let index = 0; index < compiled.length; index++) {
        const { pattern, name: nameGroup, parent: parentGroup, kind, extra, shape, needs } = compiled[index]!;
        if (needs !== undefined && !text.includes(needs)) continue;
        const match = pattern.exec(text);
        const name = match?.[nameGroup];
        if (match === null || name === undefined) continue;
        if (shape && KEYWORDS.has(name)) continue;
        const symbol: RawSymbol = { name, kind, line, ...extra };
        const parent = parentGroup === 0 ? undefined : match[parentGroup];
        if (parent) symbol.parent = parent;
        symbols.push(symbol);
        break;
      }
    }
    return symbols;
  };
}

/**
 * Imports: module names the patterns find on the lines that contain one of the `find` needles
 * (or that the anchored `find` pattern matches) and match `keyword`.
 */
export function collect(find: string[] | RegExp, patterns: RegExp[], keyword: RegExp): LanguageSpec["imports"] {
  return (lines, text) => {
    const found: string[] = [];
    for (const line of Array.isArray(find) ? linesContaining(text, lines, find) : linesMatching(lines, find)) {
      const source = lines[line]!;
      if (!keyword.test(source)) continue;
      for (const pattern of patterns) {
        // Each pattern is global and never matches empty text: exec from 0 to the last match, which
        // leaves lastIndex at 0 again (as matchAll would, without copying the pattern).
        pattern.lastIndex = 0;
        for (let match = pattern.exec(source); match !== null; match = pattern.exec(source)) if (match.groups?.module) found.push(match.groups.module);
      }
    }
    return [...new Set(found)];
  };
}
