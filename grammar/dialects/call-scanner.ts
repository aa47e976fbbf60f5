/**
 * The scanner and the dialect layer side by side: one stream of findings in source order.
 *
 * Both read every chunk. A dialect candidate's start is decided by the scanner's region log
 * (regions.ts): live text makes it a command (or an error whose hint is the equivalent command),
 * an inert region a mention, a command's value nothing. While a candidate is open or waits for
 * its region to settle, the scanner's findings after its start are held; those inside a live
 * call are its data and dropped. With no candidate about, the scanner's findings pass straight on.
 */
import type { Mention } from "../ast.js";
import type { InertRegionLog } from "../regions.js";
import { OPEN_PARENTHESIS, SCANNER_STOPS, STOPS, Stops } from "../chars.js";
import { LineFeedLog } from "../line-feed-log.js";
import { print } from "../printer.js";
import { StreamingScanner, type ParseEvent } from "../scanner.js";
import { FollowUp, NO_EVENTS } from "../scanner-states.js";
import type { DialectFinding } from "./finding.js";
import { DialectRecognizer, SMALL_CHUNK } from "./recognizer.js";
import type { CallVocabulary } from "./vocabulary.js";

/** Where the scanner keeps no region log: everything settled, nothing inert. */
const NO_REGIONS: InertRegionLog = { settledUntil: Number.POSITIVE_INFINITY, kindAt: () => undefined };

function startOf(event: ParseEvent): number {
  if (event.type === "command") return event.command.span.start.offset;
  if (event.type === "mention") return event.mention.span.start.offset;
  return event.error.span.start.offset;
}

/**
 * Feed text with `push(chunk)`, then call `end()`, as with StreamingScanner. Without a
 * vocabulary it is the scanner alone.
 *
 * The layer shares the scanner's one-character fast path: while nothing is open, held or
 * pending and the current line's beginning can no longer hold a call, the fast path's mask also
 * stops at `<`, `>`, `[`, `［`, `{`, `(` and line feeds (`Stops.dialect`), so every other character passes
 * both at once, and the recognizer is told how many went by when it reads again (and finds the
 * last of them, a name before a `(`, in the ring the fast path writes them to). While it
 * reads a candidate or a line's beginning, every character stops (`Stops.every`).
 */
export class CallScanner extends StreamingScanner {
  private readonly recognizer: DialectRecognizer | undefined;
  private readonly regionLog: InertRegionLog;
  /** Scanner findings waiting behind an open or unsettled call; those before `waitingFrom` are gone. */
  private waiting: ParseEvent[] = [];
  private waitingFrom = 0;
  /** Calls found, waiting for their region to settle; those before `pendingFrom` are gone. */
  private pending: DialectFinding[] = [];
  private pendingFrom = 0;
  /** Nothing held and nothing pending. */
  private calm = true;
  /** Where the last live call released ends: a scanner finding that starts before it, out later than the call, is that call's data too. */
  private liveUntil = 0;
  /** The scanner's offset when the fast path last took over for the recognizer too. */
  private asleepAt = 0;
  /** The recognizer's ring of the last characters read (inline-call.ts), which the fast path fills while it sleeps. */
  private readonly recent: Uint16Array;
  private readonly recentMask: number;

  constructor(vocabulary?: CallVocabulary) {
    super();
    // Only the dialect layer reads the region log; without it the scanner records none.
    this.regionLog = vocabulary ? this.regions : NO_REGIONS;
    this.recognizer = vocabulary ? new DialectRecognizer(vocabulary) : undefined;
    this.recent = this.recognizer?.recent ?? new Uint16Array(1);
    this.recentMask = this.recognizer?.recentMask ?? 0;
    if (vocabulary) {
      this.layerStops = Stops.every;
      this.lineFeeds = new LineFeedLog();
    }
  }

  /**
   * StreamingScanner's `push`, repeated here so that each class's fast path sees objects of one
   * shape only (shared, it ran about 10 % slower for the scanner alone).
   */
  override push(chunk: string): ParseEvent[] {
    const followUp = this.fastFollowUp;
    const code = chunk.charCodeAt(0);
    if (chunk.length === 1 && followUp !== FollowUp.Full && this.fastMask !== 0 && ((STOPS[code]! & this.fastMask) === 0 || this.passesParenthesis(code))) {
      this.recent[this.total & this.recentMask] = code;
      this.total++;
      if (followUp === FollowUp.Capture) this.captureText += chunk;
      return NO_EVENTS;
    }
    return this.pushChunk(chunk);
  }

