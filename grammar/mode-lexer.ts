/**
 * A lexer over Chevrotain token types grouped in modes that gives what Chevrotain's own `Lexer`
 * gives with `positionTracking: "onlyOffset"`: the same tokens (`image`, `startOffset`,
 * `tokenTypeIdx`, `tokenType`, `payload`), the same errors and the same recovery.
 *
 * Chevrotain's `Lexer` analyses its patterns when it is built, and always fills a 65,536-entry
 * character table first; in a fresh `clio parse` that was the largest single cost after Node's
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

/** Whether `pattern` matches at `offset`: the length matched and any payload, or undefined. */
function matchAt(pattern: ModePattern, text: string, offset: number, tokens: IToken[]): { image: string; payload: unknown } | undefined {
  if (pattern.character !== undefined) {
    return text.charCodeAt(offset) === pattern.character ? { image: text[offset]!, payload: undefined } : undefined;
  }
  if (pattern.sticky) {
    pattern.sticky.lastIndex = offset;
    return pattern.sticky.test(text) ? { image: text.slice(offset, pattern.sticky.lastIndex), payload: undefined } : undefined;
  }
  const found = pattern.custom!(text, offset, tokens, {});
  return found === null ? undefined : { image: found[0], payload: (found as { payload?: unknown }).payload };
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
      let matched: ModePattern | undefined;
      let found: { image: string; payload: unknown } | undefined;
      for (const pattern of patterns) {
        found = matchAt(pattern, text, offset, tokens);
        if (found) {
          matched = pattern;
          break;
        }
      }
      if (!matched || !found) {
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
      const token: IToken = { image: found.image, startOffset: offset, tokenTypeIdx: matched.tokenType.tokenTypeIdx!, tokenType: matched.tokenType };
      if (found.payload !== undefined && found.payload !== null) token.payload = found.payload;
      if (!matched.skipped) tokens.push(token);
      offset += found.image.length;
      if (matched.popMode) {
        if (modeStack.length === 1 && matched.pushMode === undefined) {
          errors.push({
            offset: token.startOffset,
            line: undefined,
            column: undefined,
            length: token.image.length,
            message: `Unable to pop Lexer Mode after encountering Token ->${token.image}<- The Mode Stack is empty`,
          });
        } else modeStack.pop();
      }
      if (matched.pushMode !== undefined) modeStack.push(matched.pushMode);
      patterns = this.modes.get(modeStack[modeStack.length - 1]!)!;
    }
    return { tokens, errors };
  }
}
