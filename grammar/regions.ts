/**
 * Where command-shaped text is inert (contract §4), as the streaming scanner learns it. The
 * scanner keeps a log of the inert stretches it has settled; layers that look for other ways of
 * writing a call (dialects, near-misses) ask it whether a place they found is live text.
 */

/**
 * The kind of an inert region: a fenced or indented code block, a code span, raw HTML (a block
 * or inline), a block quote, a reasoning block (`<think>` and its kin), or the inside of a
 * command of this language (its quoted values and heredoc bodies are data). `framing` is no inert
 * region but a mark on live text: gpt-oss's harmony framing of a message to the user (its header,
 * or its `<|return|>`/`<|end|>`), which holds no command and which the chat leaves out.
 */
export type InertRegionKind = "fence" | "indented-code" | "inline-code" | "html" | "quote" | "reasoning" | "command" | "framing";

/** What the scanner knows about the inert regions of the text read so far. */
export interface InertRegionLog {
  /**
   * Every offset below this one is settled: `kindAt` answers for it and the answer will not
   * change as more text arrives. It only grows.
   */
  readonly settledUntil: number;
  /**
   * The innermost inert region holding `offset` (which must be below `settledUntil`), or
   * `undefined` where the text is live (or `framing`, on live text). Callers ask in increasing offsets, so an implementation
   * may forget what lies behind the last offset asked.
   */
  kindAt(offset: number): InertRegionKind | undefined;
}
