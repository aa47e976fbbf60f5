/** What the block structure (blocks.ts) says about a line: the open leaf, and the verdict on a line's beginning. */

export const enum Leaf {
  None,
  Paragraph,
  Fence,
  IndentedCode,
  Html,
}

/** What a line is, once its beginning is known. */
export const enum LineKind {
  /** More of the line is needed (`need` says until when). */
  Need,
  /** Live inline text: a paragraph's line or a heading. */
  Text,
  /** Nothing that can hold a command: a blank line, a thematic break, a setext underline. */
  Blank,
  /** Inert content: code, an HTML block, quoted material (see `region`). */
  Inert,
  /** A fence opens on this line; with `topLevel`, outside every container. */
  FenceOpen,
}

/** How much more of the line `classify` needs when it answers `Need`. */
export const enum Need {
  /** Up to the end of the line or the next backtick (a backtick fence's info string). */
  LineOrBacktick,
  /** Up to the end of the line or the next character that is not a prefix character. */
  Decider,
  /** Up to the end of the line. */
  Line,
}

/** The verdict on a line (one object, reused). Offsets are indexes into the line given. */
export class LineVerdict {
  kind = LineKind.Text;
  need = Need.Line;
  /** Where the content starts. */
  content = 0;
  /** For inert content: its region. For text: "quote" when it is inside a block quote. */
  region: "fence" | "indented-code" | "html" | "quote" | undefined;
  /** Text that continues the open paragraph (so a code span may run on into it). */
  continues = false;
  /** An ATX heading: its text is live, but no code span runs past its line. */
  heading = false;
  /** A paragraph starts here whose first line may still turn out to be an HTML block (type 7). */
  mayBeHtml = false;
  /** For FenceOpen: the fence character, run length, and the index of the run. */
  fenceCharacter = 0;
  fenceLength = 0;
  fenceRun = 0;
  topLevel = false;
}
