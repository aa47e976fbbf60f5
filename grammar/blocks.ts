/**
 * CommonMark 0.31.2 block structure, as far as it decides where code, raw HTML and quoted
 * material are: the open containers (block quotes and list items, with their content columns),
 * the open leaf (paragraph, fenced or indented code, HTML block), lazy continuation, and tabs
 * expanded to the next multiple of 4 columns.
 *
 * The scanner hands over a line's beginning (`classify`): its container markers and
 * indentation, through the first character that decides the line. The verdict says where the
 * line's content starts and what it is, without changing anything; `commit` applies it. A
 * paragraph's continuation lines change nothing, which is what lets the scanner look at a line
 * while it holds a code span open and still go back. The open containers are kept in arrays:
 * 10,000 levels of nesting cost no call stack.
 */
import { htmlBlockStart } from "./html.js";

export const enum Leaf {
  None,
  Paragraph,
  Fence,
  IndentedCode,
  Html,
}

/** What a line is, once its beginning is known. */
export const enum LineKind {
  /** More of the line is needed (`need` says until when). */
  Need,
  /** Live inline text: a paragraph's line or a heading. */
  Text,
  /** Nothing that can hold a command: a blank line, a thematic break, a setext underline. */
  Blank,
  /** Inert content: code, an HTML block, quoted material (see `region`). */
  Inert,
  /** A fence opens on this line; with `topLevel`, outside every container. */
  FenceOpen,
}

/** How much more of the line `classify` needs when it answers `Need`. */
export const enum Need {
  /** Up to the end of the line or the next backtick (a backtick fence's info string). */
  LineOrBacktick,
  /** Up to the end of the line or the next character that is not a prefix character. */
  Decider,
  /** Up to the end of the line. */
  Line,
}

/** The verdict on a line (one object, reused). Offsets are indexes into the line given. */
export class LineVerdict {
  kind = LineKind.Text;
  need = Need.Line;
  /** Where the content starts. */
  content = 0;
  /** For inert content: its region. For text: "quote" when it is inside a block quote. */
  region: "fence" | "indented-code" | "html" | "quote" | undefined;
  /** Text that continues the open paragraph (so a code span may run on into it). */
  continues = false;
  /** An ATX heading: its text is live, but no code span runs past its line. */
  heading = false;
  /** A paragraph starts here whose first line may still turn out to be an HTML block (type 7). */
  mayBeHtml = false;
  /** For FenceOpen: the fence character, run length, and the index of the run. */
  fenceCharacter = 0;
  fenceLength = 0;
  fenceRun = 0;
  topLevel = false;
}

const SPACE = 0x20;
const TAB = 0x09;
const CARRIAGE_RETURN = 0x0d;

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isSpaceOrTab(code: number): boolean {
  return code === SPACE || code === TAB;
}

