/**
 * Where a definition's block ends: brace matching that skips strings and comments (C-family
 * languages) or indentation (Python).
 */

const NEWLINE = 10;
const SLASH = 47;
const STAR = 42;
const BACKSLASH = 92;
const SINGLE_QUOTE = 39;
const BACKTICK = 96;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

/**
 * For each line (0-based index) that opens brace blocks, the last line where one of them closes,
 * -1 for other lines: for `function f(options = {}) {` that is the body's end, not the `{}`
 * default's. `lineCount` is the number of lines (`text.split("\n").length`).
 */
export function braceBlockEnds(text: string, lineCount: number): Int32Array {
  const ends = new Int32Array(lineCount).fill(-1);
  const stack: number[] = [];
  const length = text.length;
  // Where each character the scan stops at occurs next (the text's length when it does not), found
  // with indexOf and looked for again only once the scan has passed it.
  let newline = -1;
  let slash = -1;
  let doubleQuote = -1;
  let singleQuote = -1;
  let backtick = -1;
  let open = -1;
  let close = -1;
  let line = 0;
  let index = 0;
  for (;;) {
    if (newline < index) newline = next(text, "\n", index);
    if (slash < index) slash = next(text, "/", index);
    if (doubleQuote < index) doubleQuote = next(text, '"', index);
    if (singleQuote < index) singleQuote = next(text, "'", index);
    if (backtick < index) backtick = next(text, "`", index);
    if (open < index) open = next(text, "{", index);
    if (close < index) close = next(text, "}", index);
    index = Math.min(newline, slash, doubleQuote, singleQuote, backtick, open, close);
    if (index >= length) break;
    const code = text.charCodeAt(index);
    if (code === NEWLINE) {
      line++;
    } else if (code === OPEN_BRACE) {
      stack.push(line);
    } else if (code === CLOSE_BRACE) {
      const opened = stack.pop();
      if (opened !== undefined && ends[opened]! < line) ends[opened] = line;
    } else if (code === SLASH) {
      const following = text.charCodeAt(index + 1);
      if (following === SLASH) {
        index = newline;
        continue;
      }
      if (following === STAR) {
        const end = text.indexOf("*/", index + 2);
        const stop = end === -1 ? length : end + 2;
        for (let at = newline; at < stop; at = next(text, "\n", at + 1)) line++;
        index = stop;
        continue;
      }
    } else if (code !== SINGLE_QUOTE || isCharLiteral(text, index)) {
      // A string: an unterminated one (other than a template) ends at its line's end.
      index++;
      while (index < length) {
        const inside = text.charCodeAt(index);
        if (inside === BACKSLASH) {
          if (text.charCodeAt(index + 1) === NEWLINE) line++;
          index += 2;
          continue;
        }
        if (inside === NEWLINE) {
          if (code !== BACKTICK) break;
          line++;
        } else if (inside === code) {
          index++;
          break;
        }
        index++;
      }
      continue;
    }
    index++;
  }
  return ends;
}

/** Where `character` next occurs from `from` on, or the text's length. */
function next(text: string, character: string, from: number): number {
  const at = text.indexOf(character, from);
  return at === -1 ? text.length : at;
}

/** A `'` starts a char literal ('a', '\n', '\'') rather than a Rust lifetime or an apostrophe. */
function isCharLiteral(text: string, index: number): boolean {
  return text.charCodeAt(index + 1) === BACKSLASH || text.charCodeAt(index + 2) === SINGLE_QUOTE;
}

/**
 * The last line of a brace-language definition starting at `line`: the block of the first `{`
 * within the next few lines, or the line that ends the declaration with `;`.
 */
export function braceDefinitionEnd(lines: string[], ends: Int32Array, line: number): number {
  const limit = Math.min(lines.length - 1, line + 8);
  for (let scan = line; scan <= limit; scan++) {
    const text = lines[scan]!;
    const end = ends[scan]!;
    if (end !== -1 && text.includes("{")) return end;
    if (endsWithSemicolon(text)) return scan;
  }
  return line;
}

/** `text.trimEnd().endsWith(";")` without building the trimmed string for plain ASCII endings. */
function endsWithSemicolon(text: string): boolean {
  let end = text.length - 1;
  let code = text.charCodeAt(end);
  while (code === 32 || code === 9 || code === 13) code = text.charCodeAt(--end);
  if (code === 59) return true;
  if (end < 0 || (code > 32 && code < 127)) return false;
  return text.trimEnd().endsWith(";");
}

/** `text.trim() === ""` without building the trimmed string for plain ASCII lines. */
function isBlank(text: string): boolean {
  let index = 0;
  let code = text.charCodeAt(0);
  while (code === 32 || code === 9) code = text.charCodeAt(++index);
  if (index >= text.length) return true;
  if (code > 32 && code < 127) return false;
  return text.trim() === "";
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

const NOT_SPACE = /[^ ]/;

/** A Python signature line that ends with its colon (and maybe a comment). */
const SIGNATURE_END = /:\s*(#.*)?$/;

/** The last line of an indentation block (Python) opened at `line`. */
export function indentDefinitionEnd(lines: string[], line: number): number {
  const indent = indentOf(lines[line]!);
  let last = line;
  let scan = line + 1;
  // A signature may span lines until its closing colon.
  while (scan < lines.length && !SIGNATURE_END.test(lines[scan - 1]!) && scan - line < 10) last = scan++;
  for (; scan < lines.length; scan++) {
    const text = lines[scan]!;
    // Mostly the first character after the spaces is printable ASCII: then the line is not blank
    // and its indent is the number of spaces.
    const first = text.search(NOT_SPACE);
    if (first === -1) continue;
    const code = text.charCodeAt(first);
    if (code < 33 || code > 126) {
      if (isBlank(text)) continue;
      if (indentOf(text) <= indent) break;
    } else if (first <= indent) break;
    last = scan;
  }
  return last;
}
