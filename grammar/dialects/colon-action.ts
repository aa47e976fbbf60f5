/**
 * `[NAME:action]` and `[NAME:action:key=value…]`: a command of this language whose action is
 * written without its `action=` (`[GIT:status]`, `[FILE_OP: read : path="a.ts"]`), or with a `:`
 * for its `=` (`[GIT:action:status]`). By §1 it is no
 * command start, so the scanner reads it as prose; the dialect layer reads the word after the
 * colon (`ActionWordReader`) and, when it is an action of the protocol the `[` names and `]` or
 * `:` follows it, reports an error whose hint is the command with `action=` (never run).
 */
import { Shape } from "./finding.js";
import { isNameCharacter } from "./near-name.js";
import { CARRIAGE_RETURN, CLOSE_BRACKET, COLON, COMMA, LINE_FEED, Mode, OPEN_BRACE, SPACE, TAB } from "./states.js";
import { TagReader } from "./tags.js";
import type { VocabularyProtocol } from "./vocabulary.js";

/** What the character given to `ActionWordReader.take` decides. */
export const enum ColonStep {
  /** Taken: the word (or the blanks around it) goes on. */
  Goes,
  /** Not an action written without `action=`: the character is read again as text. */
  Fails,
  /** The word is an action of the protocol, and this character (`]` or `:`) follows it: read on as a near-miss's body. */
  Opens,
}

/**
 * Reads the word after `[NAME:`, a character at a time, and checks it against the protocol's
 * actions: then `]` or `:` (`[GIT:status]`), or blanks or a comma and a key's `=`
 * (`[FILE_OP:read path="a.ts"]`), make it an action written without `action=`.
 */
class ActionWordReader {
  private protocol: VocabularyProtocol | undefined;
  private word = "";
  /** The word has ended at a blank or a comma: only blanks, then `]`, `:` or a key and `=`, may follow. */
  private ended = false;
  private comma = false;
  /** Characters of the key after the ended word; it ended at a blank. */
  private keyLength = 0;
  private keyEnded = false;
  /** `action:` came first (`[GIT:action:status]`): the word after it is the action. */
  private keyed = false;

  constructor(private readonly limit: number) {}

  /** After `[NAME:`: `protocol` is what NAME names alone (undefined when it names no protocol, or more). */
  reset(protocol: VocabularyProtocol | undefined): void {
    this.protocol = protocol;
    this.word = "";
    this.ended = false;
    this.comma = false;
    this.keyLength = 0;
    this.keyEnded = false;
    this.keyed = false;
  }

  /** No character of the word came yet. */
  wordless(): boolean {
    return this.word === "";
  }

  /** A line break after the colon: no word after it is read as an action (its line's start is read as text). */
  lineBreak(): void {
    this.protocol = undefined;
  }

  take(code: number): ColonStep {
    if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) {
      if (this.word !== "") this.ended = true;
      if (this.keyLength > 0) this.keyEnded = true;
      return ColonStep.Goes;
    }
    const protocol = this.protocol;
    if (protocol === undefined) return ColonStep.Fails;
    if (isNameCharacter(code)) {
      if (!this.ended) {
        if (this.word.length >= this.limit) return ColonStep.Fails;
        this.word += String.fromCharCode(code);
        return ColonStep.Goes;
      }
      if (this.keyEnded || ++this.keyLength > this.limit || !Object.hasOwn(protocol.actions, this.word.toLowerCase())) return ColonStep.Fails;
      return ColonStep.Goes;
    }
    if (code === COMMA && this.word !== "" && this.keyLength === 0 && !this.comma) {
      this.ended = true;
      this.comma = true;
      return ColonStep.Goes;
    }
    if (code === EQUALS) return this.keyLength > 0 ? ColonStep.Opens : ColonStep.Fails;
    if (code === COLON && !this.keyed && this.keyLength === 0 && this.word.toLowerCase() === "action" && !Object.hasOwn(protocol.actions, "action")) {
      this.keyed = true;
      this.word = "";
      this.ended = false;
      this.comma = false;
      return ColonStep.Goes;
    }
    if ((code === CLOSE_BRACKET || code === COLON) && this.word !== "" && this.keyLength === 0 && Object.hasOwn(protocol.actions, this.word.toLowerCase())) {
      return ColonStep.Opens;
    }
    return ColonStep.Fails;
  }
}

const EQUALS = 0x3d;

export abstract class ColonActionPart extends TagReader {
  private readonly actionWord = new ActionWordReader(this.nameLimit);

  /** `[NAME:` is this language's own start (NAME one word): `protocol` is the protocol NAME names, if any. */
  protected openColon(protocol: VocabularyProtocol | undefined): void {
    this.mode = Mode.NearColon;
    this.actionWord.reset(protocol);
  }

  /**
   * After `[NAME:` (`Mode.NearColon`): blanks and line breaks, then `{` (a near-miss's JSON body,
   * `[NAME:{…}]`), or an action's word then `]` or `:` (read on as a near-miss's body, `Shape.ColonAction`).
   * Anything else is text, read again from that character.
   */
  protected nearColon(i: number, base: number, code: number): number {
    const word = this.actionWord;
    if (code === LINE_FEED) {
      this.newline(base + i);
      word.lineBreak();
      return i + 1;
    }
    const step = code === OPEN_BRACE && word.wordless() ? ColonStep.Opens : word.take(code);
    if (step === ColonStep.Goes) return i + 1;
    if (step === ColonStep.Fails) return this.abandon(i);
    if (code !== OPEN_BRACE) this.shape = Shape.ColonAction;
    this.mode = Mode.NearBody;
    this.inString = 0;
    this.depth = 0;
    this.blank = false;
    return i;
  }
}

/**
 * A shortcut for `ActionWordReader` over one chunk: false when the text from index `from` (right
 * after `[NAME:`) is sure to be no action written without `action=`: a word followed by anything
 * but blanks, `]`, `:` or `,` (as `action=` is, in a command), or a word that is too long. True when it
 * may be one, or the chunk ends first.
 */
export function mayBeColonAction(input: string, from: number, limit: number): boolean {
  const end = input.length;
  let i = from;
  while (i < end && isNameCharacter(input.charCodeAt(i))) if (++i - from > limit) return false;
  if (i === end) return true;
  const code = input.charCodeAt(i);
  return code === SPACE || code === TAB || code === CARRIAGE_RETURN || code === CLOSE_BRACKET || code === COLON || code === COMMA;
}
