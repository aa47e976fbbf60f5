/**
 * Reasoning written into the reply itself: models served without a reasoning parser (DeepSeek-R1
 * distills, Qwen3 on a plain llama.cpp) start their content with `<think>…</think>`. For the
 * screen, such a block at the very start of a reply is split off as reasoning (an unclosed one
 * runs to the end); a tag anywhere later is ordinary text. The reply as kept is not changed.
 */
const OPENING = /^<(think|thinking|reasoning)>/i;
const OPENINGS = ["<think>", "<thinking>", "<reasoning>"];

export class LeadingReasoningSplitter {
  private state: "start" | "inside" | "outside" = "start";
  private pending = "";
  private closing = "";

  constructor(
    private readonly onReasoning: (text: string) => void,
    private readonly onText: (text: string) => void,
  ) {}

  push(text: string): void {
    this.pending += text;
    if (this.state === "start") this.decide();
    if (this.state === "inside") this.drainReasoning();
    if (this.state === "outside" && this.pending) {
      this.onText(this.pending);
      this.pending = "";
    }
  }

  /** The reply ended: whatever is held goes where it belongs. */
  end(): void {
    if (this.pending) (this.state === "inside" ? this.onReasoning : this.onText)(this.pending);
    this.pending = "";
  }

  /** At the start: a reasoning tag, text, or not yet known (blanks, or the beginning of a tag). */
  private decide(): void {
    const trimmed = this.pending.trimStart();
    const opening = OPENING.exec(trimmed);
    if (opening) {
      this.state = "inside";
      this.closing = `</${opening[1]!.toLowerCase()}>`;
      this.pending = trimmed.slice(opening[0].length);
      return;
    }
    const lower = trimmed.toLowerCase();
    if (!OPENINGS.some((tag) => tag.startsWith(lower))) this.state = "outside";
  }

  private drainReasoning(): void {
    const end = this.pending.toLowerCase().indexOf(this.closing);
    if (end >= 0) {
      if (end > 0) this.onReasoning(this.pending.slice(0, end));
      this.pending = this.pending.slice(end + this.closing.length).replace(/^[ \t]*\r?\n/, "");
      this.state = "outside";
      return;
    }
    // Hold back what may be the start of the closing tag.
    let held = Math.min(this.closing.length - 1, this.pending.length);
    while (held > 0 && !this.closing.startsWith(this.pending.slice(-held).toLowerCase())) held--;
    const ready = this.pending.slice(0, this.pending.length - held);
    this.pending = this.pending.slice(this.pending.length - held);
    if (ready) this.onReasoning(ready);
  }
}
