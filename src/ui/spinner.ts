/** A one-line spinner on a terminal while waiting (for the first token, for a command). */
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;
  private started = 0;
  private label = "";

  constructor(private readonly stream: NodeJS.WriteStream | { isTTY?: boolean; write(text: string): boolean }) {}

  start(label: string): void {
    if (!this.stream.isTTY) return;
    this.stop();
    this.label = label;
    this.started = Date.now();
    this.timer = setInterval(() => this.draw(), 80);
    this.timer.unref();
    this.draw();
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.stream.write("\r\x1b[K");
  }

  private draw(): void {
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    this.stream.write(`\r\x1b[K${FRAMES[this.frame++ % FRAMES.length]} ${this.label} ${seconds}s`);
  }
}
