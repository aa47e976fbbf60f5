/**
 * Languages the index knows: detection by file name, definition patterns (careful line-based
 * regular expressions), and import patterns. Block ends and parents are worked out in symbols.ts.
 */
import type { LanguageSpec, RawSymbol, SymbolKind } from "./language-spec.js";
import { byPatterns, collect, lineFilter, linesContaining } from "./line-patterns.js";

const C_COMMENT = /^\s*(\/\/|\/\*|\*)/;
const ID = "[A-Za-z_$][\\w$]*";

// The first words of the gate and the patterns, or the gate's `)... {` or `(` at the end.
const TYPESCRIPT_LINES = lineFilter(
  /^\s*(export|default|declare|async|function|class|abstract|interface|type|enum|const|let|var|public|private|protected|static|readonly|override|get|set)/,
  "{(",
);

const typescript: LanguageSpec = {
  name: "typescript",
  blocks: "brace",
  definitions: byPatterns(
    [
      [new RegExp(`^\\s*(export\\s+)?(default\\s+)?(declare\\s+)?(async\\s+)?function\\s*\\*?\\s*(?<name>${ID})`), "function"],
      [new RegExp(`^\\s*(export\\s+)?(default\\s+)?(declare\\s+)?(abstract\\s+)?class\\s+(?<name>${ID})`), "class"],
      [new RegExp(`^\\s*(export\\s+)?(declare\\s+)?interface\\s+(?<name>${ID})`), "interface"],
      [new RegExp(`^\\s*(export\\s+)?(declare\\s+)?type\\s+(?<name>${ID})\\s*(<.*>)?\\s*=`), "type"],
      [new RegExp(`^\\s*(export\\s+)?(declare\\s+)?(const\\s+)?enum\\s+(?<name>${ID})`), "enum"],
      [new RegExp(`^(export\\s+)?(const|let|var)\\s+(?<name>${ID})\\s*(:[^=]+)?=\\s*(async\\s+)?(function\\b|(\\([^)]*\\)|${ID})\\s*(:\\s*[^=]+)?=>)`), "function"],
      [new RegExp(`^(export\\s+)?(const|let|var)\\s+(?<name>${ID})\\b`), "constant"],
      [
        new RegExp(`^\\s+((public|private|protected|static|readonly|async|override|abstract|get|set)\\s+)*\\*?(?<name>#?${ID})\\s*(<[^>]*>)?\\s*\\([^;]*$`),
        "method",
        { memberOnly: true },
        "shape",
      ],
    ],
    C_COMMENT,
    /^\s*(export|default|declare|async|function|class|abstract|interface|type|enum|const|let|var|public|private|protected|static|readonly|override|get|set)\b|\)\s*(:[^;{]*)?\{\s*$|\($/,
    TYPESCRIPT_LINES,
  ),
  imports: collect(
    ["port", "quire"],
    [
      /^\s*import\s[^'"]*?from\s*['"](?<module>[^'"]+)['"]/g,
      /^\s*import\s*['"](?<module>[^'"]+)['"]/g,
      /\b(require|import)\(\s*['"](?<module>[^'"]+)['"]\s*\)/g,
      /^\s*export\s[^'"]*?from\s*['"](?<module>[^'"]+)['"]/g,
    ],
    /\b(import|require|from)\b/,
  ),
};

const python: LanguageSpec = {
  name: "python",
  blocks: "indent",
  definitions: byPatterns(
    [
      [/^\s*(async\s+)?def\s+(?<name>\w+)/, "function"],
      [/^\s*class\s+(?<name>\w+)/, "class"],
      [/^(?<name>[A-Z][A-Z0-9_]*)\s*(:[^=]+)?=(?!=)/, "constant", { singleLine: true }],
    ],
    /^\s*#/,
    /^\s*(def|async|class)\b|^[A-Z]/,
  ),
  imports: collect(["port"], [/^\s*from\s+(?<module>[\w.]+)\s+import\b/g, /^\s*import\s+(?<module>[\w.]+)/g], /\bimport\b/),
};

const goPatternDefinitions = byPatterns(
  [
    [/^func\s+\(\s*\w*\s*\*?\s*(?<parent>\w+)(\[[^\]]*\])?\s*\)\s*(?<name>\w+)/, "method"],
    [/^func\s+(?<name>\w+)/, "function"],
    [/^type\s+(?<name>\w+)(\[[^\]]*\])?\s+struct\b/, "struct"],
    [/^type\s+(?<name>\w+)(\[[^\]]*\])?\s+interface\b/, "interface"],
    [/^type\s+(?<name>\w+)\s/, "type", { singleLine: true }],
    [/^const\s+(?<name>\w+)/, "constant", { singleLine: true }],
    [/^var\s+(?<name>\w+)/, "variable", { singleLine: true }],
  ],
  C_COMMENT,
  /^(func|type|const|var)\b/,
);

