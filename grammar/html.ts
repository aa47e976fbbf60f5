/**
 * Raw HTML as CommonMark 0.31.2 reads it: the start and end conditions of HTML blocks (types
 * 1–7), and a resumable recognizer for inline raw HTML (open and closing tags, comments,
 * processing instructions, declarations, CDATA), fed text in pieces of any size.
 */
// CommonMark's `\s` in tags is JavaScript's white space, as commonmark.js's regular expressions read it.
import { isRegexSpace } from "./chars.js";
import { HarmonyHeaderReader } from "./harmony.js";
import { TagOutcome } from "./tag-outcome.js";

export { TagOutcome } from "./tag-outcome.js";

const BLOCK_NAMES = new Set(
  (
    "address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt " +
    "fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link " +
    "main menu menuitem nav noframes ol optgroup option p param search section summary table tbody td tfoot th thead " +
    "title tr track ul"
  ).split(" "),
);
const RAW_NAMES = new Set(["script", "pre", "style", "textarea"]);
/** Tags that open a reasoning block (contract §4). */
export const REASONING_NAMES = new Set(["think", "thinking", "reasoning"]);

function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function isNameCharacter(code: number): boolean {
  return isLetter(code) || (code >= 0x30 && code <= 0x39) || code === 0x2d;
}

/**
 * The HTML block type (1–6) that `rest` (a line from a `<`) starts, 0 when none, -1 when more
 * of the line is needed (`final`: the line is complete). Type 7 needs the whole tag: see TagRecognizer.
 */
export function htmlBlockStart(rest: string, final: boolean): number {
  if (rest.startsWith("<!--")) return 2;
  if (rest.startsWith("<?")) return 3;
  if (rest.startsWith("<![CDATA[")) return 5;
  if (rest.length >= 3 && rest.charCodeAt(1) === 0x21 && isLetter(rest.charCodeAt(2))) return 4;
  if (!final && "<![CDATA[".startsWith(rest.slice(0, 9))) return -1;
  if (!final && "<!--".startsWith(rest.slice(0, 4))) return -1;
  const closing = rest.charCodeAt(1) === 0x2f;
  let i = closing ? 2 : 1;
  while (i < rest.length && (isLetter(rest.charCodeAt(i)) || (rest.charCodeAt(i) >= 0x30 && rest.charCodeAt(i) <= 0x39))) i++;
  if (i >= rest.length && !final) return i - (closing ? 2 : 1) > 10 ? 0 : -1;
  const name = rest.slice(closing ? 2 : 1, i).toLowerCase();
  const next = rest.charCodeAt(i);
  const ends = i >= rest.length || isRegexSpace(next) || next === 0x3e;
  if (!closing && RAW_NAMES.has(name) && ends) return 1;
  if (!BLOCK_NAMES.has(name)) return 0;
  if (ends) return 6;
  if (next === 0x2f) {
    if (i + 1 >= rest.length) return final ? 0 : -1;
    return rest.charCodeAt(i + 1) === 0x3e ? 6 : 0;
  }
  return 0;
}

const BLOCK_ENDS = [/./, /<\/(?:script|pre|textarea|style)>/i, /-->/, /\?>/, />/, /\]\]>/];

/** Whether a line of an HTML block of `type` (1–5) holds its end condition. */
export function htmlBlockEnds(type: number, line: string): boolean {
  return type >= 1 && type <= 5 && BLOCK_ENDS[type]!.test(line);
}

const enum Tag {
  AfterLessThan,
  OpenName,
  CloseFirst,
  CloseName,
  CloseSpace,
  AttributeSpace,
  AttributeName,
  AfterAttributeName,
  BeforeValue,
  DoubleQuoted,
  SingleQuoted,
  Unquoted,
  AfterValue,
  SelfClose,
  Bang,
  CommentStart,
  CommentStartDash,
  Comment,
  CommentDash,
  CommentDashDash,
  Declaration,
  DeclarationBody,
  Cdata,
  CdataBody,
  CdataBracket,
  CdataBrackets,
  Instruction,
  InstructionQuestion,
  Scheme,
  Autolink,
  /** After `<|`: a gpt-oss harmony header (harmony.ts). */
  Harmony,
}

