/** The character classes and line patterns of CommonMark's block starts (blocks.ts). */
import { SPACE, TAB } from "./chars.js";

/** `0`–`9`. */
export function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** A space or a tab: CommonMark's indentation and separator characters. */
export function isSpaceOrTab(code: number): boolean {
  return code === SPACE || code === TAB;
}

/** Characters that may begin a block other than a paragraph (CommonMark's "maybe special"). */
export function maybeSpecial(code: number): boolean {
  return (
    code === 0x23 ||
    code === 0x60 ||
    code === 0x7e ||
    code === 0x2a ||
    code === 0x2b ||
    code === 0x5f ||
    code === 0x3d ||
    code === 0x3c ||
    code === 0x3e ||
    code === 0x2d ||
    (code >= 0x30 && code <= 0x39)
  );
}

/** Characters that can only begin paragraph text (not a marker, indentation, a fence, a tag, a line end). */
export const PLAIN = (() => {
  const table = new Uint8Array(128).fill(1);
  for (const character of " \t\r\n>-+*_=#.)`~<0123456789") table[character.charCodeAt(0)] = 0;
  return table;
})();

/** A whole line (its indentation gone) that is a thematic break, a setext underline, an ATX heading's start, a closing fence. */
export const THEMATIC_BREAK = /^(?:\*[ \t]*){3,}$|^(?:_[ \t]*){3,}$|^(?:-[ \t]*){3,}$/;
export const SETEXT_UNDERLINE = /^(?:=+|-+)[ \t]*$/;
export const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/;
export const CLOSING_FENCE = /^(?:`{3,}|~{3,})[ \t]*$/;

/** The length of the run of the character at text[from]. */
export function runLength(text: string, from: number): number {
  const code = text.charCodeAt(from);
  let i = from;
  while (i < text.length && text.charCodeAt(i) === code) i++;
  return i - from;
}
