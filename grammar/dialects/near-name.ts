/**
 * The words after a `[` (or `［`) that is not this language's own start: read one character at a
 * time, without building a string, and checked against the vocabulary when the first other
 * character arrives. `[FILE_OP action=…`, `[ FILE_OP:`, `[FILE OP:` name a protocol; `[x]`,
 * `[docs]` and `[NOTE]` name nothing and cost a hash look-up.
 */
import { isRegexSpace, isSpaceOrTab, KEY_FIRST } from "../chars.js";
import { EMPTY_NAME_HASH, hashName, isNamespaceWord, type CallVocabulary } from "./vocabulary.js";

const UNDERSCORE = 0x5f;

/** `[A-Za-z0-9_]`: a character of a name in a near-miss or a tag. */
export function isNameCharacter(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || code === UNDERSCORE;
}

/** `[A-Za-z_]`: a character a Python call's name may begin with (as a KEY's first, chars.ts). */
export function beginsCallName(code: number): boolean {
  return code < 128 && KEY_FIRST[code] === 1;
}

/** What the words name, once read. */
export interface NearNameVerdict {
  /** The words name something registered (the first word, or the first two joined by `_`). */
  named: boolean;
  /** One word, no space before or after it: `[NAME:` is then this language's own start. */
  plain: boolean;
  /** The text read after the bracket, as written. */
  raw: string;
}

/**
 * Mistral's marker token, printed as `[TOOL_CALLS]` before a JSON array of calls when the server
 * does not parse it: the words of a `[` at a line's start that are this are never dropped early,
 * whatever the vocabulary, so the array after it may be read (candidates.ts, nearName).
 */
export const TOOL_CALLS_MARKER = "TOOL_CALLS";

/** Whether `first` (and `second`, when given) begin `TOOL_CALLS_MARKER`. */
export function beginsToolCallsMarker(first: number, second?: number): boolean {
  return first === TOOL_CALLS_MARKER.charCodeAt(0) && (second === undefined || second === TOOL_CALLS_MARKER.charCodeAt(1));
}

export class NearNameReader {
  /** Made at the first character taken: most parsers never read a `[` word that may name something. */
  private raw: Uint16Array | undefined;
  private rawLength = 0;
  /** The words' length with each run of spaces counted as one (leading ones not at all). */
  private length = 0;
  private spaces = 0;
  private words = 0;
  private leadingSpace = false;
  private afterSpace = false;
  private firstHash = EMPTY_NAME_HASH;
  private firstHead = EMPTY_NAME_HASH;
  private joinedHash = EMPTY_NAME_HASH;
  private joinedHead = EMPTY_NAME_HASH;
  /** The first word's first character, for `namesNothing`. */
  private firstCode = 0;

  constructor(
    private readonly vocabulary: CallVocabulary,
    private readonly limit = vocabulary.longestName + 12,
  ) {}

  private rawBuffer(): Uint16Array {
    return (this.raw ??= new Uint16Array(this.limit + 8));
  }

  reset(): void {
    this.rawLength = 0;
    this.length = 0;
    this.spaces = 0;
    this.words = 0;
    this.leadingSpace = false;
    this.afterSpace = false;
    this.firstHash = EMPTY_NAME_HASH;
    this.firstHead = EMPTY_NAME_HASH;
    this.joinedHash = EMPTY_NAME_HASH;
    this.joinedHead = EMPTY_NAME_HASH;
  }

  /** Takes `code` when it is part of the words (a name character, or one of up to three spaces); false: it ends them. */
  take(code: number): boolean {
    if (isNameCharacter(code) && this.length <= this.limit) {
      if (this.words === 0 || this.afterSpace) {
        this.words++;
        if (this.words === 2) {
          this.joinedHead = this.firstHash;
          this.joinedHash = hashName(this.firstHash, UNDERSCORE);
        }
      }
      this.afterSpace = false;
      if (this.words === 1) {
        if (this.length === 0) this.firstCode = code;
        if (code === UNDERSCORE) this.firstHead = this.firstHash;
        this.firstHash = hashName(this.firstHash, code);
      } else if (this.words === 2) {
        if (code === UNDERSCORE) this.joinedHead = this.joinedHash;
        this.joinedHash = hashName(this.joinedHash, code);
      }
      this.length++;
      this.rawBuffer()[this.rawLength++] = code;
      return true;
    }
    if (isSpaceOrTab(code) && this.spaces < 3) {
      if (this.words === 0) this.leadingSpace = true;
      else if (!this.afterSpace) {
        this.afterSpace = true;
        this.length++;
      }
      this.spaces++;
      this.rawBuffer()[this.rawLength++] = code;
      return true;
    }
    return false;
  }

