/**
 * Renders a model's markdown reply for the terminal as it streams, a line at a time:
 * headings, lists, quotes, emphasis, inline code, links, and fenced code with highlighting.
 * Protocol command lines are dimmed: the person reads their action descriptions instead.
 */
import type { ChalkInstance } from "chalk";
import { startsWithCommand } from "../../grammar/command-start.js";
import { LineHighlighter } from "./highlight.js";

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$/;

/** Rows of a markdown table as aligned columns; the rule under the header becomes a line. */
function renderTable(rows: string[], style: ChalkInstance, inline: (text: string) => string): string {
  const cells = rows
    .filter((row) => !TABLE_RULE.test(row))
    .map((row) =>
      row
        .trim()
        .slice(1, -1)
        .split("|")
        .map((cell) => inline(cell.trim())),
    );
  const hasHeader = rows.length > 1 && TABLE_RULE.test(rows[1]!);
  const visible = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "").length;
  const widths: number[] = [];
  for (const row of cells) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, visible(cell))));
  const line = (row: string[]) => row.map((cell, index) => cell + " ".repeat((widths[index] ?? 0) - visible(cell))).join(style.dim(" │ "));
  const out = cells.map((row, index) => (hasHeader && index === 0 ? style.bold(line(row)) : line(row)));
  if (hasHeader) out.splice(1, 0, style.dim(widths.map((width) => "─".repeat(width)).join("─┼─")));
  return `${out.join("\n")}\n`;
}

export class MarkdownRenderer {
  private partial = "";
  /** Characters of the unfinished line already drawn raw (live), to be redrawn rendered. */
  private drawnRaw = 0;
  private fence: { marker: string; highlighter: LineHighlighter } | undefined;
  private heredocTag: string | undefined;
  private table: string[] = [];

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

  /** True when no unfinished line (or table) is waiting to be drawn. */
  get atLineStart(): boolean {
    return this.partial === "" && this.table.length === 0;
  }

  /** Ends the unfinished line here, as something else is drawn next; a line of blanks only is dropped. */
  breakLine(): void {
    this.dropBlankLine();
    if (this.partial) this.writeLine(this.partial);
    this.partial = "";
    this.flushTable();
  }

  /** An unfinished line of blanks only is dropped (what followed it is not drawn). */
  dropBlankLine(): void {
    if (this.partial.trim()) return;
    if (this.drawnRaw > 0) this.write("\r\x1b[K");
    this.partial = "";
    this.drawnRaw = 0;
  }

  /** Writes what is left of the reply. */
  end(): void {
    if (this.partial) this.writeLine(this.partial);
    this.flushTable();
    this.partial = "";
    this.fence = undefined;
    this.heredocTag = undefined;
  }

  private writeLine(line: string): void {
    const redraw = this.drawnRaw > 0 ? "\r\x1b[K" : "";
    this.drawnRaw = 0;
    // Table rows wait for the table's end, so their columns can be lined up.
    if (!this.fence && this.heredocTag === undefined && TABLE_ROW.test(line)) {
      if (redraw) this.write(redraw);
      this.table.push(line);
      return;
    }
    this.flushTable();
    this.write(`${redraw}${this.renderLine(line)}\n`);
  }

  private flushTable(): void {
    if (!this.table.length) return;
    this.write(renderTable(this.table, this.style, (text) => this.inline(text)));
    this.table = [];
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
    // Without colour the emphasis markers still go: the words show plain, never as **word**.
    return text
      .replace(/`([^`]+)`/g, (quoted, code: string) => (style.level === 0 ? quoted : style.cyan(code)))
      .replace(/\*\*([^*]+)\*\*/g, (_, bold: string) => style.bold(bold))
      .replace(/(^|[^*\w])\*([^*\s][^*]*)\*/g, (_, before: string, emphasis: string) => `${before}${style.italic(emphasis)}`)
      .replace(/(^|\W)_([^_\s][^_]*)_(?=\W|$)/g, (_, before: string, emphasis: string) => `${before}${style.italic(emphasis)}`)
      .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, label: string, url: string) => `${style.underline(label)} ${style.dim(`(${url})`)}`);
  }
}
