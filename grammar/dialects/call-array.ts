/**
 * A JSON array of calls (`[{"name": …, "arguments": {…}}, {…}]`, as Mistral, Llama and others
 * write several at once): where each of its objects lies, so each is read and mapped as a call of
 * its own, with its own span.
 */
import type { Position } from "../ast.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LINE_FEED = 0x0a;

/**
 * The [start, end) index pairs of the objects directly inside the array that opens at
 * `text[from]` (a `[`), in order; undefined when something else stands there (a string, a
 * number, a nested array), or the array does not close. One pass, linear in the text.
 */
export function objectsOfArray(text: string, from: number): [number, number][] | undefined {
  const objects: [number, number][] = [];
  let depth = 0;
  let objectStart = -1;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
      continue;
    }
    switch (text[i]) {
      case '"':
        if (depth < 2) return undefined;
        inString = true;
        break;
      case "[":
      case "{":
        if (depth === 1) {
          if (text[i] === "[") return undefined;
          objectStart = i;
        }
        depth++;
        break;
      case "]":
      case "}":
        depth--;
        if (depth === 1) objects.push([objectStart, i + 1]);
        if (depth === 0) return objects;
        break;
      case ",":
      case " ":
      case "\t":
      case "\r":
      case "\n":
        break;
      default:
        if (depth < 2) return undefined;
    }
  }
  return undefined;
}

/**
 * Positions of increasing indexes of `text`, which starts at `start`: each found from the one
 * before, so the positions of all a text's objects cost one pass.
 */
export class PositionWalk {
  private index = 0;
  private line: number;
  private lineStartIndex: number;

  constructor(
    private readonly text: string,
    private readonly start: Position,
  ) {
    this.line = start.line;
    // The text's first line starts `start.column - 1` characters before it.
    this.lineStartIndex = 1 - start.column;
  }

  /** The position of `index` (no smaller than the last one asked for). */
  at(index: number): Position {
    for (; this.index < index; this.index++) {
      if (this.text.charCodeAt(this.index) === LINE_FEED) {
        this.line++;
        this.lineStartIndex = this.index + 1;
      }
    }
    return { offset: this.start.offset + index, line: this.line, column: index - this.lineStartIndex + 1 };
  }
}