  /**
   * Whether `code`, which stops the fast path, is a `(` only the sleeping recognizer would stop at
   * (the scanner passes it), right after no name that may be registered: then the recognizer would
   * change nothing (inline-call.ts), and the fast path takes it.
   */
  private passesParenthesis(code: number): boolean {
    return code === OPEN_PARENTHESIS && (STOPS[code]! & this.fastMask) === Stops.dialect && !this.recognizer!.mayOpenInlineCall(this.total);
  }

  /**
   * One character the scanner's fast path passes while the recognizer is awake (an indentation,
   * a name at a line's beginning, a `[` word): when the recognizer reads it without a finding,
   * both take it here, without the full push of either.
   */
  private passBoth(chunk: string, recognizer: DialectRecognizer): ParseEvent[] {
    if (!recognizer.quiet(chunk)) return this.pushAwake(chunk, recognizer, false);
    const followUp = this.fastFollowUp;
    this.total++;
    if (followUp === FollowUp.Capture) this.captureText += chunk;
    else if (followUp === FollowUp.Full) this.followUpFastPass(chunk);
    if (recognizer.asleep) {
      this.layerStops = Stops.dialect;
      this.asleepAt = this.total;
      if (this.fastMask !== 0) this.fastMask = (this.fastMask & SCANNER_STOPS) | Stops.dialect;
    }
    return NO_EVENTS;
  }

  protected override pushChunk(chunk: string): ParseEvent[] {
    const recognizer = this.recognizer;
    if (recognizer === undefined) return super.pushChunk(chunk);
    if (chunk.length === 1 && this.layerStops === Stops.every && this.calm && (STOPS[chunk.charCodeAt(0)]! & this.fastMask & SCANNER_STOPS) === 0 && this.fastMask !== 0) {
      return this.passBoth(chunk, recognizer);
    }
    return this.pushAwake(chunk, recognizer, true);
  }

  /** A chunk both read in full; `mayBeQuiet`: `quiet` has not turned down its one character yet. */
  private pushAwake(chunk: string, recognizer: DialectRecognizer, mayBeQuiet: boolean): ParseEvent[] {
    this.wake(recognizer);
    if (chunk.length > SMALL_CHUNK) return this.pushLong(chunk, recognizer);
    const events = super.pushChunk(chunk);
    let out: ParseEvent[];
    if (mayBeQuiet && chunk.length === 1 && this.calm && recognizer.quiet(chunk)) out = events.length === 0 ? events : this.merge(events);
    else {
      recognizer.feed(chunk);
      out = this.merge(events);
    }
    this.lineFeeds!.clear();
    this.sleepIfQuiet(recognizer);
    return out;
  }

  /** A chunk the recognizer reads by searching: the scanner's line feeds spare it that search, when they are all of the chunk's. */
  private pushLong(chunk: string, recognizer: DialectRecognizer): ParseEvent[] {
    const lineFeeds = this.lineFeeds!;
    const start = this.total;
    const line = this.line;
    this.readAsIs = false;
    const events = super.pushChunk(chunk);
    const passed = this.readAsIs ? lineFeeds.completeFor(chunk, start, this.lineStart, this.line - line) : undefined;
    if (passed !== undefined) recognizer.feedWithLineFeeds(chunk, passed, this.lineStart);
    else recognizer.feed(chunk);
    const out = this.merge(events);
    lineFeeds.clear();
    this.sleepIfQuiet(recognizer);
    return out;
  }

  /** The text is complete. */
  override end(): ParseEvent[] {
    const recognizer = this.recognizer;
    if (recognizer === undefined) return super.end();
    this.wake(recognizer);
    const events = super.end();
    recognizer.finish();
    return this.merge(events);
  }

  /** Tells the recognizer what the fast path took for it, and takes the scanner's states' own stops back. */
  private wake(recognizer: DialectRecognizer): void {
    if (this.layerStops === Stops.dialect) recognizer.skip(this.total - this.asleepAt);
    this.layerStops = 0;
    this.fastMask &= SCANNER_STOPS;
  }

