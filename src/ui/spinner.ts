/**
 * A spinner on a terminal while waiting (for the first token, for a command): the label and the
 * time so far, and under it the last lines a running command printed.
 */
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** Lines of a running command's output shown under the spinner. */
const TAIL_LINES = 4;

export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;
  private started = 0;
  private label = "";
  private tail: string[] = [];
  private partial = "";
  private drawnBelow = 0;

  constructor(
    private readonly stream: NodeJS.WriteStream | { isTTY?: boolean; columns?: number; write(text: string): boolean },
    private readonly dim: (text: string) => string = (text) => text,
  ) {}

  start(label: string): void {
    if (!this.stream.isTTY) return;
    this.stop();
    this.label = label;
    this.started = Date.now();
    this.tail = [];
    this.partial = "";
    this.timer = setInterval(() => this.draw(), 80);
    this.timer.unref();
    this.draw();
  }

  /** Changes what the spinner says, keeping its clock. */
  relabel(label: string): void {
    this.label = label;
  }

  /** Output of the running command: its last lines are shown under the label. */
  output(text: string): void {
    if (!this.timer) return;
    const lines = (this.partial + text).replace(/\r\n?/g, "\n").split("\n");
    this.partial = lines.pop() ?? "";
    this.tail = [...this.tail, ...lines].slice(-TAIL_LINES);
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    // Back to the label's line, then clear it and everything drawn under it.
    this.stream.write("\r\x1b[K\x1b[J");
    this.drawnBelow = 0;
  }

  private draw(): void {
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    const width = Math.max(20, (this.stream.columns ?? 80) - 6);
    const shown = [...this.tail, ...(this.partial ? [this.partial] : [])].slice(-TAIL_LINES);
    // Control characters from the command would move the cursor; only printable text is drawn.
    const below = shown.map((line) => `\n\x1b[K  ${this.dim(`│ ${line.replace(/[\x00-\x1f\x7f]/g, "").slice(0, width)}`)}`).join("");
    const up = shown.length ? `\x1b[${shown.length}A` : "";
    const clearRest = shown.length < this.drawnBelow ? "\x1b[J" : "";
    this.stream.write(`\r\x1b[K${FRAMES[this.frame++ % FRAMES.length]} ${this.label} ${seconds}s${clearRest}${below}${up}\r`);
    this.drawnBelow = shown.length;
  }
}
