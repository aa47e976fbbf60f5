/**
 * Which paths of a workspace changed lately, asked of find(1) in a child process. A file's ctime
 * moves to the current time whenever its content, size, mtime, mode or links change, and no call
 * can set it back; a folder's moves when an entry is added, removed or renamed. So a path whose
 * ctime is older than the last check (less a margin for the clock's grain) has the size and
 * mtime that check saw, and only the paths find reports need a stat here. find looks at the
 * folders a walk listed and their entries (every indexed file is one).
 *
 * The stats are find's, on another core, with no JavaScript object per path: this thread writes
 * the folders to a file, starts find and goes on (a fresh process answers its query meanwhile). GNU
 * find reads the list with `-files0-from`; any other find, a path that is gone, a message on
 * stderr or a find that takes too long makes the result undefined, and the caller stats every
 * path itself, as it would without find.
 */
import type { ChildProcess, SpawnOptions } from "node:child_process";
import { closeSync, openSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** Starts a child process (node:child_process's `spawn`, injected). */
export type SpawnProcess = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

/** How long a check waits for find before it stats every path itself. */
const FIND_WAIT_MS = 2000;

let listCount = 0;

/** A find(1) run over a check's paths: those whose ctime is after a moment. */
export class RecentChanges {
  /** Resolves to the reported paths, or undefined when find could not answer. */
  readonly reported: Promise<Set<string> | undefined>;
  /** Set (once `reported` resolves) when find cannot do this at all: not started, or `-files0-from` unknown to it. */
  unusable = false;

  private constructor(
    child: ChildProcess,
    /** When find was started (just before): what it reports is the files as they were from then on. */
    readonly startedAt: number,
  ) {
    this.reported = this.reportOf(child);
  }

  /**
   * Starts find in `root` for `listed` (root-relative folders and files, "." for the root) and
   * the folders' entries, reporting those whose ctime is after `sinceMs` by root-relative path;
   * undefined when the list cannot be written or find not started (the caller then stats every path).
   */
  static start(root: string, listed: readonly string[], sinceMs: number, spawn: SpawnProcess): RecentChanges | undefined {
    const startedAt = Date.now();
    const list = path.join(os.tmpdir(), `clio-check-${process.pid}-${listCount++}`);
    let input: number | undefined;
    try {
      // NUL ends each name: the only byte a path cannot hold. A new file only ("wx"): never one, or a link, found there.
      writeFileSync(list, `${listed.join("\0")}\0`, { mode: 0o600, flag: "wx" });
      try {
        input = openSync(list, "r");
      } finally {
        // find reads the list through the open descriptor: the name is not needed any more.
        unlinkSync(list);
      }
      const child = spawn("find", ["-L", "-files0-from", "-", "-maxdepth", "1", "-newerct", `@${(sinceMs / 1000).toFixed(3)}`, "-print0"], {
        cwd: root,
        stdio: [input, "pipe", "pipe"],
      });
      return new RecentChanges(child, startedAt);
    } catch {
      return undefined;
    } finally {
      if (input !== undefined) closeSync(input);
    }
  }

  /** The paths `child` printed, or undefined when it failed, complained or took too long. */
  private reportOf(child: ChildProcess): Promise<Set<string> | undefined> {
    return new Promise((resolve) => {
      const output: Buffer[] = [];
      const complaints: Buffer[] = [];
      const timer = setTimeout(() => {
        child.kill();
        resolve(undefined);
      }, FIND_WAIT_MS);
      timer.unref();
      child.stdout?.on("data", (chunk: Buffer) => output.push(chunk));
      child.stderr?.on("data", (chunk: Buffer) => complaints.push(chunk));
      child.on("error", () => {
        clearTimeout(timer);
        this.unusable = true;
        resolve(undefined);
      });
      child.on("close", (code) => {
        clearTimeout(timer);
        // A find that does not know the option names it in its message, in any language; a gone or unreadable path is named instead.
        if (Buffer.concat(complaints).includes("files0-from")) this.unusable = true;
        if (code !== 0 || complaints.length > 0) return resolve(undefined);
        const names = Buffer.concat(output).toString("utf8").split("\0");
        names.pop();
        // The root's entries come as "./name"; every other path as it was listed.
        resolve(new Set(names.map((name) => (name.startsWith("./") ? name.slice(2) : name))));
      });
    });
  }
}
