/**
 * Which lines of a file are comments or docstrings: the text where code explains itself in
 * plain words, which is what a question in plain words meets. Line-based and forgiving: a line
 * counts when it starts inside a comment or starts one.
 */

const LINE_COMMENT = /^\s*(\/\/|#(?!include|define|if|ifdef|ifndef|endif|else|elif|pragma|import|undef|!)|--\s|;;)/;
const BLOCK_OPEN = /^\s*\/\*/;
const DOCSTRING = /^\s*[rRbBuU]?("""|''')/;

/** Languages whose `#` starts a comment (elsewhere `#` is a directive, attribute or private name). */
const HASH_COMMENTS = new Set(["python", "ruby", "shell", "perl", "r", "yaml", "toml", "elixir", "makefile", "other"]);

/** For each line (0-based), whether it is part of a comment or docstring. */
export function commentLines(lines: string[], language: string): Uint8Array {
  const marks = new Uint8Array(lines.length);
  const hash = HASH_COMMENTS.has(language);
  let inBlock = false;
  let docstring: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (docstring !== undefined) {
      marks[index] = 1;
      if (line.includes(docstring)) docstring = undefined;
      continue;
    }
    if (inBlock) {
      marks[index] = 1;
      if (line.includes("*/")) inBlock = false;
      continue;
    }
    if (BLOCK_OPEN.test(line)) {
      marks[index] = 1;
      inBlock = !line.slice(line.indexOf("/*") + 2).includes("*/");
      continue;
    }
    const quote = language === "python" ? DOCSTRING.exec(line) : null;
    if (quote !== null) {
      marks[index] = 1;
      const rest = line.slice(quote.index + quote[0].length);
      if (!rest.includes(quote[1]!)) docstring = quote[1];
      continue;
    }
    const comment = LINE_COMMENT.exec(line);
    if (comment !== null && (hash || !comment[1]!.startsWith("#"))) marks[index] = 1;
  }
  return marks;
}
