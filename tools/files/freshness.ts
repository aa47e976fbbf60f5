/**
 * Stale files: what the model last saw of each file (read or written through FILE_OP), so a
 * write or replace of a file that changed on disk since — the person edited it, a formatter ran —
 * fails and asks the model to read it again instead of overwriting the change unseen.
 */
import type { Stats } from "node:fs";
import { ToolError } from "../errors.js";
import type { FileContext } from "./context.js";
import { lstatOrNothing } from "./context.js";

export class FileLedger {
  /** Real path → the file's stamp (size, modification time, inode) when the model last saw it. */
  private readonly seen = new Map<string, Stamp>();

  /** Notes the file as the model now knows it: as `stat` (taken on the file as it was read) says, or as it is now. */
  async remember(context: FileContext, real: string, stat?: Stats): Promise<void> {
    if (stat !== undefined) return this.rememberAs(real, stat);
    const stamp = await stampOf(context, real);
    if (stamp === undefined) this.seen.delete(real);
    else this.seen.set(real, stamp);
  }

  /**
   * Notes the file as `stat`, taken on the very file the model was shown, says it is. A file seen
   * before has its stamp written over (a stamp is only read here, never handed out): a new stamp
   * per read would be one more object per read that lives on in the map.
   */
  rememberAs(real: string, stat: Stats): void {
    const known = this.seen.get(real);
    if (known === undefined) this.seen.set(real, stampFrom(stat));
    else writeStamp(known, stat);
  }

  /** Throws `stale_file` when the file changed since the model last read or wrote it. */
  async check(context: FileContext, real: string, relative: string): Promise<void> {
    const known = this.seen.get(real);
    if (known === undefined) return;
    const now = await stampOf(context, real);
    if (now !== undefined && sameStamp(now, known)) return;
    // Told once that the file is gone, the model may then create it afresh.
    if (now === undefined) this.seen.delete(real);
    throw new ToolError(
      "stale_file",
      now === undefined
        ? `${relative} was deleted since you last read it.`
        : `${relative} changed on disk since you last read it (someone or something else edited it); nothing was written.`,
      ["Read it again with ", { action: "read", arguments: { path: relative } }, " and make your change on what it holds now."],
    );
  }
}

/** What tells one version of a file from another (kept as numbers: no number is written as text per read). */
interface Stamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

async function stampOf(context: FileContext, real: string): Promise<Stamp | undefined> {
  const stat = await lstatOrNothing(context, real);
  return stat === undefined ? undefined : stampFrom(stat);
}

function stampFrom(stat: Stats): Stamp {
  return writeStamp({ size: 0, mtimeMs: 0, ino: 0 }, stat);
}

/** Writes what tells this version of the file from another into `stamp`; the one place a stamp's fields are listed from a stat. */
function writeStamp(stamp: Stamp, { size, mtimeMs, ino }: Stats): Stamp {
  stamp.size = size;
  stamp.mtimeMs = mtimeMs;
  stamp.ino = ino;
  return stamp;
}

function sameStamp(left: Stamp, right: Stamp): boolean {
  return left.size === right.size && left.mtimeMs === right.mtimeMs && left.ino === right.ino;
}