/**
 * Recognizes one piece of inline raw HTML from just after its `<`. `feed` consumes text up to
 * the outcome; `stop` is then the index just after the last character (Complete) or of the
 * character that does not fit (Failed, not consumed).
 */
export class TagRecognizer {
  stop = 0;
  /** The name of an open tag, lower case (set when it completes), else "". */
  openName = "";
  /** The name of a closing tag, lower case (set when it completes), else "". */
  closeName = "";
  /** Whether what completed is an autolink (`<scheme:…>`), which CommonMark reads before raw HTML. */
  autolink = false;
  private state = Tag.AfterLessThan;
  /** Whether the last `feed` stopped just after a line feed (the tag is still open). */
  atLineFeed = false;
  /** Where the construct began waiting for its terminator (absolute offset). */
  private waitingAt = -1;
  /** Per terminator: from where it is known to be absent, up to `absentUntil` (the failed paragraph's end). */
  private readonly absentFrom = [Infinity, Infinity, Infinity, Infinity, Infinity, Infinity, Infinity];
  private absentUntil = -1;
  private name = "";
  private matched = 0;
  private readonly harmony = new HarmonyHeaderReader();

  /** Whether what completed is a harmony header (harmony.ts): a message's, never HTML. */
  get harmonyHeader(): boolean {
    return this.state === Tag.Harmony;
  }

  /** Whether what completed is a harmony header opening the `analysis` channel: reasoning. */
  get harmonyAnalysis(): boolean {
    return this.state === Tag.Harmony && this.harmony.analysis;
  }

  /** Whether what completed is the framing of a message to the user (harmony.ts): left out of the chat. */
  get harmonyFraming(): boolean {
    return this.state === Tag.Harmony && this.harmony.framing;
  }

  /**
   * The paragraph ended (at absolute `end`) with this construct still waiting for its
   * terminator: no later construct of the paragraph waiting for the same one can complete.
   */
  noteParagraphEnd(end: number): void {
    const waiting = waitingFor(this.state);
    if (waiting === Wait.None || this.waitingAt < 0) return;
    if (end !== this.absentUntil) this.absentFrom.fill(Infinity);
    this.absentFrom[waiting] = Math.min(this.absentFrom[waiting]!, this.waitingAt);
    this.absentUntil = end;
  }

  begin(): void {
    this.waitingAt = -1;
    this.state = Tag.AfterLessThan;
    this.name = "";
    this.openName = "";
    this.closeName = "";
    this.autolink = false;
  }

  feed(input: string, index: number, limit = input.length, base = 0): TagOutcome {
    this.atLineFeed = false;
    for (let i = index; i < limit; i++) {
      const code = input.charCodeAt(i);
      if (code === 0x0a) {
        // A line feed goes on only within the paragraph: the caller looks at the next line first.
        const outcome = this.step(code);
        this.stop = i + 1;
        if (outcome === TagOutcome.Running) {
          this.atLineFeed = true;
          return outcome;
        }
        this.stop = i;
        return outcome;
      }
      const before = this.state;
      let outcome = this.step(code);
      if (outcome === TagOutcome.Running) {
        if (this.state === before) continue;
        const waiting = waitingFor(this.state);
        if (waiting === Wait.None || waiting === waitingFor(before)) continue;
        this.waitingAt = base + i;
        // This terminator is known to be absent from here to the paragraph's end: fail at once.
        if (this.waitingAt >= this.absentFrom[waiting]! && this.waitingAt < this.absentUntil) outcome = TagOutcome.Failed;
        else continue;
      }
      this.stop = outcome === TagOutcome.Complete ? i + 1 : i;
      if (outcome === TagOutcome.Complete && this.state === Tag.Autolink) this.autolink = true;
      else if (outcome === TagOutcome.Complete && this.name !== "") {
        if (this.state === Tag.CloseName || this.state === Tag.CloseSpace) this.closeName = this.name.toLowerCase();
        else this.openName = this.name.toLowerCase();
      }
      return outcome;
    }
    this.stop = limit;
    return TagOutcome.Running;
  }

