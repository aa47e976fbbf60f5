/**
 * Recovery after a broken command: its tail is skipped to the next `]` or line break, and a
 * heredoc header in it (`<<TAG` ending its line) makes recovery skip the heredoc's body too, so a
 * command-shaped line inside that body never runs.
 */
import { CLOSE_BRACKET, CARRIAGE_RETURN, KEY_FIRST, LESS_THAN, LINE_FEED, SPACE, TAB, TAG_REST } from "./chars.js";
import { FenceScanner } from "./scanner-fences.js";
import { State } from "./scanner-states.js";

/** The recovery paths of StreamingScanner (see scanner.ts). */
export abstract class RecoveringScanner extends FenceScanner {
  /** The tag of a broken command's heredoc that recovery skips (see `recoverHeredoc`). */
  protected recoverTag = "";
  /** Whether that header is known to be one (broken inside it), so any tag and trailing text go. */
  protected recoverLoose = false;
  protected recoverMatched = 0;

  protected recoverHeredocBody(tag: string, open: boolean): void {
    this.recoverTag = tag;
    this.recoverLoose = true;
    this.state = open ? State.RecoverTag : State.RecoverHeader;
  }

  /**
   * One character of a heredoc header in a broken command's tail (`<<TAG` ending its line),
   * in state RecoverLess, RecoverTag or RecoverHeader. Returns the next index: the character
   * is consumed, or left for the Recover state when this is not a header after all.
   */
  protected recoverHeredoc(input: string, i: number, base: number): number {
    const code = input.charCodeAt(i);
    if (this.state === State.RecoverLess) {
      if (code !== LESS_THAN) {
        this.state = State.Recover;
        return i;
      }
      this.recoverTag = "";
      this.recoverLoose = false;
      this.state = State.RecoverTag;
      return i + 1;
    }
    const tag = this.recoverTag;
    if (code === LINE_FEED) {
      if (tag === "") {
        this.state = State.Recover;
        return i;
      }
      this.newline(base + i, input, i + 1);
      this.recoverMatched = 0;
      this.state = State.RecoverBodyStart;
      return i + 1;
    }
    if (code === CLOSE_BRACKET) {
      this.state = State.Recover;
      return i;
    }
    const space = code === SPACE || code === TAB || code === CARRIAGE_RETURN;
    if (this.state === State.RecoverTag) {
      if (space) {
        if (tag !== "") this.state = State.RecoverHeader;
        else if (code === CARRIAGE_RETURN || !this.recoverLoose) this.state = State.Recover;
        return tag !== "" || this.state === State.Recover ? i : i + 1;
      }
      if (this.recoverLoose) {
        if (code === 0x22 || code === 0x27) return i + 1;
        let j = i + 1;
        for (let next = input.charCodeAt(j); j < input.length; next = input.charCodeAt(++j)) {
          if (next <= SPACE || next === CLOSE_BRACKET || next === 0x22 || next === 0x27) break;
        }
        this.recoverTag += input.slice(i, j);
        return j;
      }
      if (code < 128 && (tag === "" ? KEY_FIRST[code] : TAG_REST[code])) {
        let j = i + 1;
        for (let next = input.charCodeAt(j); j < input.length && next < 128 && TAG_REST[next]; next = input.charCodeAt(++j));
        this.recoverTag += input.slice(i, j);
        return j;
      }
      this.state = State.Recover;
      return i;
    }
    if (space || this.recoverLoose) return i + 1;
    this.state = State.Recover;
    return i;
  }

  /** One step in a broken command's heredoc body: only a line that is exactly the tag ends it. */
  protected recoverBody(input: string, i: number, base: number): number {
    if (this.state === State.RecoverBodyLine) {
      const lineFeed = input.indexOf("\n", i);
      if (lineFeed < 0) return input.length;
      this.newline(base + lineFeed, input, lineFeed + 1);
      this.recoverMatched = 0;
      this.state = State.RecoverBodyStart;
      return lineFeed + 1;
    }
    const code = input.charCodeAt(i);
    const tag = this.recoverTag;
    if (this.recoverMatched < tag.length) {
      if (code === tag.charCodeAt(this.recoverMatched)) {
        this.recoverMatched++;
        return i + 1;
      }
    } else if (code === SPACE || code === TAB || code === CARRIAGE_RETURN) return i + 1;
    else if (code === LINE_FEED) {
      // The closing line: the broken command goes on (`:` or `]`); recovery goes on too.
      this.newline(base + i, input, i + 1);
      this.enterLineStart();
      return i + 1;
    }
    this.state = State.RecoverBodyLine;
    return i;
  }
}
