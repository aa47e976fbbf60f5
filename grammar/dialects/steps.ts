/**
 * The part of the dialect recognizer (recognizer.ts) that reads a step labelled line by line: a
 * ReAct step as LangChain's agents write it (`Action: NAME`, then `Action Input: …` on the next
 * line), Qwen-Agent's (`✿FUNCTION✿: NAME`, then `✿ARGS✿: …`) and Functionary v3.2's (`>>>NAME`,
 * then its JSON arguments).
 */
import { Shape } from "./finding.js";
import { FLOWER, Front, LINE_FEED, Mode, OPEN_BRACE, SPACE, TAB } from "./states.js";
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
}
