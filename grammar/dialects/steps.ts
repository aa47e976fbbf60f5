/**
 * The part of the dialect recognizer (recognizer.ts) that reads a step labelled line by line: a
 * ReAct step as LangChain's agents write it (`Action: NAME`, then `Action Input: …` on the next
 * line) and Qwen-Agent's (`✿FUNCTION✿: NAME`, then `✿ARGS✿: …`).
 */
import { Shape } from "./finding.js";
import { LINE_FEED, Mode, OPEN_BRACE, SPACE, TAB } from "./states.js";
import { TokenReader } from "./tokens.js";

/** The label of a ReAct step's second line. */
export const REACT_LABEL = "Action Input:";
/** Qwen-Agent's ReAct-like step (its `fncall_prompt_type` "qwen"): `✿FUNCTION✿: NAME`, then `✿ARGS✿: {…}` on the next line. */
const QWEN_AGENT_FUNCTION = "✿FUNCTION✿:";
const QWEN_AGENT_ARGS = "✿ARGS✿:";
/** A ReAct `Action:` line longer than this (after the colon) names no tool. */
const MAX_REACT_ACTION = 200;

export abstract class StepReader extends TokenReader {
  /**
   * A ReAct step after its `Action:` (or Qwen-Agent's, from its `✿`): the action's line, the
   * `Action Input:` (`✿ARGS✿:`) label, then the input.
   */
  protected react(input: string, i: number, base: number, code: number): number {
    switch (this.mode) {
      case Mode.ReactOpen:
        if (code !== QWEN_AGENT_FUNCTION.charCodeAt(this.matched)) return this.abandon(i);
        if (++this.matched === QWEN_AGENT_FUNCTION.length) {
          this.mode = Mode.ReactAction;
          this.boundedLength = 0;
          this.closer = QWEN_AGENT_ARGS;
        }
        return i + 1;
      case Mode.ReactAction:
        if (code === LINE_FEED) {
          this.newline(base + i);
          this.mode = Mode.ReactLabel;
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
