/**
 * The syntax tree of the protocol language (../shared/protocol-language.md).
 * The grammar knows only the generic shape: a protocol name and key/value parameters.
 */

/** A place in the source text. `line` and `column` start at 1; `column` counts UTF-16 code units. */
export interface Position {
  offset: number;
  line: number;
  column: number;
}

/** A range of source text; `end` is exclusive (the position just after the last character). */
export interface Span {
  start: Position;
  end: Position;
}

/** How a value was written: a bare run of characters, a JSON string literal, or a heredoc body. */
export type ValueForm = "bare" | "quoted" | "heredoc";

export interface Parameter {
  key: string;
  form: ValueForm;
  /**
   * The value as written: for `bare` the characters themselves, for `quoted` the literal
   * including its quotes, for `heredoc` the body (without its last line break).
   */
  raw: string;
  /** For `quoted`: the JSON-unescaped string; for `heredoc`: the body; for `bare`: equal to `raw`. */
  text: string;
  /** The heredoc's closing tag, for `heredoc` values. */
  tag?: string;
  /** From the first character of the key to the end of the value (closing tag line included). */
  span: Span;
}

/**
 * How a command was written: `clio` (this language), `clio-variant` (a near-miss of it, such as
 * `[FILE_OP action=read path="a"]`), or another format models are trained on (§4a).
 */
export type Dialect =
  | "clio"
  | "clio-variant"
  | "hermes"
  | "json"
  | "qwen-xml"
  | "glm-xml"
  | "invoke-xml"
  | "deepseek"
  | "mistral"
  | "internlm"
  | "qwen-agent"
  | "kimi"
  | "harmony"
  | "functionary"
  | "react"
  | "xml"
  | "function";

export interface Command {
  /** The protocol name in canonical upper case (`file_op` is `FILE_OP`). */
  protocol: string;
  /** The name as written in the source. */
  name: string;
  parameters: Parameter[];
  /** From `[` to just after `]` (for another dialect: the whole call). */
  span: Span;
  /** How it was written; absent means `clio`. */
  dialect?: Dialect;
}

/**
 * The inert region a mention was found in (contract §4): a fenced code block, an indented code
 * block, a code span, raw HTML (a block or an inline tag), a block quote, or reasoning.
 */
export type MentionContext = "fence" | "indented-code" | "inline-code" | "html" | "quote" | "reasoning";

/** Command-shaped text inside an inert region: not run, but reported. */
export interface Mention {
  text: string;
  context: MentionContext;
  span: Span;
  /** For a call in another dialect: the equivalent command in this language. */
  hint?: string;
}

export type SyntaxErrorCode =
  | "unexpected_character"
  | "unterminated_command"
  | "unterminated_quoted"
  | "invalid_quoted"
  | "unterminated_heredoc"
  | "duplicate_key"
  | "missing_value"
  /** A call in another dialect (or a near-miss of this one) that cannot be mapped onto one command. */
  | "unmapped_call";

export interface SyntaxError {
  code: SyntaxErrorCode;
  /** Says what was wrong and how to write it right. */
  message: string;
  /** The protocol name as written, when the error is inside a command. */
  protocol?: string;
  /** The corrected command (or what to write instead), when one can be told. */
  hint?: string;
  span: Span;
}

/** What the parser returns for any input. It never throws. All lists are in source order. */
export interface ParseResult {
  commands: Command[];
  mentions: Mention[];
  errors: SyntaxError[];
}
