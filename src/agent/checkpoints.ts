/**
 * Undo for every change clio makes to files: per prompt, the text each file had before and after
 * clio changed it, stored beside the session (`<id>.checkpoints/`), so `/undo` and `/rewind`
 * work after a resume too. A file changed since clio wrote it is left alone, and said so.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { PermissionClass, PlannedChange } from "../../protocols/contract/protocol.js";
import { writeAtomically } from "../../tools/atomic-file.js";
import type { Workspace } from "../../tools/workspace.js";
import type { ManagerEvent } from "../manager/manager.js";
import { snapshotChanges, WorkspaceSnapshots } from "./workspace-snapshot.js";

/** One file in a checkpoint: blob names of its text before and after (null: absent). */
export interface CheckpointFile {
  path: string;
  before: string | null;
  after: string | null;
  /** Set when the text could not be kept (binary, too large): this file cannot be restored. */
  unknown?: string;
}

export interface Checkpoint {
  /** What started it: the person's prompt, or a command they typed. */
  label: string;
  at: string;
  files: CheckpointFile[];
}

/** What undoing did, file by file, in words for the person. */
export interface UndoReport {
  restored: string[];
  skipped: { path: string; reason: string }[];
  checkpoints: number;
}

export class Checkpoints {
  private list: Checkpoint[] = [];
  private readonly pending = new Map<number, PlannedChange[]>();
  private saving: Promise<void> = Promise.resolve();
  /** Set when the stored index could not be read; said once to the person. */
  problem: string | undefined;
  private readonly snapshots: WorkspaceSnapshots;

  private constructor(
    private readonly folder: string,
    private readonly workspace: Workspace,
  ) {
    this.snapshots = new WorkspaceSnapshots(workspace.root, [path.dirname(folder)]);
  }

  /** The checkpoints kept beside `sessionFile`; an unreadable index is moved aside and named. */
  static async open(sessionFile: string, workspace: Workspace): Promise<Checkpoints> {
    const checkpoints = new Checkpoints(`${sessionFile.replace(/\.jsonl?$/, "")}.checkpoints`, workspace);
    await checkpoints.load();
    return checkpoints;
  }

  /** Oldest first. */
  get all(): readonly Checkpoint[] {
    return this.list;
  }

  /** Starts the checkpoint of a prompt; it is kept only if something changes. */
  begin(label: string): void {
    const last = this.list.at(-1);
    if (last && last.files.length === 0) this.list.pop();
    this.list.push({ label: label.slice(0, 200), at: new Date().toISOString(), files: [] });
  }

  /** Follows the manager: a change is kept once its command finished well. */
  observe(event: ManagerEvent): void {
    if (event.type === "files-changing") this.pending.set(event.id, event.changes);
    if (event.type !== "command-finished") return;
    const changes = this.pending.get(event.id);
    this.pending.delete(event.id);
    if (changes && event.result.ok) {
      this.saving = this.saving.then(() => this.keep(changes)).catch((error: Error) => this.failedToKeep(error));
    }
  }

  /**
   * Before an action runs: one that may change any file unannounced (the exec class — EXEC,
   * shell protocols, checks) is watched; the others say what they change (files-changing).
   */
  watchRun(permissionClass: PermissionClass): Promise<(() => Promise<void>) | undefined> {
    return permissionClass === "exec" ? this.watch() : Promise.resolve(undefined);
  }

  /**
   * Watches a command that may change any file (a shell command): the workspace is looked at
   * now and when the returned function is called, and what differs is kept in the current
   * checkpoint like a planned change.
   */
  async watch(): Promise<() => Promise<void>> {
    await this.flush();
    const before = await this.snapshots.take();
    return async () => {
      const after = await this.snapshots.take();
      const changes = snapshotChanges(before, after);
      if (changes.length) this.saving = this.saving.then(() => this.keep(changes)).catch((error: Error) => this.failedToKeep(error));
      await this.saving;
    };
  }

  /** Waits until every kept change is on disk. */
  flush(): Promise<void> {
    return this.saving;
  }

  /** Undoes the last `count` checkpoints that changed files, newest first. */
  async undo(count = 1): Promise<UndoReport> {
    await this.flush();
    const undone: Checkpoint[] = [];
    while (undone.length < count && this.list.length) {
      const checkpoint = this.list.pop()!;
      if (checkpoint.files.length) undone.push(checkpoint);
    }
    const report: UndoReport = { restored: [], skipped: [], checkpoints: undone.length };
    // The newest checkpoint's "after" is what the file should hold now; the oldest "before" is what it goes back to.
    const files = new Map<string, { before: string | null; after: string | null; unknown?: string }>();
    for (const checkpoint of undone) {
      for (const file of checkpoint.files) {
        const known = files.get(file.path);
        files.set(file.path, {
          before: file.before,
          after: known ? known.after : file.after,
          ...((file.unknown ?? known?.unknown) ? { unknown: file.unknown ?? known?.unknown } : {}),
        });
      }
    }
    for (const [relative, file] of files) await this.restore(relative, file, report);
    await this.save();
    return report;
  }