/** Characters that may begin a block other than a paragraph (CommonMark's "maybe special"). */
function maybeSpecial(code: number): boolean {
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
const PLAIN = (() => {
  const table = new Uint8Array(128).fill(1);
  for (const character of " \t\r\n>-+*_=#.)`~<0123456789") table[character.charCodeAt(0)] = 0;
  return table;
})();

const THEMATIC_BREAK = /^(?:\*[ \t]*){3,}$|^(?:_[ \t]*){3,}$|^(?:-[ \t]*){3,}$/;
const SETEXT_UNDERLINE = /^(?:=+|-+)[ \t]*$/;
const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/;
const CLOSING_FENCE = /^(?:`{3,}|~{3,})[ \t]*$/;

export class BlockTracker {
  /** The open containers, outermost first: -1 for a block quote, else a list item's content column. */
  private readonly containers: number[] = [];
  /** Per open list item, 1 once anything is in it. */
  private readonly itemHasContent: number[] = [];
  /** How many containers are open (the arrays keep their slots beyond it). */
  private depth = 0;
  private quotes = 0;
  leaf = Leaf.None;
  fenceCharacter = 0;
  fenceLength = 0;
  private fenceOffset = 0;
  htmlType = 0;

  // The line being classified: text[start, end).
  private line = "";
  private start = 0;
  private end = 0;
  private final = false;
  private offset = 0;
  private column = 0;
  private partialTab = false;
  private nextNonspace = 0;
  private nextNonspaceColumn = 0;
  private indent = 0;
  private blank = false;
  private nonspaceFound = false;

  // What `commit` applies.
  private matched = 0;
  private leafMatched = false;
  private opened: number[] = [];
  private newLeaf: Leaf | -1 = -1;
  private lazy = false;
  private opensHtml = 0;
  private fenceOffsetPending = 0;
  private addsNothing = false;

  readonly verdict = new LineVerdict();

  /** Whether a block quote is open (its content, lazy lines included, is quoted material). */
  get quoted(): boolean {
    return this.quotes > 0;
  }

  /**
   * The fast path for the commonest line: outside every container, starting with `code`, which
   * can only begin paragraph text. Applies it (the line is a paragraph's) and returns true.
   */
  plainLine(code: number): boolean {
    if (this.depth !== 0 || this.leaf === Leaf.Fence || this.leaf === Leaf.Html) return false;
    if (code < 128 && PLAIN[code] !== 1) return false;
    this.leaf = Leaf.Paragraph;
    return true;
  }

  /** The fast path for a blank line outside every container after a paragraph: it ends the paragraph. */
  blankAtTop(): boolean {
    if (this.depth !== 0 || (this.leaf !== Leaf.Paragraph && this.leaf !== Leaf.None)) return false;
    this.leaf = Leaf.None;
    return true;
  }

  /** The open containers and leaf are those of the document's start. */
  reset(): void {
    this.depth = 0;
    this.quotes = 0;
    this.leaf = Leaf.None;
  }

  /**
   * Classifies a line from its beginning: `text` from `from` to `to` holds it through the
   * character that decides it, or whole (without its line ending) when `final`. Changes
   * nothing until `commit`. The verdict's indexes count from `from`.
   */
  classify(text: string, from: number, to: number, final: boolean): LineVerdict {
    this.line = text;
    this.start = from;
    this.end = to;
    this.final = final;
    this.offset = from;
    this.column = 0;
    this.partialTab = false;
    this.nonspaceFound = false;
    if (this.opened.length !== 0) this.opened.length = 0;
    this.newLeaf = -1;
    this.lazy = false;
    this.opensHtml = 0;
    const verdict = this.verdict;
    verdict.region = undefined;
    verdict.continues = false;
    verdict.heading = false;
    verdict.mayBeHtml = false;
    verdict.topLevel = false;
    this.leafMatched = false;
    this.addsNothing = false;
    const allMatched = this.matchContainers();
    if (allMatched && this.leaf !== Leaf.None && this.leaf !== Leaf.Paragraph) {
      const answer = this.continueLeaf();
      if (answer !== undefined) return answer;
    } else if (allMatched && this.leaf === Leaf.Paragraph) {
      this.findNextNonspace();
      this.leafMatched = !this.blank;
    } else this.leafMatched = false;
    return this.blockStarts(allMatched);
  }

  /** Matches the open containers in order; false when one does not continue. */
  private matchContainers(): boolean {
    const count = this.depth;
    let k = 0;
    for (; k < count; k++) {
      this.findNextNonspace();
      const container = this.containers[k]!;
      if (container < 0) {
        if (this.indent > 3 || this.line.charCodeAt(this.nextNonspace) !== 0x3e) break;
        this.advanceNextNonspace();
        this.advanceOffset(1, false);
        if (isSpaceOrTab(this.line.charCodeAt(this.offset))) this.advanceOffset(1, true);
      } else if (this.blank) {
        if (this.itemHasContent[k] === 0) break;
        this.advanceNextNonspace();
      } else if (this.indent >= container) this.advanceOffset(container, true);
      else break;
    }
    this.matched = k;
    return k === count;
  }

  /** The open leaf takes lines (code, HTML): this line's verdict, or undefined when it does not continue. */
  private continueLeaf(): LineVerdict | undefined {
    this.findNextNonspace();
    const line = this.line;
    if (this.leaf === Leaf.Fence) {
      if (this.indent <= 3 && line.charCodeAt(this.nextNonspace) === this.fenceCharacter) {
        const rest = line.slice(this.nextNonspace, this.end);
        if (CLOSING_FENCE.test(rest) && runLength(rest, 0) >= this.fenceLength) {
          this.newLeaf = Leaf.None;
          return this.inert("fence", this.nextNonspace);
        }
      }
      for (let i = this.fenceOffset; i > 0 && isSpaceOrTab(line.charCodeAt(this.offset)); i--) this.advanceOffset(1, true);
      this.leafMatched = true;
      return this.inert("fence", this.offset);
    }
    if (this.leaf === Leaf.IndentedCode) {
      if (this.indent >= 4) this.advanceOffset(4, true);
      else if (this.blank) this.advanceNextNonspace();
      else return undefined;
      this.leafMatched = true;
      return this.inert("indented-code", this.offset);
    }
    if (this.blank && (this.htmlType === 6 || this.htmlType === 7)) return undefined;
    this.leafMatched = true;
    return this.inert("html", this.offset);
  }

  private blockStarts(allMatched: boolean): LineVerdict {
    const line = this.line;
    // The container new blocks go into is the open paragraph itself when everything matched.
    let inParagraph = allMatched && this.leaf === Leaf.Paragraph;
    let tipIsParagraph = this.leaf === Leaf.Paragraph;
    for (;;) {
      this.findNextNonspace();
      const indented = this.indent >= 4;
      const code = line.charCodeAt(this.nextNonspace);
      if (!indented && !maybeSpecial(code)) break;
      if (!indented && this.nextNonspace >= this.end && !this.final) return this.needMore(Need.Decider);
      if (!indented && code === 0x3e) {
        this.advanceNextNonspace();
        this.advanceOffset(1, false);
        if (isSpaceOrTab(line.charCodeAt(this.offset))) this.advanceOffset(1, true);
        this.opened.push(-1);
        inParagraph = false;
        tipIsParagraph = false;
        continue;
      }
      if (!indented) {
        // Only headings, fences and HTML are known before the line's end; breaks and underlines at it.
        if (this.final || code === 0x23 || code === 0x60 || code === 0x7e || code === 0x3c) {
          const leafVerdict = this.leafStart(code, line.slice(this.nextNonspace, this.end), inParagraph, allMatched, tipIsParagraph);
          if (leafVerdict !== undefined) return leafVerdict;
        }
        if (this.listItem(code, inParagraph)) {
          inParagraph = false;
          tipIsParagraph = false;
          continue;
        }
        break;
      }
      if (!tipIsParagraph && !this.blank) {
        this.advanceOffset(4, true);
        this.newLeaf = Leaf.IndentedCode;
        return this.inert("indented-code", this.offset);
      }
      break;
    }
    return this.textLine(allMatched);
  }

  /** A leaf block starting at the next non-space character (not indented), or undefined. */
  private leafStart(code: number, rest: string, inParagraph: boolean, allMatched: boolean, tipIsParagraph: boolean): LineVerdict | undefined {
    const verdict = this.verdict;
    if (code === 0x23 && ATX_HEADING.test(rest)) {
      this.newLeaf = Leaf.None;
      verdict.heading = true;
      verdict.kind = LineKind.Text;
      verdict.content = this.nextNonspace - this.start;
      verdict.region = this.quotedAfter() ? "quote" : undefined;
      return verdict;
    }
    if (code === 0x60 || code === 0x7e) {
      const length = runLength(rest, 0);
      if (length >= 3) {
        if (code === 0x60 && !this.final && rest.indexOf("`", length) < 0) return this.needMore(Need.LineOrBacktick);
        if (code === 0x7e || rest.indexOf("`", length) < 0) {
          this.newLeaf = Leaf.Fence;
          verdict.kind = LineKind.FenceOpen;
          verdict.fenceCharacter = code;
          verdict.fenceLength = length;
          verdict.fenceRun = this.nextNonspace - this.start;
          verdict.content = this.nextNonspace - this.start;
          verdict.region = "fence";
          this.fenceOffsetPending = this.indent;
          verdict.topLevel = this.matched + this.opened.length === 0;
          return verdict;
        }
      } else if (!this.final && length === rest.length) return this.needMore(Need.Decider);
    }
    if (code === 0x3c) {
      const type = htmlBlockStart(rest, this.final);
      if (type < 0) return this.needMore(Need.Decider);
      if (type > 0) {
        this.newLeaf = Leaf.Html;
        this.opensHtml = type;
        return this.inert("html", this.nextNonspace);
      }
      // Type 7 (a lone complete tag) is only known when the line ends; it cannot interrupt a paragraph.
      verdict.mayBeHtml = !inParagraph && !(!allMatched && tipIsParagraph);
    }
    if (!this.final) return undefined;
    if (inParagraph && SETEXT_UNDERLINE.test(rest)) {
      this.newLeaf = Leaf.None;
      return this.blankLine();
    }
    if (THEMATIC_BREAK.test(rest)) {
      this.newLeaf = Leaf.None;
      return this.blankLine();
    }
    return undefined;
  }

  /** A list item marker: true when one opens (the cursor is then past it and its spaces). */
  private listItem(code: number, inParagraph: boolean): boolean {
    const line = this.line;
    const at = this.nextNonspace;
    let markerLength = 1;
    if (code !== 0x2a && code !== 0x2b && code !== 0x2d) {
      let digits = 0;
      while (digits < 10 && at + digits < this.end && isDigit(line.charCodeAt(at + digits))) digits++;
      const delimiter = line.charCodeAt(at + digits);
      if (digits === 0 || digits > 9 || (delimiter !== 0x2e && delimiter !== 0x29)) return false;
      if (inParagraph && Number(line.slice(at, at + digits)) !== 1) return false;
      markerLength = digits + 1;
    }
    const next = at + markerLength < this.end ? line.charCodeAt(at + markerLength) : -1;
    if (next !== -1 && !isSpaceOrTab(next)) return false;
    if (inParagraph && /^[ \t]*$/.test(line.slice(at + markerLength, this.end))) return false;
    const markerOffset = this.indent;
    this.advanceNextNonspace();
    this.advanceOffset(markerLength, true);
    const spacesStartColumn = this.column;
    const spacesStartOffset = this.offset;
    do this.advanceOffset(1, true);
    while (this.column - spacesStartColumn < 5 && isSpaceOrTab(this.line.charCodeAt(this.offset)));
    const blankItem = this.offset >= this.end || this.line.charCodeAt(this.offset) === CARRIAGE_RETURN;
    const spaces = this.column - spacesStartColumn;
    let padding: number;
    if (spaces >= 5 || spaces < 1 || blankItem) {
      padding = markerLength + 1;
      this.column = spacesStartColumn;
      this.offset = spacesStartOffset;
      this.partialTab = false;
      if (isSpaceOrTab(this.line.charCodeAt(this.offset))) this.advanceOffset(1, true);
    } else padding = markerLength + spaces;
    this.opened.push(markerOffset + padding);
    return true;
  }

  /** What remains is a line of text: a paragraph's continuation (maybe lazy), a new one, or blank. */
  private textLine(allMatched: boolean): LineVerdict {
    this.findNextNonspace();
    const verdict = this.verdict;
    if (this.blank) {
      this.addsNothing = true;
      return this.blankLine();
    }
    verdict.kind = LineKind.Text;
    verdict.content = this.nextNonspace - this.start;
    if (this.opened.length === 0 && this.leaf === Leaf.Paragraph && (!allMatched || this.leafMatched)) {
      this.lazy = !allMatched;
      verdict.continues = true;
      verdict.region = this.quotes > 0 ? "quote" : undefined;
      return verdict;
    }
    this.newLeaf = Leaf.Paragraph;
    verdict.region = this.quotedAfter() ? "quote" : undefined;
    return verdict;
  }

  private blankLine(): LineVerdict {
    const verdict = this.verdict;
    verdict.kind = LineKind.Blank;
    verdict.content = this.end - this.start;
    if (this.newLeaf === -1) this.newLeaf = Leaf.None;
    return verdict;
  }

  private inert(region: "fence" | "indented-code" | "html", content: number): LineVerdict {
    const verdict = this.verdict;
    verdict.kind = LineKind.Inert;
    verdict.content = content - this.start;
    verdict.region = region;
    return verdict;
  }

  private needMore(need: Need): LineVerdict {
    this.verdict.kind = LineKind.Need;
    this.verdict.need = need;
    return this.verdict;
  }

  /** Whether a block quote is open once this line's verdict is applied. */
  private quotedAfter(): boolean {
    if (this.quotes === 0 && this.opened.length === 0) return false;
    let quotes = 0;
    for (let k = 0; k < this.matched; k++) if (this.containers[k]! < 0) quotes++;
    for (const opened of this.opened) if (opened < 0) quotes++;
    return quotes > 0;
  }

  /** Applies the last verdict: closes what did not continue, opens what started. */
  commit(): void {
    if (this.lazy) return;
    for (let k = this.depth - 1; k >= this.matched; k--) if (this.containers[k]! < 0) this.quotes--;
    this.depth = this.matched;
    if (!this.leafMatched && this.newLeaf === -1) this.leaf = Leaf.None;
    for (const opened of this.opened) {
      if (opened < 0) this.quotes++;
      this.containers[this.depth] = opened;
      this.itemHasContent[this.depth] = 0;
      this.depth++;
      this.leaf = Leaf.None;
    }
    if (this.newLeaf !== -1) {
      this.leaf = this.newLeaf;
      if (this.newLeaf === Leaf.Fence) {
        this.fenceCharacter = this.verdict.fenceCharacter;
        this.fenceLength = this.verdict.fenceLength;
        this.fenceOffset = this.fenceOffsetPending;
      } else if (this.newLeaf === Leaf.Html) this.htmlType = this.opensHtml;
    }
    // An item has content once anything but its own blank first line is in it.
    const contentUntil = this.addsNothing ? this.matched + Math.max(0, this.opened.length - 1) : this.depth;
    for (let k = 0; k < contentUntil; k++) this.itemHasContent[k] = 1;
  }

  /** The paragraph that started on this line is an HTML block of type 7 after all. */
  becomeHtml(): void {
    this.leaf = Leaf.Html;
    this.htmlType = 7;
  }

  /** The open HTML block (types 1–5) met its end condition, or a fence or code block ended elsewhere. */
  closeLeaf(): void {
    this.leaf = Leaf.None;
  }

  private findNextNonspace(): void {
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

  private advanceNextNonspace(): void {
    this.offset = this.nextNonspace;
    this.column = this.nextNonspaceColumn;
    this.partialTab = false;
  }

  private advanceOffset(count: number, columns: boolean): void {
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

function runLength(text: string, from: number): number {
  const code = text.charCodeAt(from);
  let i = from;
  while (i < text.length && text.charCodeAt(i) === code) i++;
  return i - from;
}
