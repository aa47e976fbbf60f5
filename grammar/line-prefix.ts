/**
 * How far a line's beginning goes: the characters the BlockTracker (blocks.ts) reads before it
 * can tell what the line is, skipped by the scanner's loop (scanner.ts) in one pass.
 */
import { BACKTICK, LINE_FEED } from "./chars.js";
import { Need } from "./blocks.js";

/** Characters that can only be part of a line's beginning (markers, indentation, fence runs). */
function prefixTable(): Uint8Array {
  const table = new Uint8Array(128).fill(1);
  for (const character of " \t\r>-+*_=#.)`~0123456789") table[character.charCodeAt(0)] = 0;
  return table;
}
const PREFIX_END = prefixTable();

/** Index of the first character at or after `from` that ends a line's beginning (given `need`), or `input.length`. */
export function prefixEnd(input: string, from: number, need: Need): number {
  const end = input.length;
  let i = from;
  if (need === Need.Decider) {
    while (i < end) {
      const code = input.charCodeAt(i);
      if (code >= 128 || PREFIX_END[code] === 1) return i;
      i++;
    }
    return end;
  }
  while (i < end) {
    const code = input.charCodeAt(i);
    if (code === LINE_FEED || (code === BACKTICK && need === Need.LineOrBacktick)) return i;
    i++;
  }
  return end;
}
