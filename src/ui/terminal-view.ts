/**
 * What a person sees while the agent works: the reply rendered as markdown as it streams, a
 * spinner until the first token, each command as its action description with a result line,
 * retries and notices. It only listens to events; it decides nothing.
 */
import type { ChalkInstance } from "chalk";
import type { AgentEvent } from "../agent/agent.js";
import type { ManagerEvent } from "../manager/manager.js";
import { ReasoningSplitter } from "../agent/reasoning-split.js";
import { MarkdownRenderer } from "./markdown.js";
import { ReasoningView, type ReasoningMode } from "./reasoning-view.js";
import { formatOutputPreview, formatResultLine } from "./results.js";
import { Spinner } from "./spinner.js";

export interface TerminalViewOptions {
  style: ChalkInstance;
  output: NodeJS.WriteStream | { isTTY?: boolean; columns?: number; write(text: string): boolean };
  /** Reasoning a provider sends beside the reply: collapsed to a line (default), shown dimmed, or hidden. */
  reasoning?: ReasoningMode;
}

export class TerminalView {
  private readonly spinner: Spinner;
  private markdown: MarkdownRenderer;
  private readonly style: ChalkInstance;
  private readonly write: (text: string) => void;
  private readonly pendingResults: string[] = [];
  private replyShown = false;
  private readonly liveWidth: number | undefined;
  /** The reasoning beside the replies; `/reasoning` shows it or changes how it shows. */
  readonly reasoning: ReasoningView;
  /** Splits `<think>` blocks (anywhere in a reply, as the scanner reads them) off as reasoning. */
  private splitter: ReasoningSplitter;

  constructor(options: TerminalViewOptions) {
    this.style = options.style;
    this.spinner = new Spinner(options.output, (text) => this.style.dim(text));
    this.write = (text) => {
      options.output.write(text);
    };
    this.liveWidth = options.output.isTTY ? Math.max(20, (options.output.columns ?? 80) - 1) : undefined;
    this.markdown = new MarkdownRenderer(this.style, this.write, this.liveWidth);
    this.reasoning = new ReasoningView(options.reasoning ?? "collapse", this.style, this.write, this.spinner);
    this.splitter = this.newSplitter();
  }

  /** Stops the spinner, e.g. before an error message. */
  pause(): void {
    this.spinner.stop();
  }

  /**
   * Before a permission question: the reply so far is drawn whole (questions come only after a
   * reply has streamed) and the results waiting for it are shown, so the command's text is
   * never drawn after the question about it.
   */
  beforeQuestion(): void {
    // What the split still waits on (an unclosed block's last line) is decided: the reply has ended.
    this.splitter.end();
    this.splitter = this.newSplitter();
    this.reasoning.end();
    this.spinner.stop();
    this.markdown.end();
    this.flushResults();
  }

  onAgentEvent(event: AgentEvent): void {
    const style = this.style;
    switch (event.type) {
      case "model-started":
        if (this.replyShown) this.write("\n");
        this.replyShown = true;
        this.markdown = new MarkdownRenderer(style, this.write, this.liveWidth);
        this.reasoning.started();
        this.splitter = this.newSplitter();
        this.spinner.start("Thinking…");
        break;
      case "first-token":
        this.spinner.stop();
        break;
      case "reasoning-delta":
        this.reasoning.push(event.text);
        break;
      case "text-delta":
        this.splitter.push(event.text);
        break;
      case "reply-finished":
        this.splitter.end();
        this.reasoning.end();
        this.spinner.stop();
        this.markdown.end();
        this.flushResults();
        break;
      case "retry":
        this.spinner.stop();
        this.write(`${style.dim(`↻ ${event.reason}; trying again in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt})`)}\n`);
        this.spinner.start("Waiting for the model…");
        break;
      case "notice":
        this.spinner.stop();
        this.write(`${event.level === "error" ? style.red("✗") : event.level === "warning" ? style.yellow("!") : style.dim("·")} ${event.message}\n`);
        break;
      case "summarized":
        this.write(`${style.dim(`· Older turns (${event.replacedMessages} messages) were summarised to stay inside the context window.`)}\n`);
        break;
      case "prompt-finished":
        this.reasoning.promptFinished();
        this.replyShown = false;
        this.spinner.stop();
        if (event.message && event.reason !== "done") {
          this.write(`${event.reason === "cancelled" ? style.yellow(event.message) : style.red(event.message)}\n`);
        }
        break;
      case "check-finished":
        this.spinner.stop();
        this.write(`${event.ok ? style.green("✓") : style.red("✗")} ${event.summary}\n`);
        break;
      case "usage":
        break;
    }
  }

  onManagerEvent(event: ManagerEvent): void {
    if (event.type === "files-changing") return;
    if (event.type === "command-output") {
      this.spinner.output(event.text);
      return;
    }
    if (event.type === "command-started") {
      if (this.markdown.atLineStart) this.spinner.start(event.description);
      return;
    }
    this.spinner.stop();
    this.pendingResults.push(formatResultLine(event.result, this.style));
    if (event.result.display?.length) this.pendingResults.push(formatOutputPreview(event.result.display.join("\n"), this.style, 30));
    if (this.markdown.atLineStart) this.flushResults();
  }

  private newSplitter(): ReasoningSplitter {
    return new ReasoningSplitter({
      text: (text) => {
        this.reasoning.end();
        this.spinner.stop();
        this.markdown.push(text);
        if (this.markdown.atLineStart) this.flushResults();
      },
      reasoning: (text) => {
        // A block in the middle of the reply gets lines of its own; hidden, it leaves the text as it runs.
        if (this.reasoning.mode === "hide") this.markdown.dropBlankLine();
        else {
          this.markdown.breakLine();
          this.flushResults();
        }
        this.reasoning.push(text);
      },
      reasoningEnded: () => this.reasoning.end(),
    });
  }

  /** Result lines wait for the reply's current line to end, so they never split it. */
  private flushResults(): void {
    for (const line of this.pendingResults.splice(0)) this.write(`${line}\n`);
  }
}
