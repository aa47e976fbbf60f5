/**
 * A script's commands and syntax errors, in source order, read as the replay needs them: the
 * text goes to the scanner a piece at a time, so a long script's parsed commands are run and
 * dropped while they are young, instead of all of them being made first and held to the end (at
 * 10,000 commands the parse then cost about twice as much, in allocation of objects that live on,
 * garbage collection and cache misses). `scriptSubmissions` reads a script in one piece.
 *
 * The scanner hands its findings over in the order they start, and any chunking of a text gives
 * the findings of the whole (grammar/scanner.ts). A broken command's error and the command whose
 * `[` broke it start at one offset: the command goes first (see `take`). Pieces end after a line
 * break. test/replay/script-stream.test.ts checks it all, mentions included, against the one-shot
 * parse with its findings sorted by where they start.
 */
import type { Mention, Span } from "../../grammar/ast.js";
import { CallScanner, parserFailure, type CallVocabulary, type ParseEvent } from "../../grammar/index.js";
import type { Submission } from "../manager/manager.js";

/** Which commands of a script run (all when absent): given each one's text and where it stands. */
export type CommandSelector = (source: string, span: Span) => boolean;

/**
 * `--only LINE|TEXT`: a number selects the command standing on that line (a heredoc command
 * spans several), any other text the commands whose text contains it.
 */
export function selectorFor(only: string): CommandSelector {
  if (/^\d+$/.test(only)) {
    const line = Number(only);
    return (_source, span) => span.start.line <= line && line <= span.end.line;
  }
  return (source) => source.includes(only);
}

/**
 * Every command and syntax error of a script, in source order, read in one piece. With the
 * registry's `vocabulary` (callVocabularyOf) the script is read as the agent reads a reply: calls
 * written in another dialect are commands too, or errors whose hint is the clio command.
 */
export function scriptSubmissions(text: string, select?: CommandSelector, vocabulary?: CallVocabulary): { submissions: Submission[]; mentions: Mention[]; sources: string[] } {
  const stream = new ScriptStream(text, select, vocabulary, true, Number.POSITIVE_INFINITY);
  const submissions: Submission[] = [];
  const sources: string[] = [];
  for (let next = stream.next(); next !== undefined; next = stream.next()) {
    submissions.push(next.submission);
    sources.push(next.source!);
  }
  return { submissions, mentions: stream.mentions, sources };
}

/** Characters handed to the scanner at a time, at least: pieces end after a line break (see `pieceEnd`). */
const PIECE = 8192;

/** A command or syntax error of a script, and its text as the script writes it. */
export interface ScriptSubmission {
  submission: Submission;
  /** Undefined when the stream was made without sources. */
  source: string | undefined;
}

/** One script's submissions, read a piece at a time as `next` asks for them (see the file's header). */
export class ScriptStream {
  private readonly scanner: CallScanner;
  private fed = 0;
  private ended = false;
  private ready: ScriptSubmission[] = [];
  private readyFrom = 0;
  /** Syntax errors that start where a command may yet start (see `take`), and that offset. */
  private held: ScriptSubmission[] = [];
  private heldAt = -1;
  /** The mentions read so far: all of them once `next` gave undefined or `drain` returned. */
  readonly mentions: Mention[] = [];
  /** Submissions read so far (selected ones only): all of them once `next` gave undefined or `drain` returned. */
  total = 0;

  /**
   * @param select which commands count (all when absent)
   * @param withSources whether each submission comes with its text (a selector always gets it)
   * @param pieceLength characters scanned at a time (tests read in small pieces)
   */
  constructor(
    private readonly text: string,
    private readonly select: CommandSelector | undefined,
    vocabulary: CallVocabulary | undefined,
    private readonly withSources: boolean,
    private readonly pieceLength = PIECE,
  ) {
    this.scanner = new CallScanner(vocabulary);
  }

  /** The next submission in source order; undefined at the end of the script. */
  next(): ScriptSubmission | undefined {
    while (this.readyFrom === this.ready.length) {
      this.ready = [];
      this.readyFrom = 0;
      if (!this.readPiece()) return undefined;
    }
    return this.ready[this.readyFrom++];
  }

  /** Reads the rest of the script without handing it out: `total` and `mentions` are then complete. */
  drain(): void {
    do {
      this.ready = [];
      this.readyFrom = 0;
    } while (this.readPiece());
  }

  /** Scans the next piece of text (or ends the scan); false when the script was read to its end. */
  private readPiece(): boolean {
    if (this.ended) return false;
    const { text } = this;
    let events: ParseEvent[];
    try {
      if (this.fed < text.length) {
        const end = pieceEnd(text, this.fed, this.pieceLength);
        events = this.scanner.push(text.slice(this.fed, end));
        this.fed = end;
      } else {
        events = this.scanner.end();
        this.ended = true;
      }
    } catch (caught) {
      // As the one-shot parse reports it: one error at the end of the text, and nothing more read.
      this.ended = true;
      events = [{ type: "error", error: parserFailure(text, caught) }];
    }
    for (const event of events) this.take(event);
    if (this.ended) this.releaseHeld();
    return true;
  }

  /**
   * Takes one finding. Findings come in order of where they start, but a command broken by the
   * `[` of the next is reported at that `[`, before the next command is complete: where both start
   * at one offset, the command goes first (as `scriptSubmissions` sorts them), so such an error is
   * held until a finding that starts later, or the end.
   */
  private take(event: ParseEvent): void {
    if (event.type === "mention") {
      this.mentions.push(event.mention);
      return;
    }
    const submission: Submission = event.type === "command" ? { command: event.command } : { syntaxError: event.error };
    const span = event.type === "command" ? event.command.span : event.error.span;
    if (span.start.offset > this.heldAt) this.releaseHeld();
    const source = this.withSources || this.select ? sourceOf(this.text, span, submission) : undefined;
    if (this.select && !this.select(source!, span)) return;
    this.total++;
    if (event.type === "command") this.ready.push({ submission, source });
    else {
      this.held.push({ submission, source });
      this.heldAt = span.start.offset;
    }
  }

  private releaseHeld(): void {
    if (this.held.length === 0) return;
    for (const each of this.held) this.ready.push(each);
    this.held = [];
  }
}

/** Where the piece of `text` that starts at `from` ends: after the first line break at least `length` characters on (or at the text's end). */
function pieceEnd(text: string, from: number, length: number): number {
  const lineBreak = text.indexOf("\n", from + length - 1);
  return lineBreak < 0 ? text.length : lineBreak + 1;
}

/** A command's text; for a syntax error, from its command's `[` (or its line's start) to the end of the error. */
export function sourceOf(text: string, span: Span, submission: Submission): string {
  const { start, end } = span;
  if (!("syntaxError" in submission)) return text.slice(start.offset, end.offset);
  const { protocol } = submission.syntaxError;
  const lineStart = text.lastIndexOf("\n", start.offset - 1) + 1;
  const opening = protocol === undefined ? -1 : text.lastIndexOf(`[${protocol}`, start.offset);
  return text.slice(opening >= 0 ? opening : lineStart, Math.max(end.offset, start.offset + 1));
}