  /** What this session changed: each file's text before clio first touched it and now. */
  async changes(): Promise<PlannedChange[]> {
    await this.flush();
    const first = new Map<string, CheckpointFile>();
    for (const checkpoint of this.list) for (const file of checkpoint.files) if (!first.has(file.path)) first.set(file.path, file);
    const changes: PlannedChange[] = [];
    for (const [relative, file] of first) {
      if (file.unknown) {
        changes.push({ path: relative, before: null, after: null, unknown: file.unknown });
        continue;
      }
      const before = await this.blob(file.before);
      const now = await this.current(relative);
      if (before !== now) changes.push({ path: relative, before, after: now });
    }
    return changes;
  }

  private async restore(relative: string, file: { before: string | null; after: string | null; unknown?: string }, report: UndoReport): Promise<void> {
    if (file.unknown) return void report.skipped.push({ path: relative, reason: `its content was not kept (${file.unknown})` });
    let expected: string | null;
    let before: string | null;
    try {
      [expected, before] = [await this.blob(file.after), await this.blob(file.before)];
    } catch {
      return void report.skipped.push({ path: relative, reason: "its checkpoint is missing or damaged" });
    }
    const now = await this.current(relative);
    if (now !== expected) {
      const what = now === null ? "was deleted" : expected === null ? "was created" : "was changed";
      return void report.skipped.push({ path: relative, reason: `${what} since clio changed it; left as it is` });
    }
    try {
      const { real } = await this.workspace.resolve(relative, "write");
      if (before === null) await fs.rm(real, { force: true });
      else {
        await fs.mkdir(path.dirname(real), { recursive: true });
        await writeAtomically(real, before);
      }
      report.restored.push(relative);
    } catch (error) {
      report.skipped.push({ path: relative, reason: `could not be restored: ${(error as Error).message}` });
    }
  }

  private failedToKeep(error: Error): void {
    this.problem = `A change could not be kept for undo (${error.message}); /undo may not restore it.`;
  }

  private async keep(changes: PlannedChange[]): Promise<void> {
    const files: CheckpointFile[] = [];
    for (const change of changes) {
      files.push(
        change.unknown
          ? { path: change.path, before: null, after: null, unknown: change.unknown }
          : { path: change.path, before: await this.store(change.before), after: await this.store(change.after) },
      );
    }
    await this.record(files);
  }

  /** Adds files to the current checkpoint; a file already in it keeps its first "before". */
  private async record(files: readonly CheckpointFile[]): Promise<void> {
    const checkpoint = this.list.at(-1) ?? (this.begin("(no prompt)"), this.list.at(-1)!);
    for (const stored of files) {
      const earlier = checkpoint.files.find((file) => file.path === stored.path);
      if (earlier) {
        earlier.after = stored.after;
        if (stored.unknown) earlier.unknown = stored.unknown;
      } else checkpoint.files.push(stored);
    }
    await this.save();
  }

  private async store(text: string | null): Promise<string | null> {
    if (text === null) return null;
    const name = createHash("sha256").update(text).digest("hex");
    const file = path.join(this.folder, "blobs", name);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, text, { flag: "wx" }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
    return name;
  }

  private async blob(name: string | null): Promise<string | null> {
    if (name === null) return null;
    if (!/^[0-9a-f]{64}$/.test(name)) throw new Error(`bad blob name ${name}`);
    return fs.readFile(path.join(this.folder, "blobs", name), "utf8");
  }

  private async current(relative: string): Promise<string | null> {
    try {
      const { real } = await this.workspace.resolve(relative, "read");
      return await fs.readFile(real, "utf8");
    } catch {
      return null;
    }
  }

  private async load(): Promise<void> {
    const index = path.join(this.folder, "index.json");
    let text: string;
    try {
      text = await fs.readFile(index, "utf8");
    } catch {
      return;
    }
    try {
      const parsed = JSON.parse(text) as { checkpoints?: unknown };
      if (!Array.isArray(parsed.checkpoints) || !parsed.checkpoints.every(isCheckpoint)) throw new Error("not a list of checkpoints");
      this.list = parsed.checkpoints;
    } catch (error) {
      const aside = `${index}.corrupt-${Date.now()}`;
      await fs.rename(index, aside).catch(() => undefined);
      this.problem = `The undo checkpoints of this session could not be read (${(error as Error).message}); they were moved aside to ${aside}. Undo starts afresh from here.`;
    }
  }

  private async save(): Promise<void> {
    const kept = this.list.filter((checkpoint) => checkpoint.files.length);
    await fs.mkdir(this.folder, { recursive: true });
    await writeAtomically(path.join(this.folder, "index.json"), `${JSON.stringify({ version: 1, checkpoints: kept }, null, 1)}\n`);
  }
}

function isCheckpoint(value: unknown): value is Checkpoint {
  const checkpoint = value as Checkpoint;
  return (
    typeof checkpoint === "object" &&
    checkpoint !== null &&
    typeof checkpoint.label === "string" &&
    Array.isArray(checkpoint.files) &&
    checkpoint.files.every(
      (file) => typeof file?.path === "string" && (file.before === null || typeof file.before === "string") && (file.after === null || typeof file.after === "string"),
    )
  );
}
