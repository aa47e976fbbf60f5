/**
 * Command-shaped text inside inline code spans, and position helpers shared with the scanner.
 * A span's content is known in full when it is searched, so this runs over a finished string.
 */
import type { Mention, Position } from "./ast.js";
import { CommandMachine, Outcome, type MachineHost } from "./command-machine.js";

/** The position just after `text`, which starts at `start`. */
export function endPosition(start: Position, text: string): Position {
  const lastLineFeed = text.lastIndexOf("\n");
  if (lastLineFeed < 0) return { offset: start.offset + text.length, line: start.line, column: start.column + text.length };
  let lines = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lines++;
  return { offset: start.offset + text.length, line: start.line + lines, column: text.length - lastLineFeed };
}

/** The first line of `text`, without its line break. */
export function firstLine(text: string): string {
  const lineFeed = text.indexOf("\n");
  if (lineFeed < 0) return text;
  return text.slice(0, text.charCodeAt(lineFeed - 1) === 0x0d ? lineFeed - 1 : lineFeed);
}

/** Finds mentions in one line's stretch: an inline code span's content, or a fence opener's info string. */
export class MentionFinder implements MachineHost {
  line = 1;
  lineStart = 0;
  private readonly machine = new CommandMachine(this);

  newline(): boolean {
    return false;
  }

  /** Mentions in `content`, which starts at absolute `offset` on `line` (whose start is `lineStart`). */
  find(content: string, offset: number, line: number, lineStart: number, context: Mention["context"] = "inline-code"): Mention[] {
    this.line = line;
    this.lineStart = lineStart;
    const found: Mention[] = [];
    let i = 0;
    while (i < content.length) {
      const bracket = content.indexOf("[", i);
      if (bracket < 0) break;
      if (bracket > i && content.charCodeAt(bracket - 1) === 0x5c) {
        i = bracket + 1;
        continue;
      }
      const machine = this.machine;
      machine.begin(offset + bracket);
      const outcome = machine.feed(content, bracket + 1, offset);
      if (outcome === Outcome.NotCommand) {
        i = machine.stop;
        continue;
      }
      if (outcome === Outcome.Running && !machine.confirmed) break;
      const text = outcome === Outcome.Complete ? content.slice(bracket, machine.stop) : content.slice(bracket);
      const start = { offset: offset + bracket, line, column: offset + bracket - lineStart + 1 };
      found.push({ text, context, span: { start, end: endPosition(start, text) } });
      if (outcome !== Outcome.Complete) break;
      i = machine.stop;
    }
    return found;
  }
}
