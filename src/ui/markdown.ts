/**
 * Renders a model's markdown reply for the terminal as it streams, a line at a time:
 * headings, lists, quotes, emphasis, inline code, links, and fenced code with highlighting.
 * Protocol command lines are dimmed: the person reads their action descriptions instead.
 */
import type { ChalkInstance } from "chalk";
import { startsWithCommand } from "../../grammar/command-start.js";
import { LineHighlighter } from "./highlight.js";

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;

export class MarkdownRenderer {
  private partial = "";
  /** Characters of the unfinished line already drawn raw (live), to be redrawn rendered. */
  private drawnRaw = 0;
  private fence: { marker: string; highlighter: LineHighlighter } | undefined;
  private heredocTag: string | undefined;

  /**
   * @param liveWidth on a terminal, its width: an unfinished line is drawn as it comes while it
   *   fits on one row, and redrawn rendered when it ends
   */
  constructor(
    private readonly style: ChalkInstance,
    private readonly write: (text: string) => void,
    private readonly liveWidth?: number,
  ) {}

  /** Takes a chunk of the reply; writes every line it completes, and the rest live when it can. */
  push(text: string): void {
    this.partial += text;
    let newline = this.partial.indexOf("\n");
    while (newline !== -1) {
      this.writeLine(this.partial.slice(0, newline));
      this.partial = this.partial.slice(newline + 1);
      newline = this.partial.indexOf("\n");
    }
    this.drawLive();
  }

  /** True when no unfinished line is waiting for its line break. */
  get atLineStart(): boolean {
    return this.partial === "";
  }

  /** Writes what is left of the reply. */
  end(): void {
    if (this.partial) this.writeLine(this.partial);
    this.partial = "";
    this.fence = undefined;
    this.heredocTag = undefined;
  }

  private writeLine(line: string): void {
    const redraw = this.drawnRaw > 0 ? "\r\x1b[K" : "";
    this.drawnRaw = 0;
    this.write(`${redraw}${this.renderLine(line)}\n`);
  }

  /** Draws the unfinished line's new characters while the whole line fits on one row. */
  private drawLive(): void {
    if (this.liveWidth === undefined) return;
    // Wide characters (CJK, emoji) take two columns: counted as two to stay on one row.
    const columns = Array.from(this.partial).reduce((sum, character) => sum + (character.codePointAt(0)! > 0x2e7f ? 2 : 1), 0);
    if (columns >= this.liveWidth || /[\x00-\x1f\x7f]/.test(this.partial)) {
      // Too long (it would wrap) or holding control characters: it waits for its line break.
      if (this.drawnRaw > 0) this.write("\r\x1b[K");
      this.drawnRaw = 0;
      return;
    }
    this.write(this.partial.slice(this.drawnRaw));
    this.drawnRaw = this.partial.length;
  }

  private renderLine(line: string): string {
    const style = this.style;
    if (this.heredocTag !== undefined) {
      if (line.trimEnd() === this.heredocTag) this.heredocTag = undefined;
      return style.dim(line);
    }
    const fence = FENCE.exec(line);
    if (this.fence) {
      if (fence && fence[1]![0] === this.fence.marker[0] && fence[1]!.length >= this.fence.marker.length && !fence[2]) {
        this.fence = undefined;
        return style.dim(line);
      }
      return `${style.dim("│")} ${this.fence.highlighter.highlight(line)}`;
    }
    if (fence) {
      this.fence = { marker: fence[1]!, highlighter: new LineHighlighter(fence[2] ?? "", style) };
      return style.dim(line);
    }
    if (startsWithCommand(line.trimStart())) {
      const heredoc = /<<([A-Za-z_]\w*)\s*$/.exec(line);
      if (heredoc) this.heredocTag = heredoc[1];
      return style.dim(line);
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) return heading[1]!.length === 1 ? style.bold.underline(heading[2]!) : style.bold(heading[2]!);
    const quote = /^>\s?(.*)$/.exec(line);
    if (quote) return `${style.dim("│")} ${style.italic(this.inline(quote[1]!))}`;
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
    if (bullet) return `${bullet[1]}${style.cyan("•")} ${this.inline(bullet[2]!)}`;
    const numbered = /^(\s*)(\d+)[.)]\s+(.*)$/.exec(line);
    if (numbered) return `${numbered[1]}${style.cyan(`${numbered[2]}.`)} ${this.inline(numbered[3]!)}`;
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return style.dim("─".repeat(40));
    return this.inline(line);
  }

  private inline(text: string): string {
    const style = this.style;
    if (style.level === 0) return text;
    return text
      .replace(/`([^`]+)`/g, (_, code: string) => style.cyan(code))
      .replace(/\*\*([^*]+)\*\*/g, (_, bold: string) => style.bold(bold))
      .replace(/(^|[^*\w])\*([^*\s][^*]*)\*/g, (_, before: string, emphasis: string) => `${before}${style.italic(emphasis)}`)
      .replace(/(^|\W)_([^_\s][^_]*)_(?=\W|$)/g, (_, before: string, emphasis: string) => `${before}${style.italic(emphasis)}`)
      .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, label: string, url: string) => `${style.underline(label)} ${style.dim(`(${url})`)}`);
  }
}
