/**
 * A small syntax highlighter for code blocks in the terminal: keywords, strings, comments and
 * numbers for the languages models write most. One line at a time (block comments that span
 * lines are carried over), so it works while a reply streams.
 */
import type { ChalkInstance } from "chalk";

const KEYWORDS: Record<string, string[]> = {
  js: "async await break case catch class const continue default delete do else export extends false finally for from function if import in instanceof let new null of return static super switch this throw true try typeof undefined var void while yield".split(
    " ",
  ),
  ts: "abstract as async await break case catch class const continue declare default delete do else enum export extends false finally for from function if implements import in instanceof interface keyof let namespace new null of private protected public readonly return satisfies static super switch this throw true try type typeof undefined var void while yield".split(
    " ",
  ),
  python:
    "and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield self".split(
      " ",
    ),
  go: "break case chan const continue default defer else fallthrough for func go goto if import interface map nil package range return select struct switch type var true false".split(
    " ",
  ),
  rust: "as async await break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while".split(
    " ",
  ),
  java: "abstract boolean break byte case catch char class const continue default do double else enum extends final finally float for if implements import instanceof int interface long new null package private protected public return short static super switch this throw throws true false try void while".split(
    " ",
  ),
  c: "auto break case char const continue default do double else enum extern float for goto if inline int long register return short signed sizeof static struct switch typedef union unsigned void volatile while NULL true false class namespace template typename public private protected virtual new delete nullptr include define".split(
    " ",
  ),
  sh: "if then else elif fi for while do done case esac function in return export local echo cd exit set".split(" "),
};

const ALIASES: Record<string, string> = {
  javascript: "js",
  jsx: "js",
  mjs: "js",
  cjs: "js",
  node: "js",
  typescript: "ts",
  tsx: "ts",
  py: "python",
  python3: "python",
  golang: "go",
  rs: "rust",
  "c++": "c",
  cpp: "c",
  cc: "c",
  h: "c",
  hpp: "c",
  cxx: "c",
  bash: "sh",
  shell: "sh",
  zsh: "sh",
  console: "sh",
};

const HASH_COMMENT = new Set(["python", "sh"]);

export class LineHighlighter {
  private readonly keywords: Set<string>;
  private readonly family: string | undefined;
  private inBlockComment = false;

  constructor(
    language: string,
    private readonly style: ChalkInstance,
  ) {
    const name = language.toLowerCase();
    this.family = KEYWORDS[name] ? name : ALIASES[name];
    this.keywords = new Set(this.family ? KEYWORDS[this.family] : []);
  }

  highlight(line: string): string {
    if (!this.family || this.style.level === 0) return line;
    let output = "";
    let index = 0;
    while (index < line.length) {
      if (this.inBlockComment) {
        const end = line.indexOf("*/", index);
        const stop = end === -1 ? line.length : end + 2;
        output += this.style.dim(line.slice(index, stop));
        index = stop;
        if (end !== -1) this.inBlockComment = false;
        continue;
      }
      const rest = line.slice(index);
      const token = this.nextToken(rest);
      output += token.styled;
      index += token.length;
    }
    return output;
  }

  private nextToken(rest: string): { styled: string; length: number } {
    const style = this.style;
    const lineComment = HASH_COMMENT.has(this.family!) ? /^#.*/ : /^\/\/.*/;
    let match = lineComment.exec(rest);
    if (match) return { styled: style.dim(match[0]), length: match[0].length };
    if (!HASH_COMMENT.has(this.family!) && rest.startsWith("/*")) {
      this.inBlockComment = true;
      return { styled: style.dim("/*"), length: 2 };
    }
    match = /^("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)/.exec(rest);
    if (match) return { styled: style.green(match[0]), length: match[0].length };
    match = /^\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?/i.exec(rest);
    if (match) return { styled: style.yellow(match[0]), length: match[0].length };
    match = /^[A-Za-z_$][\w$]*/.exec(rest);
    if (match) {
      const word = match[0];
      return { styled: this.keywords.has(word) ? style.magenta(word) : word, length: word.length };
    }
    return { styled: rest[0]!, length: 1 };
  }
}
