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
import { StreamingScanner, type ParseEvent } from "../scanner.js";
import type { DialectFinding } from "./finding.js";
import { DialectRecognizer } from "./recognizer.js";
import type { CallVocabulary } from "./vocabulary.js";

const NO_EVENTS = Object.freeze([]) as unknown as ParseEvent[];

/** Where the scanner keeps no region log (yet): everything settled, nothing inert. */
const NO_REGIONS: InertRegionLog = { settledUntil: Number.POSITIVE_INFINITY, kindAt: () => undefined };

function regionLogOf(scanner: StreamingScanner): InertRegionLog {
  const withLog = scanner as unknown as { regions?: InertRegionLog };
  return withLog.regions ?? NO_REGIONS;
}

function startOf(event: ParseEvent): number {
  if (event.type === "command") return event.command.span.start.offset;
  if (event.type === "mention") return event.mention.span.start.offset;
  return event.error.span.start.offset;
}

/**
 * Feed text with `push(chunk)`, then call `end()`, as with StreamingScanner. Without a
 * vocabulary it is the scanner alone.
 */
export class CallScanner {
  private readonly scanner = new StreamingScanner();
  private readonly recognizer: DialectRecognizer | undefined;
  private readonly log: InertRegionLog;
  /** Scanner findings waiting behind an open or unsettled call; those before `heldFrom` are gone. */
  private held: ParseEvent[] = [];
  private heldFrom = 0;
  /** Calls found, waiting for their region to settle; those before `pendingFrom` are gone. */
  private pending: DialectFinding[] = [];
  private pendingFrom = 0;
  /** Nothing held and nothing pending. */
  private calm = true;

  constructor(vocabulary?: CallVocabulary, log?: (scanner: StreamingScanner) => InertRegionLog) {
    // Only the dialect layer reads the region log; without it the scanner records none.
    this.log = vocabulary ? (log ?? regionLogOf)(this.scanner) : NO_REGIONS;
    this.recognizer = vocabulary ? new DialectRecognizer(vocabulary) : undefined;
  }

  /** Scans the next piece of text; returns what it completed, in source order. */
  push(chunk: string): ParseEvent[] {
    const recognizer = this.recognizer;
    // Kept small enough to inline: one character the recognizer reads without opening or closing anything.
    if (chunk.length === 1 && this.calm && recognizer?.quiet(chunk)) {
      const events = this.scanner.push(chunk);
      return events.length === 0 ? events : this.merge(events);
    }
    return this.pushChunk(chunk);
  }

  private pushChunk(chunk: string): ParseEvent[] {
    const events = this.scanner.push(chunk);
    if (this.recognizer === undefined) return events;
    this.recognizer.feed(chunk);
    return this.merge(events);
  }

  /** The text is complete. */
  end(): ParseEvent[] {
    const events = this.scanner.end();
    if (this.recognizer === undefined) return events;
    this.recognizer.finish();
    return this.merge(events);
  }

  private merge(events: ParseEvent[]): ParseEvent[] {
    const recognizer = this.recognizer!;
    const found = recognizer.found;
    if (found.length > 0) {
      for (const finding of found) this.pending.push(finding);
      found.length = 0;
    }
    const open = recognizer.openStart;
    if (this.pending.length === this.pendingFrom && this.held.length === this.heldFrom && open < 0) return events;
    for (const event of events) this.held.push(event);
    const out: ParseEvent[] = [];
    const settled = this.log.settledUntil;
    // A finding waits for its region to settle and for its last line to end: the scanner's
    // findings on that line (mentions in an inert line) are out by then.
    while (this.pendingFrom < this.pending.length) {
      const finding = this.pending[this.pendingFrom]!;
      if (!(finding.start.offset < settled && finding.lineEnd !== undefined && finding.lineEnd < settled)) break;
      this.pendingFrom++;
      this.release(out, finding.start.offset);
      const kind = this.log.kindAt(finding.start.offset);
      if (kind === undefined || (kind === "html" && finding.markup)) {
        // The scanner's findings inside a live call are its data.
        while (this.heldFrom < this.held.length && startOf(this.held[this.heldFrom]!) < finding.end.offset) this.heldFrom++;
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
    while (this.heldFrom < this.held.length && startOf(this.held[this.heldFrom]!) < limit) out.push(this.held[this.heldFrom++]!);
  }

  /** Drops what was released, once it is all or most of the queues. */
  private compact(): void {
    if (this.heldFrom === this.held.length) {
      this.held.length = 0;
      this.heldFrom = 0;
    } else if (this.heldFrom > 1024 && this.heldFrom * 2 > this.held.length) {
      this.held = this.held.slice(this.heldFrom);
      this.heldFrom = 0;
    }
    if (this.pendingFrom === this.pending.length) {
      this.pending.length = 0;
      this.pendingFrom = 0;
    } else if (this.pendingFrom > 1024 && this.pendingFrom * 2 > this.pending.length) {
      this.pending = this.pending.slice(this.pendingFrom);
      this.pendingFrom = 0;
    }
    this.calm = this.held.length === 0 && this.pending.length === 0;
  }
}

function eventOf(finding: DialectFinding): ParseEvent {
  const { mapped } = finding;
  return mapped.type === "command" ? { type: "command", command: mapped.command } : { type: "error", error: mapped.error };
}

function mentionOf(finding: DialectFinding, context: Mention["context"]): Mention {
  const mention: Mention = { text: finding.preview, context, span: { start: finding.start, end: finding.end } };
  const { mapped } = finding;
  if (mapped.type === "command") mention.hint = mapped.equivalent;
  else if (mapped.error.hint !== undefined) mention.hint = mapped.error.hint;
  return mention;
}
