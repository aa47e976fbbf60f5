/**
 * A cursor over one line's beginning as CommonMark reads it: an offset and a column, with tabs
 * expanded to the next multiple of 4 columns (a tab may be consumed only in part), and the next
 * non-space character with the indentation before it. BlockTracker (blocks.ts) reads lines with it.
 */
import { CARRIAGE_RETURN, SPACE, TAB } from "./chars.js";

export abstract class LineCursor {
  // The line being classified: text[start, end).
  protected line = "";
  protected start = 0;
  protected end = 0;
  protected final = false;
  protected offset = 0;
  protected column = 0;
  protected partialTab = false;
  protected nextNonspace = 0;
  protected nextNonspaceColumn = 0;
  protected indent = 0;
  protected blank = false;
  protected nonspaceFound = false;

  protected findNextNonspace(): void {
    // Still before the last non-space found: only the indent changes (columns are absolute), so
    // deep indentation is not walked again for every container.
    if (this.offset <= this.nextNonspace && this.nonspaceFound) {
      this.indent = this.nextNonspaceColumn - this.column;
      return;
    }
    this.nonspaceFound = true;
    const line = this.line;
    let i = this.offset;
    let columns = this.column;
    let code = line.charCodeAt(i);
    const end = this.end;
    while (i < end) {
      if (code === SPACE) columns++;
      else if (code === TAB) columns += 4 - (columns % 4);
      else break;
      code = line.charCodeAt(++i);
    }
    this.blank = this.final && (i >= end || (code === CARRIAGE_RETURN && i === end - 1));
    this.nextNonspace = i;
    this.nextNonspaceColumn = columns;
    this.indent = columns - this.column;
  }

  protected advanceNextNonspace(): void {
    this.offset = this.nextNonspace;
    this.column = this.nextNonspaceColumn;
    this.partialTab = false;
  }

  protected advanceOffset(count: number, columns: boolean): void {
    const line = this.line;
    while (count > 0 && this.offset < this.end) {
      if (line.charCodeAt(this.offset) === TAB) {
        const toTab = 4 - (this.column % 4);
        if (columns) {
          this.partialTab = toTab > count;
          const advance = Math.min(toTab, count);
          this.column += advance;
          if (!this.partialTab) this.offset++;
          count -= advance;
        } else {
          this.partialTab = false;
          this.column += toTab;
          this.offset++;
          count--;
        }
      } else {
        this.partialTab = false;
        this.offset++;
        this.column++;
        count--;
      }
    }
  }
}
