/**
 * Reasoning as the chat shows it, whether a provider streams it beside the reply or the reply's
 * text holds it in `<think>` blocks (each block in its place): collapsed to one dimmed
 * line with its size (the default; `/reasoning` prints it whole), shown whole and dimmed as it
 * comes, or hidden. It is kept either way, so it can be shown afterwards.
 */
import type { ChalkInstance } from "chalk";
import { plural } from "../../tools/format.js";
import type { Spinner } from "./spinner.js";

export const REASONING_MODES = ["collapse", "show", "hide"] as const;
export type ReasoningMode = (typeof REASONING_MODES)[number];

/** `CLIO_REASONING`: hide, show, or collapse (the default, also for anything else). */
export function reasoningModeFrom(value: string | undefined): ReasoningMode {
  return value === "hide" || value === "show" ? value : "collapse";
}

export class ReasoningView {
  /** The reasoning of the current (or last) prompt, one entry per reply. */
  private blocks: string[] = [];
  /** The block being streamed, while it is open (it ends where reply text follows). */
  private open: string | undefined;
  /** The next reply starts a new prompt: the previous prompt's reasoning is let go. */
  private newPrompt = true;

  constructor(
    public mode: ReasoningMode,
    private readonly style: ChalkInstance,
    private readonly write: (text: string) => void,
    private readonly spinner: Spinner,
  ) {}

  /** A model call starts. */
  started(): void {
    if (this.newPrompt) this.blocks = [];
    this.newPrompt = false;
  }

  /** The prompt ended. */
  promptFinished(): void {
    this.end();
    this.newPrompt = true;
  }

  push(text: string): void {
    const first = this.open === undefined;
    this.open = (this.open ?? "") + text;
    if (this.mode === "show") {
      this.spinner.stop();
      if (first) this.write(this.style.dim("┆ thinking\n┆ "));
      this.write(this.style.dim(text.replaceAll("\n", "\n┆ ")));
    } else if (this.mode === "collapse") {
      if (first) this.spinner.start(`Thinking… ${describeSize(this.open)}`);
      else this.spinner.relabel(`Thinking… ${describeSize(this.open)}`);
    }
  }

  /** The reasoning block ends (reply text began, or the reply finished): the reply starts on a line of its own. */
  end(): void {
    const block = this.open;
    if (block === undefined) return;
    this.open = undefined;
    this.blocks.push(block);
    if (this.mode === "show") this.write("\n\n");
    if (this.mode === "collapse") {
      this.spinner.stop();
      this.write(`${this.style.dim(`┆ reasoning, ${describeSize(block)} (collapsed: /reasoning shows it)`)}\n`);
    }
  }

  /** `/reasoning`: the last prompt's reasoning, whole and dimmed. */
  showLast(): void {
    const blocks = [...this.blocks, ...(this.open === undefined ? [] : [this.open])];
    if (!blocks.length) this.write("No reasoning came with the last prompt's replies.\n");
    for (const block of blocks) this.write(`${this.style.dim(`┆ ${block.trimEnd().replaceAll("\n", "\n┆ ")}`)}\n`);
  }
}

/** "3 lines, 1,234 characters". */
function describeSize(text: string): string {
  const lines = text.trimEnd().split("\n").length;
  return `${plural(lines, "line")}, ${plural(text.length, "character")}`;
}
