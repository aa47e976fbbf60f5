/**
 * The part of the dialect recognizer (recognizer.ts) that reads a step labelled line by line: a
 * ReAct step as LangChain's agents write it (`Action: NAME`, then `Action Input: …` on the next
 * line), Qwen-Agent's (`✿FUNCTION✿: NAME`, then `✿ARGS✿: …`) and Functionary v3.2's (`>>>NAME`,
 * then its JSON arguments), at a line's start or, for Functionary's, in the middle of a line; and
 * a clio command written without its brackets on a line of its own (`FILE_OP:action=read:path="a"`).
 */
import { Shape } from "./finding.js";
import { beginsCallName, isNameCharacter } from "./near-name.js";
import { CARRIAGE_RETURN, DOT, FLOWER, Front, FULLWIDTH_OPEN, LESS, LINE_FEED, Mode, OPEN_BRACE, OPEN_BRACKET, SPACE, TAB } from "./states.js";
import { TokenReader } from "./tokens.js";

/** The label of a ReAct step's second line. */
export const REACT_LABEL = "Action Input:";
/** Qwen-Agent's ReAct-like step (its `fncall_prompt_type` "qwen"): `✿FUNCTION✿: NAME`, then `✿ARGS✿: {…}` on the next line. */
const QWEN_AGENT_FUNCTION = "✿FUNCTION✿:";
const QWEN_AGENT_ARGS = "✿ARGS✿:";
/** Functionary v3.2's step: `>>>NAME` on a line of its own, then its JSON arguments on the next line. */
const FUNCTIONARY_OPENING = ">>>";
/** A ReAct `Action:` line longer than this (after the colon) names no tool. */
const MAX_REACT_ACTION = 200;

export abstract class StepReader extends TokenReader {
  /** The label that opens the step being read (`Mode.ReactOpen`): Qwen-Agent's or Functionary's. */
  private opening = QWEN_AGENT_FUNCTION;
  /** How many `>` run on up to absolute offset `greaterEnd` (the last one's offset + 1). */
  private greaterRun = 0;
  private greaterEnd = -1;

  /**
   * A `>` at absolute `offset` in the middle of a line, while idle: counts its run (each `>` once,
   * however often it is looked at). True when it is the third: Functionary's `>>>` may open there.
   */
  protected greaterOpens(offset: number): boolean {
    if (this.greaterEnd !== offset + 1) {
      this.greaterRun = this.greaterEnd === offset ? this.greaterRun + 1 : 1;
      this.greaterEnd = offset + 1;
    }
    return this.greaterRun === 3;
  }

  /** A `>` at index `i` in the middle of a line, found while idle: where reading goes on (`openGreater` at the third of a run). */
  protected midLineGreater(i: number, base: number): number {
    this.front = Front.Dead;
    if (this.greaterOpens(base + i)) return this.openGreater(i, base);
    this.idleFrom = i + 1;
    return i + 1;
  }

  /** The third `>` of a run, at index `i` in the middle of a line: Functionary's step opens, from the first. */
  protected openGreater(i: number, base: number): number {
    this.front = Front.Dead;
    this.idleFrom = i + 1;
    this.begin(Mode.GreaterName, i, base);
    this.startOffset -= 2;
    this.startColumn -= 2;
    this.capture = ">>";
    this.shape = Shape.React;
    this.blank = false;
    return i + 1;
  }

  /**
   * At Qwen-Agent's `✿` or Functionary's `>` (index `i`) at a line's start, after its
   * indentation: its step opens, and the rest of its label is matched from here.
   */
  protected openStep(i: number, base: number, code: number): number {
    this.front = Front.Dead;
    this.idleFrom = i + 1;
    this.begin(Mode.ReactOpen, i, base);
    this.shape = Shape.React;
    this.opening = code === FLOWER ? QWEN_AGENT_FUNCTION : FUNCTIONARY_OPENING;
    this.matched = 1;
    return i + 1;
  }

