/**
 * The scanner's Markdown paths (contract §4): each line's beginning goes to the BlockTracker,
 * which says whether the line is live text, inert content or the start of a fence; inert lines
 * are read whole and searched for mentions; code spans and inline raw HTML are held open across
 * the lines of their paragraph; `<think>` blocks are reasoning. The hot loop is in scanner.ts.
 */
import type { Mention } from "./ast.js";
import { BACKTICK, CARRIAGE_RETURN, LINE_FEED, TILDE } from "./chars.js";
import { CLOSED, HARMONY_CLOSE, ReasoningCloser } from "./reasoning-close.js";
import { BlockTracker, Leaf, LineKind, Need } from "./blocks.js";
import { htmlBlockEnds, REASONING_NAMES, TagOutcome, TagRecognizer } from "./html.js";
import type { InertRegionKind } from "./regions.js";
import { BacktickRuns, State } from "./scanner-core.js";
import { RecoveringScanner } from "./scanner-recovery.js";

export abstract class LineScanner extends RecoveringScanner {
  protected readonly tracker = new BlockTracker();
  protected prefixNeed = Need.Decider;
  /** The region of the inert line being read (undefined: a line with nothing to search). */
  protected lineRegion: InertRegionKind | undefined;
  /** Absolute offset where the inert line's captured content starts. */
  protected lineContent = 0;
  protected lineHeading = false;
  /** Absolute offset of a `<` that starts a paragraph and may make it an HTML block (type 7). */
  protected mayBeHtmlAt = -1;
  /** While in reasoning: the search for its closer (a closing tag, or a harmony message's end). */
  protected readonly reasoningCloser = new ReasoningCloser();
  /** Where the held code span or tag starts, and the line it starts on. */
  protected holdStart = 0;
  protected holdLine = 1;
  protected holdLineStart = 0;
  /** Lines the hold ran over (applied to the line count when it closes; a replay counts them itself). */
  protected holdLines = 0;
  protected holdLastLineStart = 0;
  /** The beginning of the line being classified while holding. */
  protected holdPrefixStart = 0;
  protected holdResume = State.CodeHold;
  /** Continuation lines of a paragraph whose hold failed: where each begins and where its content does. */
  protected readonly skipStarts: number[] = [];
  protected readonly skipContents: number[] = [];
  protected skipNext = 0;
  protected readonly tag = new TagRecognizer();
  protected tagMayBeBlock = false;

  protected heldFrom(): number {
    return this.holdStart;
  }

  protected inertSettled(): number {
    return this.lineRegion === "reasoning" ? this.lineContent : this.total;
  }

  /** A line feed in live text at absolute `offset`; returns the absolute offset to go on from. */
  protected textLineFeed(offset: number): number {
    this.countLine(offset);
    const starts = this.skipStarts;
    if (starts.length > 0) {
      while (this.skipNext < starts.length && starts[this.skipNext]! <= offset) this.skipNext++;
      if (this.skipNext < starts.length && starts[this.skipNext] === offset + 1) {
        this.state = State.Text;
        return this.skipContents[this.skipNext++]!;
      }
      if (this.skipNext >= starts.length) {
        starts.length = 0;
        this.skipContents.length = 0;
        this.skipNext = 0;
      }
    }
    this.enterLineStart();
    return offset + 1;
  }

  /** The line is plain paragraph text at top level (the tracker's fast path applied it). */
  protected plainLine(): void {
    this.lineHeading = false;
    this.mayBeHtmlAt = -1;
    this.markRegion(this.lineStart, undefined);
    this.state = State.Text;
  }

  /** At the first character of a line (not recovering): start reading its beginning. */
  protected beginLine(index: number): void {
    this.startCapture(index);
    this.prefixNeed = Need.Decider;
    this.state = State.Prefix;
  }

