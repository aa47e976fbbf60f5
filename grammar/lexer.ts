/**
 * The Chevrotain lexer for one command's text, with four modes:
 *
 * - `text`: the opening `[NAME:` (pushes `command`);
 * - `command`: keys, `=` (pushes `value`), `<<TAG` + line break (pushes `heredoc`), `:`, `]` (pops);
 * - `value`: a bare value or a quoted JSON string (pops back to `command`);
 * - `heredoc`: the body up to and including the line that is exactly TAG (pops).
 *
 * Long tokens (a 5 MB bare value, a heredoc body) are matched by hand-written pattern
 * functions that run in linear time; nothing here can backtrack.
 */
import { createToken, Lexer, type CustomPatternMatcherReturn, type IToken, type TokenType } from "chevrotain";
import { ModeLexer, type ModeLexerDefinition } from "./mode-lexer.js";
import { BARE, CARRIAGE_RETURN, KEY_FIRST, LINE_FEED, SPACE, TAB, TAG_REST } from "./chars.js";

function match(image: string, payload?: unknown): CustomPatternMatcherReturn {
  const result = [image] as CustomPatternMatcherReturn;
  if (payload !== undefined) result.payload = payload;
  return result;
}

function isBare(code: number): boolean {
  return code < 128 && BARE[code] === 1;
}

function isSpace(code: number): boolean {
  return code === SPACE || code === TAB || code === CARRIAGE_RETURN || code === LINE_FEED;
}

/** `B+ (ws+ B+)* "="*` */
function matchBare(text: string, offset: number): CustomPatternMatcherReturn | null {
  let i = offset;
  const end = text.length;
  if (i >= end || !isBare(text.charCodeAt(i))) return null;
  let last = i;
  while (i < end) {
    const code = text.charCodeAt(i);
    if (isBare(code)) {
      i++;
      last = i;
    } else if (isSpace(code)) {
      let j = i + 1;
      while (j < end && isSpace(text.charCodeAt(j))) j++;
      if (j < end && isBare(text.charCodeAt(j))) i = j;
      else break;
    } else break;
  }
  i = last;
  // Any run of padding: more than two is a base64 near-miss the value's kind reports, not a syntax error.
  while (text.charCodeAt(i) === 0x3d) i++;
  return match(text.slice(offset, i));
}

/** A JSON string literal; its payload is the unescaped text. */
function matchQuoted(text: string, offset: number): CustomPatternMatcherReturn | null {
  if (text.charCodeAt(offset) !== 0x22) return null;
  let i = offset + 1;
  const end = text.length;
  while (i < end) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      const image = text.slice(offset, i + 1);
      try {
        return match(image, JSON.parse(image) as string);
      } catch {
        return null;
      }
    }
    if (code < 0x20) return null;
    i += code === 0x5c ? 2 : 1;
  }
  return null;
}

interface HeredocHeader {
  tag: string;
}

/** `<<TAG`, trailing spaces, and the line break that ends the header line. */
function matchHeredocOpen(text: string, offset: number): CustomPatternMatcherReturn | null {
  if (!text.startsWith("<<", offset)) return null;
  let i = offset + 2;
  if (i >= text.length || !(text.charCodeAt(i) < 128 && KEY_FIRST[text.charCodeAt(i)])) return null;
  i++;
  while (i < text.length && text.charCodeAt(i) < 128 && TAG_REST[text.charCodeAt(i)]) i++;
  const tag = text.slice(offset + 2, i);
  while (i < text.length && (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === TAB)) i++;
  const ending = lineEndingLength(text, i);
  if (ending === 0) return null;
  return match(text.slice(offset, i + ending), { tag } satisfies HeredocHeader);
}

/** Whether text[from..] starts a line that is exactly `tag` plus trailing spaces; returns its end. */
function closingLineEnd(text: string, from: number, tag: string): number {
  if (!text.startsWith(tag, from)) return -1;
  let i = from + tag.length;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === LINE_FEED || (code === CARRIAGE_RETURN && text.charCodeAt(i + 1) !== LINE_FEED)) return i;
    if (code !== SPACE && code !== TAB && code !== CARRIAGE_RETURN) return -1;
    i++;
  }
  return i;
}

