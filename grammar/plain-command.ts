/**
 * The common command read without the lexer and parser: one line, no whitespace, each value bare
 * or quoted without an escape, no key twice (`[FILE_OP:action=read:path=c3JjL2EudHM=]`,
 * `[FILE_OP:action=read:path="src/a.ts"]`). What `plainCommand` gives is what the lexer and parser
 * give for the same text (test/grammar/plain-command.test.ts checks it on generated and broken
 * commands); anything else, or anything in doubt, it leaves to them.
 *
 * In a replay of 10,000 reads, the lexer's tokens and the parser's rules cost about 1.5 µs a
 * command, about as much as everything else the scanner does for it.
 */
import type { Command, Parameter, Position } from "./ast.js";
import { BACKSLASH, BARE, CLOSE_BRACKET, COLON, EQUALS, KEY_FIRST, KEY_REST, NAME_FIRST, NAME_REST, OPEN_BRACKET, QUOTE } from "./chars.js";

/** Whether `code` is in the ASCII class `table` (chars.ts). */
function isIn(table: Uint8Array, code: number): boolean {
  return code < 128 && table[code] === 1;
}

/**
 * The command `text` (one whole command, from `[` through `]`, starting at `start`) when it is
 * written in the plain form above; undefined for any other text, which the lexer and parser read.
 */
export function plainCommand(text: string, start: Position): Command | undefined {
  const length = text.length;
  if (text.charCodeAt(0) !== OPEN_BRACKET || text.charCodeAt(length - 1) !== CLOSE_BRACKET || !isIn(NAME_FIRST, text.charCodeAt(1))) return undefined;
  let index = 2;
  while (isIn(NAME_REST, text.charCodeAt(index))) index++;
  if (text.charCodeAt(index) !== COLON) return undefined;
  const name = text.slice(1, index);
  const parameters: Parameter[] = [];
  for (;;) {
    const keyStart = ++index;
    if (!isIn(KEY_FIRST, text.charCodeAt(index))) return undefined;
    index++;
    while (isIn(KEY_REST, text.charCodeAt(index))) index++;
    // `<<TAG` (a heredoc), whitespace or anything else after the key: the parser's.
    if (text.charCodeAt(index) !== EQUALS) return undefined;
    const key = text.slice(keyStart, index);
    const valueStart = ++index;
    const end = text.charCodeAt(index) === QUOTE ? quotedEnd(text, index) : bareEnd(text, index);
    if (end < 0) return undefined;
    for (const earlier of parameters) if (earlier.key === key) return undefined;
    const raw = text.slice(valueStart, end);
    const form = raw.charCodeAt(0) === QUOTE ? "quoted" : "bare";
    const value = form === "quoted" ? raw.slice(1, -1) : raw;
    parameters.push({ key, form, raw, text: value, span: { start: positionAt(start, keyStart), end: positionAt(start, end) } });
    index = end;
    if (index === length - 1) break;
    if (text.charCodeAt(index) !== COLON) return undefined;
  }
  return { protocol: name.toUpperCase(), name, parameters, span: { start, end: positionAt(start, length) } };
}

/** Where the bare value at `from` ends (its `=` padding included), or -1 when none starts there. */
function bareEnd(text: string, from: number): number {
  let index = from;
  while (isIn(BARE, text.charCodeAt(index))) index++;
  if (index === from) return -1;
  while (text.charCodeAt(index) === EQUALS) index++;
  return index;
}

/** Where the quoted value at `from` ends (just past its closing quote), or -1 for one with an escape, a control character or no end. */
function quotedEnd(text: string, from: number): number {
  for (let index = from + 1; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) return index + 1;
    if (code === BACKSLASH || code < 0x20) return -1;
  }
  return -1;
}

/** The position `relative` characters into a command of one line that starts at `start`. */
function positionAt(start: Position, relative: number): Position {
  return { offset: start.offset + relative, line: start.line, column: start.column + relative };
}
