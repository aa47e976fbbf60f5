/**
 * A lexer over Chevrotain token types grouped in modes that gives what Chevrotain's own `Lexer`
 * gives with `positionTracking: "onlyOffset"`: the same tokens (`image`, `startOffset`,
 * `tokenTypeIdx`, `tokenType`, `payload`), the same errors and the same recovery.
 *
 * Chevrotain's `Lexer` analyses its patterns when it is built, and always fills a 65,536-entry
 * character table first; in a fresh `clio parse` that was one of the largest costs after Node's
 * own start. The command lexer's modes hold at most six patterns, each of which checks its own
 * first character, so trying them in order costs nothing that table would save.
 *
 * Supported patterns are the ones the command lexer uses: a regular expression (one plain
 * character, or anchored at the offset) and a custom matcher (`{ exec }`). test/grammar checks
 * the output against Chevrotain's `Lexer` on the same definition.
 */
import { type CustomPatternMatcherFunc, type ILexingError, type IToken, Lexer, type TokenType } from "chevrotain";

/** The modes, as Chevrotain's multi-mode lexer definition names them. */
export interface ModeLexerDefinition {
  defaultMode: string;
  modes: Record<string, TokenType[]>;
}

export interface ModeLexingResult {
  tokens: IToken[];
  errors: ILexingError[];
}

interface ModePattern {
  tokenType: TokenType;
  /** Lexer.SKIPPED tokens are matched and dropped. */
  skipped: boolean;
  pushMode: string | undefined;
  popMode: boolean;
  /** A one-character pattern, as its character code. */
  character: number | undefined;
  /** A pattern anchored at the offset (sticky). */
  sticky: RegExp | undefined;
  custom: CustomPatternMatcherFunc | undefined;
}

/** Regular-expression sources of one character that mean something other than that character. */
const NOT_PLAIN = new Set(["^", "$", ".", "\\"]);

function compilePattern(tokenType: TokenType): ModePattern {
  const pattern = tokenType.PATTERN;
  const compiled: ModePattern = {
    tokenType,
    skipped: tokenType.GROUP === Lexer.SKIPPED,
    pushMode: tokenType.PUSH_MODE,
    popMode: tokenType.POP_MODE === true,
    character: undefined,
    sticky: undefined,
    custom: undefined,
  };
  if (pattern instanceof RegExp) {
    if (pattern.flags.replace("y", "") !== "") throw new Error(`mode lexer: ${tokenType.name}'s pattern /${pattern.source}/${pattern.flags} has flags it does not support.`);
    if (pattern.source.length === 1 && !NOT_PLAIN.has(pattern.source)) compiled.character = pattern.source.charCodeAt(0);
    else compiled.sticky = new RegExp(pattern.source, "y");
  } else if (typeof pattern === "object" && pattern !== null && "exec" in pattern) {
    compiled.custom = pattern.exec;
  } else {
    throw new Error(`mode lexer: ${tokenType.name}'s pattern kind is not supported (a regular expression or { exec } is).`);
  }
  return compiled;
}

/** What the last successful `matchAt` matched; kept here so a match allocates nothing more than its image. */
const matched: { image: string; payload: unknown } = { image: "", payload: undefined };
/** The command lexer has no token groups; custom matchers are handed this empty set. */
const NO_GROUPS: Record<string, IToken[]> = Object.freeze({});

/** Whether `pattern` matches at `offset`; when it does, `matched` holds the image and any payload. */
function matchAt(pattern: ModePattern, text: string, offset: number, tokens: IToken[]): boolean {
  if (pattern.character !== undefined) {
    if (text.charCodeAt(offset) !== pattern.character) return false;
    matched.image = text[offset]!;
    matched.payload = undefined;
    return true;
  }
  if (pattern.sticky) {
    pattern.sticky.lastIndex = offset;
    if (!pattern.sticky.test(text)) return false;
    matched.image = text.slice(offset, pattern.sticky.lastIndex);
    matched.payload = undefined;
    return true;
  }
  const found = pattern.custom!(text, offset, tokens, NO_GROUPS);
  if (found === null) return false;
  matched.image = found[0];
  matched.payload = (found as { payload?: unknown }).payload;
  return true;
}

export class ModeLexer {
  private readonly modes = new Map<string, ModePattern[]>();
  private readonly defaultMode: string;

  constructor(definition: ModeLexerDefinition) {
    this.defaultMode = definition.defaultMode;
    for (const [name, tokenTypes] of Object.entries(definition.modes)) this.modes.set(name, tokenTypes.map(compilePattern));
  }

  /** Tokens and errors; an unexpected character is reported and skipped up to where a pattern of the mode matches again. */
  tokenize(text: string): ModeLexingResult {
    const tokens: IToken[] = [];
    const errors: ILexingError[] = [];
    const modeStack = [this.defaultMode];
    let patterns = this.modes.get(this.defaultMode)!;
    let offset = 0;
    while (offset < text.length) {
      let chosen: ModePattern | undefined;
      for (const pattern of patterns) {
        if (matchAt(pattern, text, offset, tokens)) {
          chosen = pattern;
          break;
        }
      }
      if (chosen === undefined) {
        const start = offset;
        do offset++;
        while (offset < text.length && !patterns.some((pattern) => matchAt(pattern, text, offset, tokens)));
        const length = offset - start;
        errors.push({
          offset: start,
          line: undefined,
          column: undefined,
          length,
          message: `unexpected character: ->${text.charAt(start)}<- at offset: ${start}, skipped ${length} characters.`,
        });
        continue;
      }
      const token: IToken = { image: matched.image, startOffset: offset, tokenTypeIdx: chosen.tokenType.tokenTypeIdx!, tokenType: chosen.tokenType };
      if (matched.payload !== undefined && matched.payload !== null) token.payload = matched.payload;
      if (!chosen.skipped) tokens.push(token);
      offset += matched.image.length;
      if (chosen.popMode) {
        if (modeStack.length === 1 && chosen.pushMode === undefined) {
          errors.push({
            offset: token.startOffset,
            line: undefined,
            column: undefined,
            length: token.image.length,
            message: `Unable to pop Lexer Mode after encountering Token ->${token.image}<- The Mode Stack is empty`,
          });
        } else modeStack.pop();
      }
      if (chosen.pushMode !== undefined) modeStack.push(chosen.pushMode);
      patterns = this.modes.get(modeStack[modeStack.length - 1]!)!;
    }
    return { tokens, errors };
  }
}
