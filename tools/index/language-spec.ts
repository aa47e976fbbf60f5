/**
 * The shape of a language the index knows (languages.ts lists them; line-patterns.ts builds their
 * definition and import finders) and of the definitions its patterns find.
 */
export type SymbolKind = "function" | "method" | "class" | "interface" | "type" | "enum" | "struct" | "trait" | "constant" | "variable" | "module" | "macro";

/** A definition as a pattern found it, before its block end and parent are known. */
export interface RawSymbol {
  name: string;
  kind: SymbolKind;
  /** 0-based line. */
  line: number;
  /** Set when the pattern knows the container (Go receivers, C++ `Class::method`). */
  parent?: string;
  /** Only a definition inside a class-like container (methods found by shape alone). */
  memberOnly?: boolean;
  /** A container that is not itself a definition (Rust `impl`). */
  containerOnly?: boolean;
  /** The definition ends on this line (no block). */
  singleLine?: boolean;
}

export interface LanguageSpec {
  name: string;
  blocks: "brace" | "indent";
  /** `lines` is `text.split("\n")`. */
  definitions(lines: string[], text: string): RawSymbol[];
  imports(lines: string[], text: string): string[];
}