  /**
   * A ReAct step after its `Action:` (or Qwen-Agent's or Functionary's, from its first
   * character): the action's line, the `Action Input:` (`✿ARGS✿:`, none) label, then the input.
   */
  protected react(input: string, i: number, base: number, code: number): number {
    switch (this.mode) {
      case Mode.BareKey:
        return this.bareKey(i, code);
      case Mode.BareLine:
        if (code === LINE_FEED) {
          this.completeAt(input, i, base);
          return i;
        }
        // A tag or bracket on its line may open a call of its own: this line is then text, read again from there.
        return code === LESS || code === OPEN_BRACKET || code === FULLWIDTH_OPEN ? this.abandon(i) : i + 1;
      case Mode.GreaterName:
        return this.greaterName(input, i, base, code);
      case Mode.GreaterInput:
        if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) return i + 1;
        if (code === OPEN_BRACE) {
          this.readJson(Shape.React, 1, true);
          return i + 1;
        }
        // No JSON object: the step is text, and this line, only blanks so far, is read again from here.
        this.abandon(i);
        this.front = Front.Indent;
        return i;
      case Mode.ReactOpen:
        if (code !== this.opening.charCodeAt(this.matched)) return this.abandon(i);
        if (++this.matched === this.opening.length) {
          this.mode = Mode.ReactAction;
          this.boundedLength = 0;
          // Functionary's arguments have no label.
          this.closer = this.opening === QWEN_AGENT_FUNCTION ? QWEN_AGENT_ARGS : "";
        }
        return i + 1;
      case Mode.ReactAction:
        if (code === LINE_FEED) {
          this.newline(base + i);
          this.mode = this.closer === "" ? Mode.ReactInput : Mode.ReactLabel;
          this.matched = 0;
        } else if (++this.boundedLength > MAX_REACT_ACTION) return this.abandon(i);
        return i + 1;
      case Mode.ReactLabel:
        // No `Action Input:` line: the step is text, and this line is read again from here.
        if (code !== this.closer.charCodeAt(this.matched)) return this.abandon(i);
        if (++this.matched === this.closer.length) this.mode = Mode.ReactInput;
        return i + 1;
      case Mode.ReactInput:
        if (code === SPACE || code === TAB) return i + 1;
        if (code === OPEN_BRACE) {
          // The object ends the step: what follows on its line is not read.
          this.readJson(Shape.React, 1, true);
          return i + 1;
        }
        this.mode = Mode.ReactText;
        return i;
      default:
        if (code === LINE_FEED) {
          this.completeAt(input, i, base);
          return i;
        }
        return i + 1;
    }
  }

  /**
   * After a registered name and `:` at a line's start (`Mode.BareKey`, `matched`: 0 before the key,
   * 1 in it, 2 after it): blanks, a parameter's key, blanks, then `=`, which makes the line a
   * command written without its brackets (`Mode.BareLine`, to the line's end). Anything else is
   * text, read again from that character.
   */
  private bareKey(i: number, code: number): number {
    const blank = code === SPACE || code === TAB;
    if (this.matched === 0 && blank) return i + 1;
    if (this.matched === 0 && beginsCallName(code)) this.matched = 1;
    else if (this.matched === 1 && (isNameCharacter(code) || code === HYPHEN) && ++this.boundedLength <= this.nameLimit) return i + 1;
    else if (this.matched > 0 && blank) this.matched = 2;
    else if (this.matched > 0 && code === EQUALS) this.mode = Mode.BareLine;
    else return this.abandon(i);
    return i + 1;
  }

  /**
   * After a mid-line `>>>`: a name that must be registered (read whole, so nothing is passed over
   * unread), blanks, then the `{` of its arguments on the same line or at the next line's start
   * (`Mode.GreaterInput`). Anything else makes it text, read again from that character.
   */
  private greaterName(input: string, i: number, base: number, code: number): number {
    if (!this.blank) {
      if (this.name === "" ? beginsCallName(code) : isNameCharacter(code) || code === DOT || code === HYPHEN) {
        if (this.name.length >= this.nameLimit) return this.abandon(i);
        this.name += input[i];
        return i + 1;
      }
      if (this.name === "" || this.vocabulary.resolve(this.name) === undefined) return this.abandon(i);
      this.blank = true;
    }
    if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) return i + 1;
    if (code === OPEN_BRACE) {
      this.readJson(Shape.React, 1, true);
      return i + 1;
    }
    if (code !== LINE_FEED) return this.abandon(i);
    this.newline(base + i);
    this.mode = Mode.GreaterInput;
    return i + 1;
  }
}

const HYPHEN = 0x2d;
const EQUALS = 0x3d;