  /** One character; the state is left as it was on completion (feed reads it). */
  private step(code: number): TagOutcome {
    switch (this.state) {
      case Tag.AfterLessThan:
        if (isLetter(code)) return this.go(Tag.OpenName, code);
        if (code === 0x2f) return this.go(Tag.CloseFirst);
        if (code === 0x21) return this.go(Tag.Bang);
        if (code === 0x3f) return this.go(Tag.Instruction);
        if (code === 0x7c) {
          this.harmony.begin();
          this.state = Tag.Harmony;
          return this.harmony.step(code);
        }
        return TagOutcome.Failed;
      case Tag.OpenName:
        if (isNameCharacter(code)) return this.go(Tag.OpenName, code);
        if (code === 0x2b || code === 0x2e) return this.go(Tag.Scheme, code);
        if (code === 0x3a) return this.schemeEnd();
        return this.afterName(code);
      case Tag.Scheme:
        if (isNameCharacter(code) || code === 0x2b || code === 0x2e) return this.go(Tag.Scheme, code);
        return code === 0x3a ? this.schemeEnd() : TagOutcome.Failed;
      case Tag.Autolink:
        if (code === 0x3e) return TagOutcome.Complete;
        return code > 0x20 && code !== 0x3c ? TagOutcome.Running : TagOutcome.Failed;
      case Tag.CloseFirst:
        return isLetter(code) ? this.go(Tag.CloseName, code) : TagOutcome.Failed;
      case Tag.CloseName:
        if (isNameCharacter(code)) return this.go(Tag.CloseName, code);
        if (code === 0x3e) return TagOutcome.Complete;
        return isRegexSpace(code) ? this.go(Tag.CloseSpace) : TagOutcome.Failed;
      case Tag.CloseSpace:
        if (code === 0x3e) return TagOutcome.Complete;
        return isRegexSpace(code) ? TagOutcome.Running : TagOutcome.Failed;
      case Tag.AttributeSpace:
        if (isRegexSpace(code)) return TagOutcome.Running;
        if (isLetter(code) || code === 0x5f || code === 0x3a) return this.go(Tag.AttributeName);
        return this.endOfTag(code);
      case Tag.AttributeName:
        if (isNameCharacter(code) || code === 0x5f || code === 0x3a || code === 0x2e) return TagOutcome.Running;
        if (isRegexSpace(code)) return this.go(Tag.AfterAttributeName);
        if (code === 0x3d) return this.go(Tag.BeforeValue);
        return this.endOfTag(code);
      case Tag.AfterAttributeName:
        if (isRegexSpace(code)) return TagOutcome.Running;
        if (code === 0x3d) return this.go(Tag.BeforeValue);
        if (isLetter(code) || code === 0x5f || code === 0x3a) return this.go(Tag.AttributeName);
        return this.endOfTag(code);
      case Tag.BeforeValue:
        if (isRegexSpace(code)) return TagOutcome.Running;
        if (code === 0x22) return this.go(Tag.DoubleQuoted);
        if (code === 0x27) return this.go(Tag.SingleQuoted);
        return unquoted(code) ? this.go(Tag.Unquoted) : TagOutcome.Failed;
      case Tag.DoubleQuoted:
        return code === 0x22 ? this.go(Tag.AfterValue) : TagOutcome.Running;
      case Tag.SingleQuoted:
        return code === 0x27 ? this.go(Tag.AfterValue) : TagOutcome.Running;
      case Tag.Unquoted:
        if (unquoted(code)) return TagOutcome.Running;
        if (isRegexSpace(code)) return this.go(Tag.AttributeSpace);
        return code === 0x3e ? TagOutcome.Complete : TagOutcome.Failed;
      case Tag.AfterValue:
        if (isRegexSpace(code)) return this.go(Tag.AttributeSpace);
        return this.endOfTag(code);
      case Tag.SelfClose:
        return code === 0x3e ? TagOutcome.Complete : TagOutcome.Failed;
      case Tag.Harmony:
        return this.harmony.step(code);
      default:
        return this.special(code);
    }
  }

