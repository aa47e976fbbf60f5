/**
 * Where a definition's block ends: brace matching that skips strings and comments (C-family
 * languages) or indentation (Python).
 */

/**
 * For each line that opens brace blocks, the last line where one of them closes (0-based): for
 * `function f(options = {}) {` that is the body's end, not the `{}` default's.
 */
export function braceBlockEnds(text: string): Map<number, number> {
  const ends = new Map<number, number>();
  const stack: number[] = [];
  let line = 0;
  let index = 0;
  const length = text.length;
  while (index < length) {
    const character = text[index]!;
    if (character === "\n") {
      line++;
      index++;
      continue;
    }
    if (character === "/" && text[index + 1] === "/") {
      const next = text.indexOf("\n", index);
      index = next === -1 ? length : next;
      continue;
    }
    if (character === "/" && text[index + 1] === "*") {
      const close = text.indexOf("*/", index + 2);
      const stop = close === -1 ? length : close + 2;
      for (let scan = index; scan < stop; scan++) if (text[scan] === "\n") line++;
      index = stop;
      continue;
    }
    if (character === '"' || character === "`" || (character === "'" && isCharLiteral(text, index))) {
      index = skipString(text, index, character, () => line++);
      continue;
    }
    if (character === "{") {
      stack.push(line);
    } else if (character === "}") {
      const open = stack.pop();
      if (open !== undefined && (ends.get(open) ?? -1) < line) ends.set(open, line);
    }
    index++;
  }
  return ends;
}

/** A `'` starts a char literal ('a', '\n', '\'') rather than a Rust lifetime or an apostrophe. */
function isCharLiteral(text: string, index: number): boolean {
  if (text[index + 1] === "\\") return true;
  return text[index + 2] === "'";
}

function skipString(text: string, start: number, quote: string, onNewline: () => void): number {
  let index = start + 1;
  while (index < text.length) {
    const character = text[index]!;
    if (character === "\\") {
      if (text[index + 1] === "\n") onNewline();
      index += 2;
      continue;
    }
    if (character === "\n") {
      if (quote !== "`") return index; // an unterminated string ends at the line
      onNewline();
    }
    if (character === quote) return index + 1;
    index++;
  }
  return index;
}

/**
 * The last line of a brace-language definition starting at `line`: the block of the first `{`
 * within the next few lines, or the line that ends the declaration with `;`.
 */
export function braceDefinitionEnd(lines: string[], ends: Map<number, number>, line: number): number {
  const limit = Math.min(lines.length - 1, line + 8);
  for (let scan = line; scan <= limit; scan++) {
    const end = ends.get(scan);
    if (end !== undefined && lines[scan]!.includes("{")) return end;
    const trimmed = lines[scan]!.trimEnd();
    if (trimmed.endsWith(";")) return scan;
  }
  return line;
}

/** The width of a line's leading blanks, a tab counting four. */
function indentOf(line: string): number {
  let width = 0;
  for (let index = 0; index < line.length; index++) {
    const code = line.charCodeAt(index);
    if (code === 32) width++;
    else if (code === 9) width += 4;
    else break;
  }
  return width;
}

/** The last line of an indentation block (Python) opened at `line`. */
export function indentDefinitionEnd(lines: string[], line: number): number {
  const indent = indentOf(lines[line]!);
  let last = line;
  let scan = line + 1;
  // A signature may span lines until its closing colon.
  while (scan < lines.length && !/:\s*(#.*)?$/.test(lines[scan - 1]!) && scan - line < 10) last = scan++;
  for (; scan < lines.length; scan++) {
    const text = lines[scan]!;
    if (text.trim() === "") continue;
    if (indentOf(text) <= indent) break;
    last = scan;
  }
  return last;
}

export { indentOf };
