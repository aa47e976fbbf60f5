/**
 * Command-shaped text inside inline code spans, and position helpers shared with the scanner.
 * A span's content is known in full when it is searched, so this runs over a finished string.
 */
import type { Mention, MentionContext, Position } from "./ast.js";
import { CommandMachine, Outcome, type MachineHost } from "./command-machine.js";

/** The position just after `text`, which starts at `start`. */
export function endPosition(start: Position, text: string): Position {
  const lastLineFeed = text.lastIndexOf("\n");
  if (lastLineFeed < 0) return { offset: start.offset + text.length, line: start.line, column: start.column + text.length };
  let lines = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lines++;
  return { offset: start.offset + text.length, line: start.line + lines, column: text.length - lastLineFeed };
}

const WHERE: Record<MentionContext, string> = {
  fence: "inside a code fence",
  "indented-code": "inside an indented code block (4 or more spaces of indentation)",
  "inline-code": "inside inline code (backticks)",
  html: "inside raw HTML",
  quote: "inside a block quote (a line starting with >)",
  reasoning: "inside reasoning (a <think> block or a gpt-oss analysis message)",
};

/** Where a mention was, in words for a person or a model: "inside a block quote (…)". */
export function describeMentionContext(context: MentionContext): string {
  return WHERE[context];
}

/** The first line of `text`, without its line break. */
export function firstLine(text: string): string {
  const lineFeed = text.indexOf("\n");
  if (lineFeed < 0) return text;
  return text.slice(0, text.charCodeAt(lineFeed - 1) === 0x0d ? lineFeed - 1 : lineFeed);
}

/**
 * Finds mentions in a finished stretch of inert text: a code span's content (which may run over
 * lines), a fence opener's info string, an inert line, a tag.
 */
export class MentionFinder implements MachineHost {
  line = 1;
  lineStart = 0;
  private readonly machine = new CommandMachine(this);
  /** The content being searched, and where its command's `[` is. */
  private content = "";
  private bracket = 0;

  textTo(index: number): string {
    return this.content.slice(this.bracket, index);
  }

  newline(offset: number): boolean {
    this.line++;
    this.lineStart = offset + 1;
    return false;
  }

  /** Mentions in `content`, which starts at absolute `offset` on `line` (whose start is `lineStart`). */
  find(content: string, offset: number, line: number, lineStart: number, context: Mention["context"] = "inline-code"): Mention[] {
    this.line = line;
    this.lineStart = lineStart;
    const found: Mention[] = [];
    let i = 0;
    let counted = 0;
    // The next line feed not passed yet (-1: none), so a long line is searched for it once.
    let lineFeed = content.indexOf("\n");
    while (i < content.length) {
      const bracket = content.indexOf("[", i);
      if (bracket < 0) break;
      // Line feeds before the bracket that the machine did not consume.
      for (; lineFeed >= 0 && lineFeed < bracket; lineFeed = content.indexOf("\n", lineFeed + 1)) {
        if (lineFeed >= Math.max(counted, i)) this.newline(offset + lineFeed);
      }
      counted = bracket;
      if (bracket > i && content.charCodeAt(bracket - 1) === 0x5c) {
        i = bracket + 1;
        continue;
      }
      const machine = this.machine;
      this.content = content;
      this.bracket = bracket;
      machine.begin(offset + bracket);
      const outcome = machine.feed(content, bracket + 1, offset);
      if (outcome === Outcome.NotCommand) {
        i = machine.stop;
        continue;
      }
      if (outcome === Outcome.Running && !machine.confirmed) break;
      const text = outcome === Outcome.Complete ? content.slice(bracket, machine.stop) : content.slice(bracket);
      const start = { offset: offset + bracket, line: this.machine.startLine, column: this.machine.startColumn };
      found.push({ text, context, span: { start, end: endPosition(start, text) } });
      if (outcome !== Outcome.Complete) break;
      i = machine.stop;
      counted = i;
    }
    return found;
  }
}