  /** Which characters the fast path must leave to this layer from here on. */
  private sleepIfQuiet(recognizer: DialectRecognizer): void {
    this.layerStops = this.calm && recognizer.asleep ? Stops.dialect : Stops.every;
    this.asleepAt = this.total;
    if (this.fastMask !== 0) this.fastMask |= this.layerStops;
  }

  private merge(scanned: ParseEvent[]): ParseEvent[] {
    const recognizer = this.recognizer!;
    const events = scanned.length > 0 && startOf(scanned[0]!) < this.liveUntil ? scanned.filter((event) => startOf(event) >= this.liveUntil) : scanned;
    const found = recognizer.found;
    if (found.length > 0) {
      for (const finding of found) this.pending.push(finding);
      found.length = 0;
    }
    const open = recognizer.openStart;
    if (this.pending.length === this.pendingFrom && this.waiting.length === this.waitingFrom && open < 0) return events;
    // With nothing held, the scanner's new list (its own each chunk) is held as it is, not copied.
    if (this.waiting.length === 0 && events !== NO_EVENTS) this.waiting = events;
    else for (const event of events) this.waiting.push(event);
    const out: ParseEvent[] = [];
    const settled = this.regionLog.settledUntil;
    const scannerOpen = this.findingOpenFrom();
    // A finding waits for its region to settle and for its last line to end: the scanner's
    // findings on that line (mentions in an inert line) are out by then. It also waits for a
    // finding the scanner is still reading from before it (a command in a fence, whose heredoc
    // may run on for lines), so that the two come in source order in any chunking.
    while (this.pendingFrom < this.pending.length) {
      const finding = this.pending[this.pendingFrom]!;
      if (!(finding.start.offset < settled && finding.lineEnd !== undefined && finding.lineEnd < settled)) break;
      if (scannerOpen >= 0 && scannerOpen < finding.start.offset) break;
      this.pendingFrom++;
      this.release(out, finding.start.offset);
      const kind = this.regionLog.kindAt(finding.regionAt);
      if (kind === undefined || kind === "framing" || (kind === "html" && finding.markup)) {
        // The scanner's findings inside a live call are its data.
        while (this.waitingFrom < this.waiting.length && startOf(this.waiting[this.waitingFrom]!) < finding.end.offset) this.waitingFrom++;
        if (finding.end.offset > this.liveUntil) this.liveUntil = finding.end.offset;
        out.push(eventOf(finding));
      } else if (kind !== "command") out.push({ type: "mention", mention: mentionOf(finding, kind) });
    }
    let limit = this.pendingFrom < this.pending.length ? this.pending[this.pendingFrom]!.start.offset : Number.POSITIVE_INFINITY;
    if (open >= 0 && open < limit) limit = open;
    this.release(out, limit);
    this.compact();
    return out.length === 0 ? NO_EVENTS : out;
  }

  /** Moves the held findings that start before `limit` to `out`. */
  private release(out: ParseEvent[], limit: number): void {
    while (this.waitingFrom < this.waiting.length && startOf(this.waiting[this.waitingFrom]!) < limit) out.push(this.waiting[this.waitingFrom++]!);
  }

  /** Drops what was released, once it is all or most of the queues. */
  private compact(): void {
    if (this.waitingFrom === this.waiting.length) {
      this.waiting.length = 0;
      this.waitingFrom = 0;
    } else if (this.waitingFrom > 1024 && this.waitingFrom * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.waitingFrom);
      this.waitingFrom = 0;
    }
    if (this.pendingFrom === this.pending.length) {
      this.pending.length = 0;
      this.pendingFrom = 0;
    } else if (this.pendingFrom > 1024 && this.pendingFrom * 2 > this.pending.length) {
      this.pending = this.pending.slice(this.pendingFrom);
      this.pendingFrom = 0;
    }
    this.calm = this.waiting.length === 0 && this.pending.length === 0;
  }
}

function eventOf(finding: DialectFinding): ParseEvent {
  const { mapped } = finding;
  return mapped.type === "command" ? { type: "command", command: mapped.command } : { type: "error", error: mapped.error };
}

function mentionOf(finding: DialectFinding, context: Mention["context"]): Mention {
  const mention: Mention = { text: finding.preview, context, span: { start: finding.start, end: finding.end } };
  const { mapped } = finding;
  if (mapped.type === "command") mention.hint = print(mapped.command);
  else if (mapped.error.hint !== undefined) mention.hint = mapped.error.hint;
  return mention;
}