/** The length of the line ending at text[at]: 1 for `\n` or a lone `\r`, 2 for `\r\n`, 0 for none. */
function lineEndingLength(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (code === LINE_FEED) return 1;
  if (code !== CARRIAGE_RETURN) return 0;
  return text.charCodeAt(at + 1) === LINE_FEED ? 2 : 1;
}

/** The index just past the next line ending at or after `from`, or -1. */
function nextLineStart(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const ending = lineEndingLength(text, i);
    if (ending !== 0) return i + ending;
  }
  return -1;
}

/** The body through the closing TAG line (its line break excluded); the payload is the body text. */
function matchHeredocBody(text: string, offset: number, tokens: IToken[]): CustomPatternMatcherReturn | null {
  const header = tokens[tokens.length - 1]?.payload as HeredocHeader | undefined;
  if (!header) return null;
  let lineStart = offset;
  for (;;) {
    const end = closingLineEnd(text, lineStart, header.tag);
    if (end >= 0) {
      let bodyEnd = lineStart === offset ? offset : lineStart - 1;
      if (bodyEnd > offset && text.charCodeAt(bodyEnd) === LINE_FEED && text.charCodeAt(bodyEnd - 1) === CARRIAGE_RETURN) bodyEnd--;
      return match(text.slice(offset, end), text.slice(offset, bodyEnd));
    }
    lineStart = nextLineStart(text, lineStart);
    if (lineStart < 0) return null;
  }
}

export const CommandOpen = createToken({ name: "CommandOpen", pattern: /\[[A-Za-z][A-Za-z0-9_]*:/, push_mode: "command" });
export const Text = createToken({ name: "Text", pattern: /[^[]+|\[/, line_breaks: true, group: Lexer.SKIPPED });
export const Whitespace = createToken({ name: "Whitespace", pattern: /[ \t\r\n]+/, line_breaks: true, group: Lexer.SKIPPED });
export const Key = createToken({ name: "Key", pattern: /[A-Za-z_][A-Za-z0-9_-]*/ });
export const Equals = createToken({ name: "Equals", pattern: /=/, push_mode: "value" });
export const Colon = createToken({ name: "Colon", pattern: /:/ });
export const Close = createToken({ name: "Close", pattern: /]/, pop_mode: true });
export const HeredocOpen = createToken({
  name: "HeredocOpen",
  pattern: { exec: matchHeredocOpen },
  line_breaks: true,
  start_chars_hint: ["<"],
  push_mode: "heredoc",
});
export const Bare = createToken({
  name: "Bare",
  pattern: { exec: matchBare },
  line_breaks: true,
  start_chars_hint: [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_.,@%~-"],
  pop_mode: true,
});
export const Quoted = createToken({ name: "Quoted", pattern: { exec: matchQuoted }, start_chars_hint: ['"'], pop_mode: true });
export const HeredocBody = createToken({
  name: "HeredocBody",
  pattern: { exec: matchHeredocBody },
  line_breaks: true,
  pop_mode: true,
});

export const allTokens: TokenType[] = [CommandOpen, Text, Whitespace, Key, Equals, Colon, Close, HeredocOpen, Bare, Quoted, HeredocBody];

/** The command lexer's modes (Chevrotain's multi-mode definition). */
export const commandModes: ModeLexerDefinition = {
  defaultMode: "text",
  modes: {
    text: [CommandOpen, Text],
    command: [Whitespace, Key, Equals, HeredocOpen, Colon, Close],
    value: [Whitespace, Bare, Quoted],
    heredoc: [HeredocBody],
  },
};

let lexer: ModeLexer | undefined;

/** The lexer, built on first use; it tokenizes as Chevrotain's Lexer would (see mode-lexer.ts). */
export function commandLexer(): ModeLexer {
  lexer ??= new ModeLexer(commandModes);
  return lexer;
}