const GO_GROUP_OPENING = /^(const|var|type)\s*\(\s*$/;
const GO_GROUP_MEMBER = /^\s+([A-Za-z_]\w*)\b/;
const GO_LINE_COMMENT = /^\s*\/\//;

function goDefinitions(lines: string[]): RawSymbol[] {
  const symbols = goPatternDefinitions(lines);
  // Grouped declarations: const ( ... ), var ( ... ), type ( ... ).
  let group: SymbolKind | undefined;
  for (let line = 0; line < lines.length; line++) {
    const text = lines[line]!;
    const opening = GO_GROUP_OPENING.exec(text);
    if (opening !== null) {
      group = opening[1] === "const" ? "constant" : opening[1] === "var" ? "variable" : "type";
      continue;
    }
    if (group === undefined) continue;
    if (text.startsWith(")")) {
      group = undefined;
      continue;
    }
    const member = GO_GROUP_MEMBER.exec(text);
    if (member !== null && !GO_LINE_COMMENT.test(text)) symbols.push({ name: member[1]!, kind: group, line, singleLine: true });
  }
  return symbols.sort((left, right) => left.line - right.line);
}

const GO_IMPORT_OPENING = /^\s*import\s*\(\s*$/;
const GO_CLOSING = /^\s*\)\s*$/;
const GO_IMPORT_IN_BLOCK = /^\s*(\w+\s+)?"(?<module>[^"]+)"/;
const GO_IMPORT = /^import\s+(\w+\s+)?"(?<module>[^"]+)"/;

const go: LanguageSpec = {
  name: "go",
  blocks: "brace",
  definitions: goDefinitions,
  imports: (lines, source) => {
    const found: string[] = [];
    const candidates = linesContaining(source, lines, ["port"]);
    let inBlock = false;
    let next = 0;
    for (let line = 0; line < lines.length; line++) {
      // Outside a block only lines that contain "import" can name one.
      if (!inBlock) {
        while (next < candidates.length && candidates[next]! < line) next++;
        if (next === candidates.length) break;
        line = candidates[next]!;
      }
      const text = lines[line]!;
      if (GO_IMPORT_OPENING.test(text)) inBlock = true;
      else if (inBlock && GO_CLOSING.test(text)) inBlock = false;
      const match = inBlock ? GO_IMPORT_IN_BLOCK.exec(text) : GO_IMPORT.exec(text);
      if (match?.groups?.module) found.push(match.groups.module);
    }
    return found;
  },
};

