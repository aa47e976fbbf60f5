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
import { DialectRecognizer, type DialectFinding } from "./recognizer.js";
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
  private held: ParseEvent[] = [];
  private readonly pending: DialectFinding[] = [];

  constructor(vocabulary?: CallVocabulary, log?: (scanner: StreamingScanner) => InertRegionLog) {
    this.log = (log ?? regionLogOf)(this.scanner);
    this.recognizer = vocabulary ? new DialectRecognizer(vocabulary) : undefined;
  }

  /** Scans the next piece of text; returns what it completed, in source order. */
  push(chunk: string): ParseEvent[] {
    const recognizer = this.recognizer;
    if (recognizer === undefined) return this.scanner.push(chunk);
    if (chunk.length === 1 && this.held.length === 0 && this.pending.length === 0 && recognizer.quiet(chunk.charCodeAt(0))) {
      recognizer.skipOne();
      return this.scanner.push(chunk);
    }
    const events = this.scanner.push(chunk);
    recognizer.feed(chunk);
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
      this.pending.push(...found);
      found.length = 0;
    }
    const open = recognizer.openStart;
    if (this.pending.length === 0 && this.held.length === 0 && open < 0) return events;
    if (events.length > 0) this.held.push(...events);
    const out: ParseEvent[] = [];
    const settled = this.log.settledUntil;
    // A finding waits for its region to settle and for its last line to end: the scanner's
    // findings on that line (mentions in an inert line) are out by then.
    while (this.pending.length > 0 && this.pending[0]!.start.offset < settled && this.pending[0]!.lineEnd !== undefined && this.pending[0]!.lineEnd < settled) {
      const finding = this.pending.shift()!;
      this.release(out, finding.start.offset);
      const kind = this.log.kindAt(finding.start.offset);
      if (kind === undefined || (kind === "html" && finding.markup)) {
        this.held = this.held.filter((event) => startOf(event) >= finding.end.offset);
        out.push(eventOf(finding));
      } else if (kind !== "command") out.push({ type: "mention", mention: mentionOf(finding, kind) });
    }
    let limit = this.pending.length > 0 ? this.pending[0]!.start.offset : Number.POSITIVE_INFINITY;
    if (open >= 0 && open < limit) limit = open;
    this.release(out, limit);
    return out.length === 0 ? NO_EVENTS : out;
  }

  /** Moves the held findings that start before `limit` to `out`. */
  private release(out: ParseEvent[], limit: number): void {
    let count = 0;
    while (count < this.held.length && startOf(this.held[count]!) < limit) count++;
    if (count === 0) return;
    for (let i = 0; i < count; i++) out.push(this.held[i]!);
    this.held = this.held.slice(count);
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