  /**
   * The character at `index` decides the line begun at `lineStart` (or the text ended: `atEnd`).
   * Returns the index to go on from, or -1 when text was scheduled to be scanned again (the
   * caller returns, to drain it).
   */
  protected classifyLine(input: string, index: number, base: number, atEnd: boolean): number {
    const final = atEnd || input.charCodeAt(index) === LINE_FEED;
    const verdict = this.classifyFrom(input, index, 0, final);
    if (verdict.kind === LineKind.Need && !final) {
      this.prefixNeed = verdict.need;
      return index + 1;
    }
    this.tracker.commit();
    const lineStart = this.lineStart;
    const capturedLength = this.captureText.length + index - this.captureFrom;
    const content = Math.min(verdict.content, capturedLength);
    this.lineHeading = verdict.heading;
    this.mayBeHtmlAt = verdict.mayBeHtml ? lineStart + content : -1;
    if (verdict.kind === LineKind.FenceOpen && verdict.topLevel) {
      this.markRegion(lineStart, "fence");
      const run = lineStart + verdict.fenceRun;
      this.openFence(verdict.fenceCharacter === TILDE ? TILDE : BACKTICK, verdict.fenceLength, run + verdict.fenceLength);
      return index;
    }
    if (verdict.kind === LineKind.Text && verdict.region === undefined) {
      this.markRegion(lineStart, undefined);
      this.state = State.Text;
      if (content >= capturedLength) {
        this.stopCapture();
        return index;
      }
      // The line's text begins inside what was read as its beginning: read it again, in place when it can be.
      if (this.captureText.length === 0) {
        const from = this.captureFrom + content;
        this.stopCapture();
        return from;
      }
      const rest = this.captured(index).slice(content);
      this.stopCapture();
      this.stack.push({ input, index, base }, { input: rest, index: 0, base: lineStart + content });
      return -1;
    }
    const region = verdict.kind === LineKind.Blank ? undefined : verdict.kind === LineKind.FenceOpen ? "fence" : (verdict.region ?? "quote");
    this.markRegion(lineStart, region);
    this.enterInertLine(region, content, index);
    return index;
  }

  /**
   * The tracker's verdict on the line captured from `skip` characters into the capture, through
   * the character at `index` (or up to it, when `final`), read in place when it lies in `input`.
   */
  private classifyFrom(input: string, index: number, skip: number, final: boolean) {
    let text: string;
    let from: number;
    let to = final ? index : index + 1;
    if (this.captureText.length === 0) {
      text = input;
      from = this.captureFrom + skip;
    } else {
      text = this.captured(index).slice(skip) + (final ? "" : input[index]);
      from = 0;
      to = text.length;
    }
    if (final && to > from && text.charCodeAt(to - 1) === CARRIAGE_RETURN) to--;
    return this.tracker.classify(text, from, to, final);
  }

  /** Reads the rest of the line as inert content of `region`, from `content` characters into the capture. */
  protected enterInertLine(region: InertRegionKind | undefined, content: number, index: number): void {
    this.lineRegion = region;
    this.lineContent = this.lineStart + content;
    if (region === undefined) {
      this.stopCapture();
    } else if (this.captureText.length === 0 && this.captureFrom + content <= index) this.captureFrom += content;
    else {
      this.captureText = this.captured(index).slice(content);
      this.captureFrom = index;
    }
    this.state = State.InertLine;
  }

  /**
   * Reads an inert line on from `index`: to its line feed, or in reasoning to the closer found on
   * the way. Returns the index to go on from (`input.length`: all of it was read), or -1 when a
   * replay was scheduled.
   */
  protected readInertLine(input: string, index: number, base: number): number {
    if (this.lineRegion !== "reasoning") {
      const lineFeed = input.indexOf("\n", index);
      return lineFeed < 0 ? input.length : this.endInertLine(lineFeed, base, false);
    }
    const found = this.reasoningCloser.find(input, index);
    if (found === CLOSED) return this.closeReasoning(input, index, base);
    return found < 0 ? input.length : this.endInertLine(found, base, false);
  }

  /** The reasoning closer was found reading from `index`: its line's mentions, and prose again after it. */
  private closeReasoning(input: string, index: number, base: number): number {
    const closer = this.reasoningCloser;
    const full = this.captured(Math.max(closer.resume, index));
    const resumeAt = base + closer.resume;
    this.stopCapture();
    this.findSpanMentions(full.slice(0, base + closer.start - this.lineContent), this.lineContent, "reasoning");
    this.markRegion(resumeAt, undefined);
    this.tracker.reset();
    this.state = State.Text;
    if (closer.resume >= index) return closer.resume;
    // The next message's header began in an earlier chunk: it is read again as prose, then this input.
    this.stack.push({ input, index, base }, { input: full.slice(resumeAt - this.lineContent), index: 0, base: resumeAt });
    return -1;
  }

