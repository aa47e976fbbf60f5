/**
 * The wording of syntax errors. Each message says what was wrong and how to write it right:
 * a model reads these and retries.
 */
import { describeCharacter } from "./chars.js";

/** Where a command or value started, as `line:column`. */
export function at(line: number, column: number): string {
  return `${line}:${column}`;
}

const BARE_CHARACTERS = "A-Z a-z 0-9 + / _ . , @ % ~ -";

/** What the parser wanted at the point where a command broke, by machine situation. */
export const expectations = {
  keyAfterColon: () => "a key after `:` (letters, digits, `_`, `-`; no `:` right before `]`)",
  assignAfterKey: (key: string) => `\`=\` or \`<<\` after the key ${key}`,
  secondLessThan: (key: string) => `\`<<TAG\` after ${key} (two \`<\`, e.g. ${key}<<EOF)`,
  tagAfterHeredoc: (key: string) => `a heredoc tag right after \`<<\` (letters, digits, \`_\`; e.g. ${key}<<EOF)`,
  lineBreakAfterTag: (key: string, tag: string) =>
    `a line break after \`${key}<<${tag}\` (the heredoc header ends its line; the body starts on the next line; a tag holds only letters, digits and \`_\`)`,
  value: (key: string) => `a value after ${key}=: base64 (${key}=aGVsbG8=), a quoted string (${key}="hello") or a heredoc (${key}<<EOF)`,
  afterValue: (key: string) => `\`:\` or \`]\` after the value of ${key}`,
  afterBare: (key: string) => `\`:\` or \`]\` after the value of ${key} (a bare value holds only ${BARE_CHARACTERS} and may end in = or ==; write ${key}="..." for anything else)`,
};

export function unexpectedCharacter(name: string, expected: string, found: number | undefined, startLine: number, startColumn: number): string {
  return `In [${name}: (started at ${at(startLine, startColumn)}), expected ${expected}, found ${describeCharacter(found)}`;
}

export function missingValue(name: string, key: string, found: number): string {
  return `[${name}: ${key} has no value before ${describeCharacter(found)} — write ${key}="..." (quoted), ${key}=<base64> or ${key}<<EOF (heredoc)`;
}

export function rawControlInQuoted(name: string, key: string, found: number): string {
  const how = found === 0x0a ? `write it as \\n inside the quotes, or use a heredoc (${key}<<EOF)` : "write it as a JSON escape (\\t, \\r, \\uXXXX)";
  return `[${name}: the quoted value of ${key} holds ${describeCharacter(found)} as a raw character; ${how}`;
}

export function rawLineBreakInQuoted(name: string, key: string): string {
  return `[${name}: the quoted value of ${key} holds a raw line break; write it as \\n inside the quotes, or use a heredoc (${key}<<EOF)`;
}

/** What a message about a broken quoted value adds: where the value was taken to end. */
export const BROKEN_VALUE_TAKEN = ' — the text up to the next `"]` was taken as that value and nothing in it ran';

export function colonForEquals(name: string, key: string, line: number, column: number): string {
  return `[${name}: the key ${key} is followed by \`:\` at ${at(line, column)}, where its \`=\` belongs (${key}="…") — nothing ran`;
}

export function quoteLeftOpen(name: string, key: string, line: number, column: number): string {
  return `[${name}: the quoted value of ${key} opened at ${at(line, column)} is not closed before the line ends: its closing \`"\` is missing before the \`]\` — nothing ran`;
}

export function badEscape(name: string, key: string, found: number | undefined): string {
  return `[${name}: \`\\${found === undefined ? "" : String.fromCharCode(found)}\` is not a JSON escape in the quoted value of ${key}; use \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX (four hex digits)`;
}

export function unterminatedQuoted(name: string, key: string, line: number, column: number): string {
  return `[${name}: the quoted value of ${key} opened at ${at(line, column)} is never closed — end it with \`"\` and close the command with \`]\``;
}

export function unterminatedHeredoc(name: string, key: string, tag: string, line: number, column: number, sawTagWith: string | undefined): string {
  const note = sawTagWith ? ` (a line \`${tag}${sawTagWith}\` does not close it: put \`${tag}\` alone on its line and \`${sawTagWith}\` on the next)` : "";
  return `[${name}: the heredoc ${key}<<${tag} opened at ${at(line, column)} is never closed — end it with a line that is exactly ${tag}, then \`]\`${note}`;
}

export function unterminatedCommand(name: string, line: number, column: number): string {
  return `[${name}: the command that starts at ${at(line, column)} is missing its closing \`]\``;
}

export function duplicateKey(name: string, key: string, firstLine: number, firstColumn: number): string {
  return `[${name}: the key ${key} appears twice (first at ${at(firstLine, firstColumn)}); a key may appear once per command — keep one`;
}

export function strayQuote(name: string, key: string, line: number, column: number): string {
  return `[${name}: the quoted value of ${key} ends at the \`"\` at ${at(line, column)}, but the text goes on — a \`"\` inside a quoted value is written \\" (or write the value as a heredoc, ${key}<<EOF); the text up to the next \`"]\` was taken as the rest of that value and nothing in it ran`;
}

export function missingColon(name: string, key: string, line: number, column: number): string {
  const after = key.startsWith("the ") ? key : `the quoted value of ${key}`;
  return `[${name}: after ${after} (at ${at(line, column)}) the next parameter needs a \`:\` before it — parameters are separated by \`:\`, not spaces or commas`;
}

export function heredocClosedEarly(name: string, key: string, tag: string, line: number): string {
  return `[${name}: the heredoc ${key}<<${tag} was closed by the line ${tag} at line ${line}, but more text follows before \`]\` — if that line belongs to the text, pick a tag that is no line of it (${key}<<${tag}2 … ${tag}2); the text up to the next line ${tag} was taken as body and nothing in it ran`;
}

export function otherQuotes(name: string, key: string, line: number, column: number, quotes: string): string {
  return `[${name}: the value of ${key} at ${at(line, column)} is in ${quotes}; a quoted value takes straight double quotes (${key}="…", a \`"\` inside written \\"), or write it as a heredoc (${key}<<EOF) — the text up to its closing quote was taken as that value and nothing in it ran`;
}