  /** Comments, declarations, CDATA and processing instructions. */
  private special(code: number): TagOutcome {
    switch (this.state) {
      case Tag.Bang:
        if (code === 0x2d) return this.go(Tag.CommentStart);
        if (code === 0x5b) return this.go(Tag.Cdata, -1);
        return isLetter(code) ? this.go(Tag.Declaration) : TagOutcome.Failed;
      case Tag.CommentStart:
        return code === 0x2d ? this.go(Tag.CommentStartDash) : TagOutcome.Failed;
      case Tag.CommentStartDash:
        // `<!-->` and `<!--->` are complete comments.
        if (code === 0x3e) return TagOutcome.Complete;
        return this.go(code === 0x2d ? Tag.CommentDashDash : Tag.Comment);
      case Tag.Comment:
        return code === 0x2d ? this.go(Tag.CommentDash) : TagOutcome.Running;
      case Tag.CommentDash:
        return this.go(code === 0x2d ? Tag.CommentDashDash : Tag.Comment);
      case Tag.CommentDashDash:
        if (code === 0x3e) return TagOutcome.Complete;
        return code === 0x2d ? TagOutcome.Running : this.go(Tag.Comment);
      case Tag.Declaration:
        if (isLetter(code)) return TagOutcome.Running;
        return code === 0x3e ? TagOutcome.Complete : this.go(Tag.DeclarationBody);
      case Tag.DeclarationBody:
        return code === 0x3e ? TagOutcome.Complete : TagOutcome.Running;
      case Tag.Cdata:
        if (code !== "CDATA[".charCodeAt(this.matched)) return TagOutcome.Failed;
        if (++this.matched === 6) this.state = Tag.CdataBody;
        return TagOutcome.Running;
      case Tag.CdataBody:
        return code === 0x5d ? this.go(Tag.CdataBracket) : TagOutcome.Running;
      case Tag.CdataBracket:
        return this.go(code === 0x5d ? Tag.CdataBrackets : Tag.CdataBody);
      case Tag.CdataBrackets:
        if (code === 0x3e) return TagOutcome.Complete;
        return code === 0x5d ? TagOutcome.Running : this.go(Tag.CdataBody);
      case Tag.Instruction:
        return code === 0x3f ? this.go(Tag.InstructionQuestion) : TagOutcome.Running;
      case Tag.InstructionQuestion:
        if (code === 0x3e) return TagOutcome.Complete;
        return code === 0x3f ? TagOutcome.Running : this.go(Tag.Instruction);
      default:
        return TagOutcome.Failed;
    }
  }

  /** A `:` after a name: an autolink's scheme when it is 2 to 32 characters long. */
  private schemeEnd(): TagOutcome {
    return this.name.length >= 2 && this.name.length <= 32 ? this.go(Tag.Autolink) : TagOutcome.Failed;
  }

  private afterName(code: number): TagOutcome {
    if (isRegexSpace(code)) return this.go(Tag.AttributeSpace);
    return this.endOfTag(code);
  }

  private endOfTag(code: number): TagOutcome {
    if (code === 0x3e) return TagOutcome.Complete;
    if (code === 0x2f) return this.go(Tag.SelfClose);
    return TagOutcome.Failed;
  }

  private go(state: Tag, nameCode = 0): TagOutcome {
    if (nameCode > 0) {
      if (this.state === Tag.AfterLessThan || this.state === Tag.CloseFirst) this.name = "";
      this.name += String.fromCharCode(nameCode);
    } else if (nameCode < 0) this.matched = 0;
    this.state = state;
    return TagOutcome.Running;
  }
}

const enum Wait {
  None,
  CommentEnd,
  InstructionEnd,
  GreaterThan,
  CdataEnd,
  DoubleQuote,
  SingleQuote,
}

/** The terminator a state waits for over any text (a quadratic replay risk when it never comes). */
function waitingFor(state: Tag): Wait {
  switch (state) {
    case Tag.Comment:
    case Tag.CommentDash:
    case Tag.CommentDashDash:
      return Wait.CommentEnd;
    case Tag.Instruction:
    case Tag.InstructionQuestion:
      return Wait.InstructionEnd;
    case Tag.DeclarationBody:
      return Wait.GreaterThan;
    case Tag.CdataBody:
    case Tag.CdataBracket:
    case Tag.CdataBrackets:
      return Wait.CdataEnd;
    case Tag.DoubleQuoted:
      return Wait.DoubleQuote;
    case Tag.SingleQuoted:
      return Wait.SingleQuote;
    default:
      return Wait.None;
  }
}

function unquoted(code: number): boolean {
  return code > 0x20 && code !== 0x22 && code !== 0x27 && code !== 0x3d && code !== 0x3c && code !== 0x3e && code !== 0x60;
}