  /**
   * Right after `take(code)` took a name character: true when the words already name nothing,
   * as `wordsMayName` (line-fronts.ts) decides it at the `[`: no name begins with their first
   * character, or with their first two, and they are not one word right after the `[` that a `(`
   * may follow (`[foo(`, a Python list's first call).
   */
  namesNothing(code: number): boolean {
    // `[foo` may still open a Python list whose later call names a tool: its word is read to its end.
    if (this.words !== 1 || this.afterSpace || (!this.leadingSpace && beginsCallName(this.firstCode))) return false;
    if (this.length === 1) return !this.vocabulary.mayBeginName(code) && !beginsToolCallsMarker(code);
    return this.length === 2 && !this.vocabulary.mayContinueName(this.firstCode, code) && !beginsToolCallsMarker(this.firstCode, code);
  }

  /** Whether the words are exactly `TOOL_CALLS`, no space before or after: Mistral's marker token (see `TOOL_CALLS_MARKER`). */
  isToolCallsMarker(): boolean {
    if (!this.plain() || this.rawLength !== TOOL_CALLS_MARKER.length) return false;
    const raw = this.rawBuffer();
    for (let k = 0; k < TOOL_CALLS_MARKER.length; k++) if (raw[k] !== TOOL_CALLS_MARKER.charCodeAt(k)) return false;
    return true;
  }

  /**
   * Whether the words are a tool namespace's word (`functions`, `default_api`: `TOOL_NAMESPACES`),
   * no space before or after it: with the `.` after it, a Python list's first call's name may go on (`[functions.read_file(`).
   */
  isNamespace(): boolean {
    return this.plain() && this.rawLength <= this.limit && isNamespaceWord(this.text(), 0, this.rawLength);
  }

  /** False when the words are sure to name nothing (checked by their hashes). */
  mayName(): boolean {
    return this.joinedMay() || this.firstMay();
  }

  private joinedMay(): boolean {
    return this.words >= 2 && this.vocabulary.mayResolve(this.joinedHash, this.joinedHead);
  }

  private firstMay(): boolean {
    return this.words >= 1 && this.vocabulary.mayResolve(this.firstHash, this.firstHead);
  }

  /**
   * Whether the words may be the name of a Python list's first call when a `(` follows them: one
   * word beginning with a letter or `_`, no space before or after it (`[foo(`).
   */
  mayCall(): boolean {
    return this.plain() && beginsCallName(this.firstCode);
  }

  /** The words as read; `read`: the caller's copy of them, when it has them all. */
  text(read?: string): string {
    return read !== undefined && read.length === this.rawLength ? read : String.fromCharCode.apply(null, this.rawBuffer().subarray(0, this.rawLength) as unknown as number[]);
  }

  /** No word was read (only blanks, or nothing). */
  wordless(): boolean {
    return this.words === 0;
  }

  /** One word, no space before or after it. */
  plain(): boolean {
    return !this.leadingSpace && this.words === 1 && !this.afterSpace;
  }

  /**
   * What the words read so far name: the first two joined by `_` (`[FILE OP:`), else the first.
   * `read`: the words as the caller has them in its chunk, when all of them are there.
   */
  verdict(read?: string): NearNameVerdict {
    const plain = this.plain();
    const vocabulary = this.vocabulary;
    const joinedMay = this.joinedMay();
    const firstMay = this.firstMay();
    if (!joinedMay && !firstMay) return { named: false, plain, raw: "" };
    const raw = this.text(read);
    // The first two words of `raw` trimmed, as split at runs of spaces and tabs, without the split's list.
    let from = 0;
    let to = raw.length;
    while (from < to && isRegexSpace(raw.charCodeAt(from))) from++;
    while (to > from && isRegexSpace(raw.charCodeAt(to - 1))) to--;
    const firstEnd = blankAt(raw, from, to);
    let secondStart = firstEnd;
    while (secondStart < to && isSpaceOrTab(raw.charCodeAt(secondStart))) secondStart++;
    const first = raw.slice(from, firstEnd);
    const joined = joinedMay && secondStart < to ? `${first}_${raw.slice(secondStart, blankAt(raw, secondStart, to))}` : undefined;
    const named = (joined !== undefined && vocabulary.resolve(joined) !== undefined) || (firstMay && vocabulary.resolve(first) !== undefined);
    return { named, plain, raw };
  }
}

/** The index of the first space or tab in `text` from `from` to `to`, or `to`. */
function blankAt(text: string, from: number, to: number): number {
  let i = from;
  while (i < to && !isSpaceOrTab(text.charCodeAt(i))) i++;
  return i;
}
