/**
 * The file tool layer: every operation FILE_OP offers, over one workspace and one file-system
 * seam. Results are data; failures are ClioErrors whose messages a model can act on.
 */
import type { CheckedPaths, ResolvedPath, Workspace } from "../workspace.js";
import { confine, confineKnown, explained, explainFailure, type FileContext } from "./context.js";
import { FileLedger } from "./freshness.js";
import { nodeFileSystem, nodeSyncReads, type FileSystem, type SyncReads } from "./file-system.js";
import type { ListResult } from "./list.js";
import { copyPath, movePath, pathInfo, removePath, type InfoResult, type RemoveResult, type TransferResult } from "./manage.js";
import { planMove, planRemove, planReplace, planWrite, type FileChangePlan } from "./plan.js";
import { readTextFile, type ReadOptions, type ReadResult, type StampedRead } from "./read.js";
import { replaceInFile, type ReplaceResult } from "./replace.js";
import type { SearchResult } from "./search.js";
import { writeTextFile, type WriteResult } from "./write.js";

export type { FileSystem, SyncReads } from "./file-system.js";
export type { ListEntry, ListResult } from "./list.js";
export type { InfoResult, RemoveResult, TransferResult } from "./manage.js";
export type { FileChangePlan } from "./plan.js";
export { FileLedger } from "./freshness.js";
export type { ReadOptions, ReadResult } from "./read.js";
export type { ReplaceResult } from "./replace.js";
export type { SearchHit, SearchResult } from "./search.js";
export type { WriteResult } from "./write.js";
export { READ_MAX_BYTES } from "./read.js";
export { formatBytes, numberLines } from "./text.js";

export class FileTools {
  private readonly context: FileContext;

  /**
   * @param fileSystem the `fs.promises` seam (tests replace single methods)
   * @param syncReads the synchronous calls that read small files whole
   * @param ledger what the model last saw of each file; writes to files changed since then fail
   * @param checked the command's paths as its permission check resolved them: the tools use
   *   these, never resolving their text again
   */
  constructor(
    workspace: Workspace,
    fileSystem: FileSystem = nodeFileSystem,
    syncReads: SyncReads = nodeSyncReads,
    private readonly ledger: FileLedger = new FileLedger(),
    checked?: CheckedPaths,
  ) {
    this.context = checked === undefined ? { workspace, fs: fileSystem, syncReads } : { workspace, fs: fileSystem, syncReads, checked };
  }

  /** A text file's lines (windowed by `offset`/`limit`, capped at 256 KB); binary files are refused. */
  async read(path: string, options: ReadOptions = {}): Promise<ReadResult> {
    return this.readAtOnceOrLater(path, options);
  }

  /**
   * `read`, whose result comes at once (not as a promise) when the path's check already resolved
   * it and the file is small (read with synchronous calls, the same confined open); a failure is
   * then thrown. Otherwise the promise `read` gives.
   */
  readAtOnceOrLater(path: string, options: ReadOptions = {}): ReadResult | Promise<ReadResult> {
    let resolved: ResolvedPath | undefined;
    let stamped: StampedRead | Promise<StampedRead>;
    try {
      resolved = confineKnown(this.context, path, "read");
      if (resolved === undefined) return explainFailure(path, this.readSeen(path, options));
      stamped = readTextFile(this.context, resolved, options);
    } catch (error) {
      throw explained(path, error);
    }
    const known = resolved;
    if (stamped instanceof Promise)
      return explainFailure(
        path,
        stamped.then((read) => this.seen(known, read)),
      );
    return this.seen(known, stamped);
  }

  /** Reads `path`, resolved afresh, and notes it as the model now saw it. */
  private async readSeen(path: string, options: ReadOptions): Promise<ReadResult> {
    const resolved = await confine(this.context, path, "read");
    return this.seen(resolved, await readTextFile(this.context, resolved, options));
  }

