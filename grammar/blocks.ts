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
import { Leaf, LineKind, LineVerdict, Need } from "./block-verdict.js";
import { htmlBlockStart } from "./html.js";
import { ATX_HEADING, CLOSING_FENCE, isDigit, isSpaceOrTab, maybeSpecial, PLAIN, runLength, SETEXT_UNDERLINE, THEMATIC_BREAK } from "./block-syntax.js";
import { CARRIAGE_RETURN } from "./chars.js";
import { LineCursor } from "./line-cursor.js";
import { firstAtOrAfter } from "./sorted.js";

export { Leaf, LineKind, LineVerdict, Need } from "./block-verdict.js";

export class BlockTracker extends LineCursor {
  /** The open containers, outermost first: -1 for a block quote, else a list item's content column. */
  private readonly containers: number[] = [];
  /**
   * The open list items with anything in them are exactly those below this depth (the ones above
   * were opened later and are still empty): one number, where a flag per item would be rewritten
   * for every line, 10,000 of them under 10,000 open items.
   */
  private contentDepth = 0;
  /** How many containers are open (the array keeps its slots beyond it). */
  private depth = 0;
  private quotes = 0;
  /** The depths of the open block quotes, outermost first. */
  private readonly quoteDepths: number[] = [];
  leaf = Leaf.None;
  fenceCharacter = 0;
  fenceLength = 0;
  private fenceOffset = 0;
  htmlType = 0;

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
    this.contentDepth = 0;
    this.quotes = 0;
    this.quoteDepths.length = 0;
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
        // The rest is blank: it passes every list item with content up to the next quote, at once.
        const stop = Math.min(count, this.contentDepth, this.quoteAtOrAfter(k));
        if (k >= stop) break;
        this.advanceNextNonspace();
        k = stop - 1;
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

  /** The depth of the first open block quote at or below depth `k`, or Infinity. */
  private quoteAtOrAfter(k: number): number {
    const at = firstAtOrAfter(this.quoteDepths, k);
    return at < this.quoteDepths.length ? this.quoteDepths[at]! : Number.POSITIVE_INFINITY;
  }

  /** Whether a block quote is open once this line's verdict is applied. */
  private quotedAfter(): boolean {
    if (this.quoteDepths.length > 0 && this.quoteDepths[0]! < this.matched) return true;
    for (const opened of this.opened) if (opened < 0) return true;
    return false;
  }

  /** Applies the last verdict: closes what did not continue, opens what started. */
  commit(): void {
    if (this.lazy) return;
    for (let k = this.depth - 1; k >= this.matched; k--) if (this.containers[k]! < 0) this.quotes--;
    this.depth = this.matched;
    const quoteDepths = this.quoteDepths;
    while (quoteDepths.length > 0 && quoteDepths[quoteDepths.length - 1]! >= this.depth) quoteDepths.pop();
    if (!this.leafMatched && this.newLeaf === -1) this.leaf = Leaf.None;
    for (const opened of this.opened) {
      if (opened < 0) {
        this.quotes++;
        this.quoteDepths.push(this.depth);
      }
      this.containers[this.depth] = opened;
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
    this.contentDepth = this.addsNothing ? this.matched + Math.max(0, this.opened.length - 1) : this.depth;
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
}