  /**
   * The inert line ends at `index` (a line feed, or the text's end): its mentions, and what it
   * ends. Returns the index to go on from.
   */
  protected endInertLine(index: number, base: number, atEnd: boolean): number {
    const region = this.lineRegion;
    const captured = region === undefined ? "" : this.captured(index);
    this.stopCapture();
    // The line's text without the `\r` of a CRLF, for its mentions.
    const text = captured.charCodeAt(captured.length - 1) === CARRIAGE_RETURN ? captured.slice(0, -1) : captured;
    if (region !== undefined) this.findSpanMentions(text, this.lineContent, region as Mention["context"]);
    if (region === "html" && this.tracker.leaf === Leaf.Html && htmlBlockEnds(this.tracker.htmlType, text)) this.tracker.closeLeaf();
    if (atEnd) return index;
    this.countLine(base + index);
    if (region === "reasoning") {
      this.lineContent = this.lineStart;
      this.startCapture(index + 1);
      return index + 1;
    }
    this.enterLineStart();
    return index + 1;
  }

  /** Starts holding what follows a backtick run or a `<` until it is known to be code or HTML. */
  protected beginHold(start: number, resume: State): void {
    this.holdStart = start;
    this.holdLine = this.line;
    this.holdLineStart = this.lineStart;
    this.holdLines = 0;
    this.holdResume = resume;
  }

  /** A line feed at `index` while holding: the next line decides whether the paragraph goes on. */
  protected holdLineFeed(index: number, base: number): void {
    this.holdPrefixStart = base + index + 1;
    this.prefixNeed = Need.Decider;
    this.state = State.HoldPrefix;
  }

  /** The line begun at `holdPrefixStart` is decided at `index`: the hold goes on, or fails. */
  protected classifyHeldLine(input: string, index: number, base: number, atEnd: boolean): number {
    const final = atEnd || input.charCodeAt(index) === LINE_FEED;
    const lineAt = this.holdPrefixStart - this.holdStart;
    const verdict = this.classifyFrom(input, index, lineAt, final);
    if (verdict.kind === LineKind.Need && !final) {
      this.prefixNeed = verdict.need;
      return index + 1;
    }
    const full = this.captured(index);
    if (verdict.kind === LineKind.Text && verdict.continues && !verdict.heading && verdict.region === undefined) {
      this.tracker.commit();
      const content = Math.min(verdict.content, full.length - lineAt);
      if (this.skipStarts.length === 0 || this.skipStarts[this.skipStarts.length - 1]! < this.holdPrefixStart) {
        this.skipStarts.push(this.holdPrefixStart);
        this.skipContents.push(this.holdPrefixStart + content);
      }
      this.holdLines++;
      this.holdLastLineStart = this.holdPrefixStart;
      if (this.lineFeeds !== undefined) this.lineFeeds.record(this.holdPrefixStart - 1);
      this.state = this.holdResume;
      if (lineAt + content >= full.length) return index;
      if (this.captureText.length === 0) return this.captureFrom + lineAt + content;
      this.captureText = full.slice(0, lineAt + content);
      this.captureFrom = index;
      const rest = full.slice(lineAt + content);
      this.stack.push({ input, index, base }, { input: rest, index: 0, base: this.holdPrefixStart + content });
      return -1;
    }
    // The paragraph ended before the hold closed: replay the held text as prose, then this line.
    if (this.holdResume === State.TagHold) this.tag.noteParagraphEnd(this.holdPrefixStart);
    this.stopCapture();
    const held = full.slice(0, lineAt);
    this.stack.push({ input, index, base }, { input: full.slice(lineAt), index: 0, base: this.holdPrefixStart });
    this.replayHeld(held);
    return -1;
  }

  /** Schedules the held text (its opener literal) to be scanned again as prose. */
  protected replayHeld(held: string): void {
    this.state = State.Text;
    if (this.holdResume === State.TagHold) {
      this.stack.push({ input: held.slice(1), index: 0, base: this.holdStart + 1 });
      return;
    }
    this.codeMap = new BacktickRuns(held, this.holdStart);
    this.codeMapEnd = this.holdStart + held.length;
    this.stack.push({ input: held, index: 0, base: this.holdStart });
  }

  /** The hold closed after running over lines: the line count moves on past them. */
  protected applyHeldLines(): void {
    if (this.holdLines === 0) return;
    this.line = this.holdLine + this.holdLines;
    this.lineStart = this.holdLastLineStart;
  }