const RUST_VISIBILITY = "(pub(\\([^)]*\\))?\\s+)?";
const rust: LanguageSpec = {
  name: "rust",
  blocks: "brace",
  definitions: byPatterns(
    [
      [new RegExp(`^\\s*${RUST_VISIBILITY}(default\\s+)?(const\\s+)?(async\\s+)?(unsafe\\s+)?(extern\\s+"[^"]*"\\s+)?fn\\s+(?<name>\\w+)`), "function"],
      [new RegExp(`^\\s*${RUST_VISIBILITY}struct\\s+(?<name>\\w+)`), "struct"],
      [new RegExp(`^\\s*${RUST_VISIBILITY}enum\\s+(?<name>\\w+)`), "enum"],
      [new RegExp(`^\\s*${RUST_VISIBILITY}(unsafe\\s+)?trait\\s+(?<name>\\w+)`), "trait"],
      [new RegExp(`^\\s*${RUST_VISIBILITY}type\\s+(?<name>\\w+)`), "type", { singleLine: true }],
      [new RegExp(`^\\s*${RUST_VISIBILITY}const\\s+(?<name>\\w+)\\s*:`), "constant"],
      [new RegExp(`^\\s*${RUST_VISIBILITY}static\\s+(mut\\s+)?(?<name>\\w+)\\s*:`), "constant"],
      [new RegExp(`^\\s*${RUST_VISIBILITY}mod\\s+(?<name>\\w+)`), "module"],
      [/^\s*macro_rules!\s*(?<name>\w+)/, "macro"],
      [/^\s*(unsafe\s+)?impl\b(<[^>]*>)?\s+([\w:<>, &']+\s+for\s+)?(?<name>\w+)/, "class", { containerOnly: true }],
    ],
    C_COMMENT,
    /\b(fn|struct|enum|trait|type|const|static|mod|macro_rules|impl)\b/,
    // The first words of the patterns.
    lineFilter(/^\s*(pub|default|const|async|unsafe|extern|fn|struct|enum|trait|type|static|mod|macro_rules|impl)/),
  ),
  imports: collect(/^\s*(pub|use|mod)/, [/^\s*(pub\s+)?use\s+(?<module>[\w:]+)/g, /^\s*(pub\s+)?mod\s+(?<module>\w+)\s*;/g], /\b(use|mod)\b/),
};

const JAVA_MODIFIERS = "((public|private|protected|static|final|abstract|sealed|non-sealed|strictfp|synchronized|native|default|transient|volatile)\\s+)*";
const java: LanguageSpec = {
  name: "java",
  blocks: "brace",
  definitions: byPatterns(
    [
      [new RegExp(`^\\s*(@\\w+(\\([^)]*\\))?\\s+)*${JAVA_MODIFIERS}(class|record)\\s+(?<name>\\w+)`), "class"],
      [new RegExp(`^\\s*(@\\w+(\\([^)]*\\))?\\s+)*${JAVA_MODIFIERS}(interface|@interface)\\s+(?<name>\\w+)`), "interface"],
      [new RegExp(`^\\s*${JAVA_MODIFIERS}enum\\s+(?<name>\\w+)`), "enum"],
      [new RegExp(`^\\s+${JAVA_MODIFIERS}static\\s+final\\s+[\\w<>\\[\\], ?]+\\s+(?<name>[A-Z][A-Z0-9_]*)\\s*=`), "constant", { singleLine: true, memberOnly: true }],
      [new RegExp(`^\\s+${JAVA_MODIFIERS}(<[^>]+>\\s+)?[\\w<>\\[\\],.? ]+\\s+(?<name>\\w+)\\s*\\([^;=]*$`), "method", { memberOnly: true }, "shape"],
      [/^\s+(public|private|protected)\s+(?<name>[A-Z]\w*)\s*\([^;=]*$/, "method", { memberOnly: true }],
    ],
    /^\s*(\/\/|\/\*|\*|@\w+\s*$|return\b|throw\b|new\b|else\b)/,
    /\b(class|record|interface|enum|final)\b|\)\s*(throws\s+[\w., ]+)?\s*\{?\s*$|\($/,
    // The first words of the declaration patterns; methods have a `(` with no `;` or `=` after it,
    // and a `;` or `=` before it only inside `<...>` (so after a `<`).
    lineFilter(/^\s*(@|public|private|protected|static|final|abstract|sealed|non-sealed|strictfp|synchronized|native|default|transient|volatile|class|record|interface|enum)/, "", {
      pattern: /^(?![^;=<]*[;=])[\s\S]*\([^;=]*$/,
      notLast: ";=",
    }),
  ),
  imports: collect(["port"], [/^\s*import\s+(static\s+)?(?<module>[\w.*]+)\s*;/g], /^\s*import\b/),
};

const C_NOT_TYPE = /^(return|else|case|goto|typedef|using|delete|throw)\b/;
const C_TYPEDEF_OPENING = /^typedef\s+(struct|union|enum)\s*\{?\s*$/;
const C_TYPEDEF_CLOSING = /^\}\s*(\w+)\s*;/;
const cPatternDefinitions = byPatterns(
  [
    [/^\s*#\s*define\s+(?<name>\w+)/, "macro", { singleLine: true }],
    [/^\s*(typedef\s+)?(struct|union)\s+(?<name>\w+)\s*(:[^;]*)?\{?\s*$/, "struct"],
    [/^\s*(template\s*<.*>\s*)?class\s+(\w+\s+)?(?<name>\w+)\s*(final\s*)?(:[^;]*)?\{?\s*$/, "class"],
    [/^(typedef\s+)?enum\s+(class\s+)?(?<name>\w+)\s*(:\s*\w+\s*)?\{?\s*$/, "enum"],
    [/^namespace\s+(?<name>\w+)/, "module"],
    [/^typedef\s+[^{}]*?\(?\*?\s*(?<name>\w+)\)?\s*(\([^)]*\))?\s*;\s*$/, "type", { singleLine: true }],
    [/^(static\s+)?(const\s+)?[\w\s*]+\s+\*?(?<name>[A-Z][A-Z0-9_]{2,})\s*(\[[^\]]*\])?\s*=/, "constant", { singleLine: true }, undefined, "="],
    [/^(?!\s)(template\s*<.*>\s*)?[A-Za-z_][\w\s*&:<>,]*?[\s*&]\**(?<parent>\w+)::(?<name>~?\w+)\s*\([^;]*$/, "method", {}, "shape", "::"],
    [/^(?!\s)[A-Za-z_][\w\s*&:<>,]*?[\s*&]\**(?<name>\w+)\s*\([^;]*$/, "function", {}, "shape"],
    [
      /^\s+(virtual\s+|static\s+|inline\s+|explicit\s+)*([A-Za-z_][\w\s*&:<>,]*?[\s*&]\**)?(?<name>~?\w+)\s*\([^;=]*\)\s*(const\s*)?(override\s*)?(noexcept\s*)?\{/,
      "method",
      { memberOnly: true },
      "shape",
      "{",
    ],
  ],
  /^\s*(\/\/|\/\*|\*)/,
  /^\s*#\s*define|^\s*(typedef|struct|union|enum|class|namespace|template)\b|^[A-Za-z_]|\)\s*(const\s*)?(override\s*)?(noexcept\s*)?\{\s*$/,
  // The gate's alternatives.
  lineFilter(/^\s*(#|typedef|struct|union|enum|class|namespace|template)|^[A-Za-z_]/, "{"),
);

function cDefinitions(lines: string[], text: string): RawSymbol[] {
  const symbols = cPatternDefinitions(lines).filter((symbol) => !C_NOT_TYPE.test(lines[symbol.line]!.trim()));
  // typedef struct { ... } Name;  — the name comes at the end of the block.
  for (const line of linesContaining(text, lines, ["ypedef"])) {
    if (!C_TYPEDEF_OPENING.test(lines[line]!)) continue;
    for (let scan = line + 1; scan < lines.length && scan < line + 400; scan++) {
      const close = C_TYPEDEF_CLOSING.exec(lines[scan]!);
      if (close !== null) {
        symbols.push({ name: close[1]!, kind: "type", line });
        break;
      }
    }
  }
  return symbols.sort((left, right) => left.line - right.line);
}

const c: LanguageSpec = {
  name: "c",
  blocks: "brace",
  definitions: cDefinitions,
  imports: collect(["#"], [/^\s*#\s*include\s*[<"](?<module>[^>"]+)[>"]/g], /^\s*#/),
};
const cpp: LanguageSpec = { ...c, name: "cpp" };

const BY_EXTENSION: Record<string, LanguageSpec> = {
  ts: typescript,
  tsx: typescript,
  mts: typescript,
  cts: typescript,
  js: { ...typescript, name: "javascript" },
  jsx: { ...typescript, name: "javascript" },
  mjs: { ...typescript, name: "javascript" },
  cjs: { ...typescript, name: "javascript" },
  py: python,
  pyi: python,
  go,
  rs: rust,
  java,
  c,
  h: c,
  cc: cpp,
  cpp,
  cxx: cpp,
  hpp: cpp,
  hh: cpp,
  hxx: cpp,
};

/** Names of languages without definition patterns, for the language table. */
const PLAIN_LANGUAGES: Record<string, string> = {
  md: "markdown",
  json: "json",
  yaml: "yaml",
  yml: "yaml",
  toml: "toml",
  sh: "shell",
  bash: "shell",
  html: "html",
  css: "css",
  scss: "css",
  sql: "sql",
  rb: "ruby",
  php: "php",
  kt: "kotlin",
  swift: "swift",
  cs: "csharp",
  txt: "text",
  xml: "xml",
};

function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot <= 0 ? "" : base.slice(dot + 1).toLowerCase();
}

/** The spec for a file, or undefined when the index knows no definitions for its language. */
export function languageSpecOf(path: string): LanguageSpec | undefined {
  return BY_EXTENSION[extensionOf(path)];
}

/** A language name for any file ("other" when unknown). */
export function languageOf(path: string): string {
  const extension = extensionOf(path);
  const spec = BY_EXTENSION[extension];
  if (spec !== undefined) return spec.name;
  const base = path.slice(path.lastIndexOf("/") + 1);
  if (base === "Makefile" || base === "Dockerfile") return base.toLowerCase();
  return PLAIN_LANGUAGES[extension] ?? "other";
}
