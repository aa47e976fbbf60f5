/**
 * Outputs past the limit the model reads: they are cut, and the whole text is kept in a file under
 * the outputs folder (`.clio/outputs` by default) that the model can read in pieces. Only the
 * newest KEPT_OUTPUTS files stay.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { ProtocolEnvironment } from "../../protocols/contract/protocol.js";
import { makeFolder } from "../../tools/clio-folder.js";
import type { CommandResult } from "./result.js";

/** Whole outputs kept beside the cut ones; older ones are removed as new ones come. */
export const KEPT_OUTPUTS = 100;
const KEPT_OUTPUT_NAME = /^(\d{4}-\d{2}-\d{2}T[\d-]+Z)-(\d+)\.txt$/;
const DEFAULT_OUTPUT_LIMIT = 20_000;
const DEFAULT_OUTPUT_FOLDER = ".clio/outputs";

/** How much output the model reads per command, and where whole outputs are kept. */
export interface OutputKeeperSettings {
  environment: ProtocolEnvironment;
  /** Characters per command before the output is cut (default 20,000). */
  outputLimit?: number;
  /** Relative to the workspace (default `.clio/outputs`). */
  outputFolder?: string;
}

/** Cuts outputs past the limit and keeps their whole text where the model can read it. */
export class OutputKeeper {
  constructor(private readonly settings: OutputKeeperSettings) {}

  private get folder(): string {
    return this.settings.outputFolder ?? DEFAULT_OUTPUT_FOLDER;
  }

  /** True when `limit` would change the result: its output is past the limit, or the action shortened a longer whole. */
  needsLimit(result: CommandResult, whole?: string): boolean {
    return result.output.length > (this.settings.outputLimit ?? DEFAULT_OUTPUT_LIMIT) || (whole !== undefined && whole.length > result.output.length);
  }

  /**
   * Cuts an output past the limit; the whole text (or the `whole` the action shortened itself)
   * is kept in a file the model can read in pieces.
   */
  async limit(result: CommandResult, whole?: string): Promise<CommandResult> {
    const limit = this.settings.outputLimit ?? DEFAULT_OUTPUT_LIMIT;
    if (result.output.length <= limit) {
      if (whole === undefined || whole.length <= result.output.length) return result;
      const kept = await this.keepWhole(result.id, whole);
      if (kept) result.fullOutputPath = kept;
      result.output = `${result.output}\n${this.shortenedNote(whole.length, kept)}`;
      result.truncated = true;
      return result;
    }
    const text = whole !== undefined && whole.length > result.output.length ? whole : result.output;
    const kept = await this.keepWhole(result.id, text);
    if (kept) result.fullOutputPath = kept;
    const cut = `[output cut at ${limit.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters;`;
    const note = kept
      ? `${cut} the whole output is in ${kept} — read it in pieces with a line offset and limit]`
      : `${cut} the rest could not be kept in ${this.folder} — ask for a smaller part (a line range, a narrower search)]`;
    // Never cut between the two halves of a surrogate pair (an emoji): a lone half is not valid text.
    const end = /[\uD800-\uDBFF]/.test(result.output[limit - 1] ?? "") ? limit - 1 : limit;
    result.output = `${result.output.slice(0, end)}\n${note}`;
    result.truncated = true;
    return result;
  }

  /** Keeps the whole output an action's error shortened, and says where under the error's message. */
  async keepForError(result: CommandResult, whole: string): Promise<void> {
    if (!result.error) return;
    const kept = await this.keepWhole(result.id, whole);
    if (kept) result.fullOutputPath = kept;
    result.error = { ...result.error, message: `${result.error.message}\n${this.shortenedNote(whole.length, kept)}` };
  }

  /** Keeps a whole output under the outputs folder; its workspace-relative path, or undefined when it cannot be kept. */
  private async keepWhole(id: number, text: string): Promise<string | undefined> {
    const { environment } = this.settings;
    const name = `${new Date(environment.now()).toISOString().replace(/[:.]/g, "-")}-${id}.txt`;
    const relative = path.posix.join(this.folder, name);
    try {
      if (!environment.workspace.mayKeepState()) throw new Error("plan mode writes nothing in the workspace");
      // Kept only where the folder really lies inside the workspace (.clio may be a symlink):
      // resolving throws for a path that leads outside.
      const { real } = await environment.workspace.resolve(relative);
      await makeFolder(path.dirname(real));
      await fs.writeFile(real, text, { flag: "wx" });
      await pruneKeptOutputs(path.dirname(real), path.basename(real));
      return relative;
    } catch {
      return undefined;
    }
  }

  /** The note under an output the action shortened in the middle. */
  private shortenedNote(length: number, kept: string | undefined): string {
    return kept
      ? `[the output above is shortened; the whole output (${length.toLocaleString("en-US")} characters) is in ${kept} — read it with FILE_OP action=read and a line offset and limit]`
      : `[the output above is shortened; the whole output could not be kept in ${this.folder}]`;
  }
}

/**
 * Removes all but the newest KEPT_OUTPUTS whole outputs, ordered by the time and result id in
 * their names; the one just written (`keep`) always stays, even if the clock went back.
 */
async function pruneKeptOutputs(folder: string, keep: string): Promise<void> {
  try {
    const kept = (await fs.readdir(folder))
      .map((name) => ({ name, match: KEPT_OUTPUT_NAME.exec(name) }))
      .filter((entry): entry is { name: string; match: RegExpExecArray } => entry.match !== null && entry.name !== keep)
      .sort((left, right) => left.match[1]!.localeCompare(right.match[1]!) || Number(left.match[2]) - Number(right.match[2]));
    const excess = kept.length + 1 - KEPT_OUTPUTS;
    await Promise.all(kept.slice(0, Math.max(0, excess)).map(({ name }) => fs.rm(path.join(folder, name), { force: true })));
  } catch {
    // Pruning is housekeeping: a folder that cannot be listed keeps its files.
  }
}