  /** A `<` at `index` in live text: hold what follows until it is a tag (or not). */
  protected beginTag(index: number, base: number): void {
    this.tagMayBeBlock = base + index === this.mayBeHtmlAt;
    this.tag.begin();
    this.startCapture(index);
    this.beginHold(base + index, State.TagHold);
    this.state = State.TagHold;
  }

  /** Feeds the held tag from `index`; returns the index to go on from, or -1 when a replay was scheduled. */
  protected feedTag(input: string, index: number, base: number): number {
    const outcome = this.tag.feed(input, index, input.length, base);
    if (outcome === TagOutcome.Running) {
      if (this.tag.atLineFeed) this.holdLineFeed(this.tag.stop - 1, base);
      return this.tag.stop;
    }
    const stop = this.tag.stop;
    const text = this.captured(stop);
    this.stopCapture();
    if (outcome === TagOutcome.Failed) {
      this.stack.push({ input, index: stop, base });
      this.replayHeld(text);
      return -1;
    }
    this.stack.push({ input, index: stop, base });
    this.completeTag(text);
    return -1;
  }

  private completeTag(text: string): void {
    const start = this.holdStart;
    const name = this.tag.openName;
    if (REASONING_NAMES.has(name) || this.tag.harmonyAnalysis) {
      this.markRegion(start, "reasoning");
      this.applyHeldLines();
      this.reasoningCloser.begin(this.tag.harmonyAnalysis ? HARMONY_CLOSE : `</${name}>`);
      this.lineRegion = "reasoning";
      this.lineContent = start + text.length;
      this.capturing = true;
      this.captureText = "";
      this.captureFrom = this.lineContent - this.base;
      this.state = State.InertLine;
      return;
    }
    if (this.tag.harmonyHeader) {
      // A message's framing holds no command; a tool call's header is text the dialect layer reads.
      if (this.tag.harmonyFraming) {
        this.markRegion(start, "framing");
        this.markRegion(start + text.length, undefined);
      }
      this.state = State.Text;
      return;
    }
    if (this.tag.autolink) {
      // A link, read before code spans: its text is prose again, with every backtick in it literal.
      this.state = State.Text;
      this.codeMap = new BacktickRuns("", 0);
      this.codeMapEnd = start + text.length;
      this.stack.push({ input: text.slice(1), index: 0, base: start + 1 });
      return;
    }
    this.markRegion(start, "html");
    this.markRegion(start + text.length, undefined);
    this.findHeldMentions(text, start, "html");
    this.applyHeldLines();
    const isTag = name !== "" || this.tag.closeName !== "";
    this.state = this.tagMayBeBlock && isTag && this.holdLines === 0 ? State.AfterLineTag : State.Text;
  }

  /** After a tag that began its line: true when the line ends here, blank, and an HTML block opens. */
  protected afterLineTag(code: number): boolean {
    if (code === 0x20 || code === 0x09 || code === CARRIAGE_RETURN) return false;
    if (code === LINE_FEED) {
      this.tracker.becomeHtml();
      this.markRegion(this.lineStart, "html");
    }
    this.state = State.Text;
    return true;
  }

  protected override closeFence(): void {
    super.closeFence();
    this.tracker.closeLeaf();
  }

  protected override holdCode(length: number, maybeFence: boolean): void {
    super.holdCode(length, maybeFence);
    this.beginHold(this.runStart, State.CodeHold);
  }

  protected override closeHeldCode(index: number): void {
    const held = this.captured(index);
    this.stopCapture();
    this.markRegion(this.codeStart, "inline-code");
    this.markRegion(this.holdRunStart + this.holdRunLength, undefined);
    this.findHeldMentions(held.slice(this.codeLength, this.holdRunStart - this.codeStart), this.codeStart + this.codeLength, "inline-code");
    this.applyHeldLines();
    this.state = State.Text;
  }

  /** Mentions in held text that starts at absolute `offset` on the hold's first line (it may run over lines). */
  protected findHeldMentions(content: string, offset: number, context: Mention["context"]): void {
    if (content.indexOf("[") < 0) return;
    for (const found of this.mentions.find(content, offset, this.holdLine, this.holdLineStart, context)) this.emit({ type: "mention", mention: found });
  }
}