  /** Notes a read file as the model now saw it (stamped from the descriptor that was read). */
  private seen(resolved: ResolvedPath, { read, stat }: StampedRead): ReadResult {
    this.ledger.rememberAs(resolved.real, stat);
    return read;
  }

  /** Writes a whole file atomically, creating folders and keeping an existing file's mode; refuses a file changed since the model saw it. */
  write(path: string, content: string): Promise<WriteResult> {
    return explainFailure(
      path,
      this.changing(path, (resolved) => writeTextFile(this.context, resolved, content)),
    );
  }

  /** Replaces the exact text `old` with `replacement`: one match, or all of them with `all`; refuses a file changed since the model saw it. */
  replace(path: string, old: string, replacement: string, all = false): Promise<ReplaceResult> {
    return explainFailure(
      path,
      this.changing(path, (resolved) => replaceInFile(this.context, resolved, old, replacement, all)),
    );
  }

  /** Runs a change of `path`, after checking that the model saw it as it is, and notes the result as seen. */
  private async changing<Value>(path: string, operation: (resolved: ResolvedPath) => Promise<Value>): Promise<Value> {
    const resolved = await confine(this.context, path, "write");
    await this.ledger.check(this.context, resolved.real, resolved.relative);
    const value = await operation(resolved);
    await this.ledger.remember(this.context, resolved.real);
    return value;
  }

  /** A folder's entries (or its tree with `recursive`), .gitignore respected, `.git` hidden. */
  list(path = ".", options: { recursive?: boolean; limit?: number } = {}): Promise<ListResult> {
    // Listing and searching stand on fast-glob and ignore: loaded when first used, not at start-up.
    return explainFailure(
      path,
      import("./list.js").then(({ listFolder }) => listFolder(this.context, path, options)),
    );
  }

  /** Files matching a glob under `folder`, and with `content` the lines matching a regular expression. */
  search(pattern: string, options: { folder?: string; content?: string } = {}): Promise<SearchResult> {
    return explainFailure(
      options.folder ?? pattern,
      import("./search.js").then(({ searchFiles }) => searchFiles(this.context, pattern, options)),
    );
  }

  /** Deletes a file, a link, or (with `recursive`) a folder. Never the root, never git's or clio's internals. */
  remove(path: string, recursive = false): Promise<RemoveResult> {
    return explainFailure(path, removePath(this.context, path, recursive));
  }

  /** Moves (renames) a path; an existing target file is replaced only with `overwrite`. */
  move(path: string, to: string, overwrite = false): Promise<TransferResult> {
    return explainFailure(path, movePath(this.context, path, to, overwrite));
  }

  /** Copies a file, or a folder with `recursive`; an existing target file is replaced only with `overwrite`. */
  copy(path: string, to: string, options: { recursive?: boolean; overwrite?: boolean } = {}): Promise<TransferResult> {
    return explainFailure(path, copyPath(this.context, path, to, options));
  }

  /** What write, replace, delete, move or copy would change, changing nothing (for previews and undo). */
  async plan(
    action: "write" | "replace" | "delete" | "move" | "copy",
    args: { path: string; content?: string; old?: string; new?: string; all?: boolean; to?: string },
  ): Promise<FileChangePlan[]> {
    const context = this.context;
    if (action === "write" || action === "replace") {
      const { real, relative } = await confine(context, args.path, "write");
      await explainFailure(args.path, this.ledger.check(context, real, relative));
    }
    const planned =
      action === "write"
        ? planWrite(context, args.path, args.content ?? "")
        : action === "replace"
          ? planReplace(context, args.path, args.old ?? "", args.new ?? "", args.all ?? false)
          : action === "delete"
            ? planRemove(context, args.path)
            : planMove(context, args.path, args.to ?? "", action === "copy");
    return explainFailure(args.path, planned);
  }

  /** Size, type, modification time, mode and (for text) line count of a path. */
  info(path: string): Promise<InfoResult> {
    return explainFailure(path, pathInfo(this.context, path));
  }
}
