/**
 * Workspace confinement: every path a protocol touches resolves against the workspace root,
 * and nothing — `..`, absolute paths, `~`, NUL bytes, symlinks whose real target is outside —
 * escapes it. Writes never reach git's internals (`.git` at any depth) or clio's own state
 * (`.clio` at any depth: a nested project's config is config too), not even through a symlink.
 */
import { promises as fs, realpathSync, statSync, type Stats } from "node:fs";
import path from "node:path";
import { ToolError } from "./errors.js";
import { KnownFolders } from "./known-folders.js";
import { checkPathSpelling, joinedUnderRoot, withinPathLimit } from "./path-spelling.js";

export type PathIntent = "read" | "write";

/**
 * A path that passed the workspace's checks: made only by `Workspace.resolve`, and handed back to
 * it (or to the file tools) instead of the text, so the I/O uses what was checked and nothing
 * resolves the text a second time.
 */
export interface ResolvedPath {
  /** The path as it was written. */
  readonly input: string;
  /** Absolute path inside the workspace (symlinks in it not expanded). */
  readonly absolute: string;
  /** Path relative to the root, with `/` separators; `.` for the root itself. */
  readonly relative: string;
  /**
   * Where the path really leads at the moment of the check: the real path of its deepest
   * existing ancestor (symlinks expanded) with the not-yet-existing rest appended.
   * Always inside the root. I/O opens this path and then confirms (`confirmOpened`) that what it
   * opened is still here.
   */
  readonly real: string;
}

/**
 * The paths of one command as the manager resolved them for its permission check, keyed by the
 * text as written: a path that passed, or the error its check gave. Tools use these instead of
 * resolving the text again.
 */
export type CheckedPaths = ReadonlyMap<string, ResolvedPath | Error>;

/**
 * Where Linux shows what an open descriptor refers to: a link to its real path, and for a folder
 * a path through which names are looked up in that very folder, never by its path again.
 */
export function descriptorPath(descriptor: number): string {
  return `/proc/self/fd/${descriptor}`;
}

export interface WorkspaceOptions {
  /**
   * Folder names (at any depth) that FILE_OP never writes: git internals and clio's own state.
   */
  protectedNames?: string[];
  /**
   * Paths (workspace-relative, `/`-separated) the person's deny rules keep from being read. Every
   * way of reading that lists or shows many files at once (searches, listings, the code index,
   * diffs) leaves them out; see `isHidden`.
   */
  hidden?: (relative: string) => boolean;
  /**
   * False while clio must not write anything in the workspace, not even its own state in
   * `.clio` (plan mode): see `mayKeepState`. Default: always true.
   */
  mayKeepState?: () => boolean;
}

const DEFAULT_PROTECTED = [".git", ".clio"];
/** An empty, `.` or `..` segment, or a trailing `/`: a path that is not in normal form. */
const ODD_SEGMENT = /\/(\.{0,2})(\/|$)/;
const MAX_LINK_HOPS = 64;

/**
 * A `ResolvedPath` as a workspace makes it: frozen, and marked (out of sight, in a private field)
 * with the workspace that resolved it, so that workspace may take it back without resolving it
 * again. A mark per path, not a set of them: no table to add each resolution to.
 */
class Resolution implements ResolvedPath {
  readonly #workspace: Workspace;

  constructor(
    workspace: Workspace,
    readonly input: string,
    readonly absolute: string,
    readonly relative: string,
    readonly real: string,
  ) {
    this.#workspace = workspace;
    Object.freeze(this);
  }

  /** True when `workspace` resolved `path`. */
  static madeBy(path: ResolvedPath, workspace: Workspace): boolean {
    return #workspace in path && path.#workspace === workspace;
  }
}

export class Workspace {
  private constructor(
    /** The real path of the root (symlinks expanded). */
    readonly root: string,
    private readonly protectedNames: string[],
    /** The root as it was given (before symlinks were expanded), so absolute inputs using it work. */
    private readonly givenRoot: string,
    private readonly hidden?: (relative: string) => boolean,
    private readonly keepsState?: () => boolean,
  ) {}

  /** Folders already resolved in the current run of reads (see known-folders.ts). */
  private readonly known = new KnownFolders();
  /** `contains`, made once for the remembered folders to ask (not a new closure per resolution). */
  private readonly containsReal = (real: string): boolean => this.contains(real);

  /** A run of read-only commands began: folders resolved from now on are remembered until it ends. */
  readRunStarted(): void {
    this.known.runStarted();
  }

  /** A run of read-only commands ended: the folders it resolved are forgotten when no other run is on. */
  readRunEnded(): void {
    this.known.runEnded();
  }

  /** Something is about to change (or has changed) the workspace: every remembered folder is forgotten. */
  stateChanging(): void {
    this.known.forget();
  }

  /** True when clio may write its own state (`.clio/index`, kept outputs) in the workspace now. */
  mayKeepState(): boolean {
    return this.keepsState?.() ?? true;
  }

  /** False when no path can be hidden (no deny rule reads paths): callers that ask of every file may skip asking. */
  get hidesAny(): boolean {
    return this.hidden !== undefined;
  }

  /** True when a deny rule keeps this workspace-relative path (a file, or a folder with or without `/`) from being read. */
  isHidden(relative: string): boolean {
    if (this.hidden === undefined) return false;
    const bare = relative.endsWith("/") ? relative.replace(/\/+$/, "") : relative;
    return bare !== "" && bare !== "." && this.hidden(bare);
  }

  /** Opens a workspace at `root`, which must be an existing directory. */
  static async open(root: string, options: WorkspaceOptions = {}): Promise<Workspace> {
    const given = path.resolve(root);
    // Blocking calls: the workspace opens once, as a command starts, and two asynchronous ones were two round trips to the thread pool.
    let real: string;
    try {
      real = realpathSync.native(given);
    } catch {
      throw new ToolError("not_found", `Workspace folder ${root} does not exist.`, "Pass an existing folder with --workspace DIR.");
    }
    if (!statSync(real).isDirectory()) {
      throw new ToolError("not_a_directory", `Workspace ${root} is not a folder.`, "Pass a folder with --workspace DIR.");
    }
    const protectedNames = (options.protectedNames ?? DEFAULT_PROTECTED).map((name) => name.toLowerCase());
    return new Workspace(real, protectedNames, given, options.hidden, options.mayKeepState);
  }

  /**
   * Resolves `input` (relative to the root, or absolute inside it) for reading or writing.
   * Throws `invalid_argument` for empty paths, NUL bytes and (for writes) `\`, `outside_workspace`
   * for any escape and `protected_path` for writes to git or clio internals (judged on the lexical path and
   * on where symlinks really lead). The real path is checked at call time: call this right
   * before the operation. A path this workspace resolved before is not resolved again: only the
   * intent's checks are applied to it; nor is a text that `checked` holds (the command's paths as
   * its permission check resolved them): its resolution is used, or the error that check gave.
   */
  async resolve(input: string | ResolvedPath, intent: PathIntent = "read", checked?: CheckedPaths): Promise<ResolvedPath> {
    return this.resolveKnown(input, intent, checked) ?? this.resolveTextAtOnce(input as string, intent, false);
  }

  /**
   * What `resolve` gives without touching the file system, when it can: a path this workspace
   * resolved before, or a text `checked` holds (whose error is thrown); undefined for a text that
   * must be resolved afresh (`resolve`). Throws as `resolve` rejects.
   */
  resolveKnown(input: string | ResolvedPath, intent: PathIntent = "read", checked?: CheckedPaths): ResolvedPath | undefined {
    const known = typeof input === "string" ? checked?.get(input) : input;
    if (known instanceof Error) {
      // The spelling's own faults come first, as a fresh resolution reports them.
      this.resolveLexically(input as string, intent);
      throw known;
    }
    return known === undefined ? undefined : this.forIntent(known, intent);
  }

  /**
   * A command's path as its permission check resolves it for reading, to be handed to its tools:
   * during a run of reads it may come from a remembered folder without a walk (known-folders.ts),
   * which is safe only because the file tools open what it names with `O_NOFOLLOW` and confirm the
   * descriptor. Everything else that opens a resolved path as it is uses `resolve`.
   */
  async resolveCommandPath(input: string): Promise<ResolvedPath> {
    return this.resolveCommandPathAtOnce(input);
  }

  /**
   * `resolveCommandPath`, whose resolution comes at once (not as a promise) when a remembered
   * folder or one `realpath` call answers; a refusal is then thrown. A path that does not exist
   * yet, or leads through a dangling link, is walked and comes as a promise.
   */
  resolveCommandPathAtOnce(input: string): ResolvedPath | Promise<ResolvedPath> {
    return this.resolveTextAtOnce(input, "read", true);
  }

  /** Resolves the text `input`: at once when its real location is known without a walk, else as a promise; refusals thrown. */
  private resolveTextAtOnce(input: string, intent: PathIntent, mayRemember: boolean): ResolvedPath | Promise<ResolvedPath> {
    const { absolute, relative } = this.resolveLexically(input, intent);
    const real = this.realLocationAtOnce(input, absolute, mayRemember);
    if (real !== undefined) return this.resolvedAs(input, intent, absolute, relative, real);
    return this.walkToReal(input, absolute).then((walked) => this.resolvedAs(input, intent, absolute, relative, walked));
  }

  /** Records a resolution as this workspace's (see `ResolvedPath`), after the write checks of where it really leads. */
  private resolvedAs(input: string, intent: PathIntent, absolute: string, relative: string, real: string): ResolvedPath {
    if (intent === "write") this.refuseProtected(input, this.relativeOf(real));
    return new Resolution(this, input, absolute, relative, real);
  }

  /**
   * The checks of `resolve` that need no file system: the spelling, confinement as written, and
   * (for writes) `\` and protected names. Throws as `resolve` does.
   */
  resolveLexically(input: string, intent: PathIntent = "read"): { absolute: string; relative: string } {
    if (intent === "write" && input.includes("\\")) {
      // On Linux `\` is part of a name: `src\main.ts` would create one odd file at the root.
      throw new ToolError("invalid_argument", `The path ${input} contains \\, which is not a folder separator here.`, 'Separate folders with /, e.g. path="src/main.ts".');
    }
    const { absolute, normal } = this.lexicalResolve(input);
    // A path written in normal relative form is its own root-relative form.
    const relative = normal ? input : this.relativeOf(absolute);
    if (intent === "write") this.refuseProtected(input, relative);
    return { absolute, relative };
  }

  /**
   * Confirms that an open descriptor refers to the checked path `real`: a folder or link on the
   * way swapped after the check (to lead outside, or elsewhere inside) makes it refer to
   * something else. Throws then. True when confirmed; false where the system cannot say what a
   * descriptor refers to (no /proc): then the check at open (O_NOFOLLOW on a path with no links)
   * is all there is.
   */
  confirmOpened(descriptor: number, real: string, relative: string, readLink: (path: string) => string): boolean {
    let opened: string;
    try {
      opened = readLink(descriptorPath(descriptor));
    } catch {
      return false;
    }
    if (opened === real) return true;
    this.known.forget();
    if (!this.contains(opened)) {
      throw new ToolError(
        "outside_workspace",
        `${relative} changed while it was being used: a folder or link on its way was replaced and now leads to ${opened}, outside the workspace ${this.root}. Nothing was read or written there.`,
        "Only paths whose real location is inside the workspace can be used.",
      );
    }
    throw new ToolError(
      "stale_file",
      `${relative} changed while it was being used: a folder or link on its way was replaced and now leads to ${this.relativeOf(opened)}. Nothing was read or written.`,
      "Run the command again on the path as it is now.",
    );
  }

  /**
   * `confirmOpened` for a descriptor whose stat (`fstat`) is at hand. During a run of reads, a file
   * this run already confirmed at `real` needs no second look through `/proc/self/fd` when the
   * stat shows the very same file, unchanged (device, inode, birth time, change time, size): a
   * folder or link swapped on the way since would have led the open to another file, and that one
   * is confirmed in full. Each file a run reads is thus looked up under /proc once, not per read.
   */
  confirmOpenedFile(descriptor: number, real: string, relative: string, stat: Stats, readLink: (path: string) => string): boolean {
    if (this.known.confirmedBefore(real, stat)) return true;
    const confirmed = this.confirmOpened(descriptor, real, relative, readLink);
    if (confirmed && stat.isFile()) this.known.noteConfirmed(real, stat);
    return confirmed;
  }

  /** A path this workspace resolved, with `intent`'s checks applied (no file-system access). */
  private forIntent(resolved: ResolvedPath, intent: PathIntent): ResolvedPath {
    if (!Resolution.madeBy(resolved, this)) {
      throw new ToolError("internal_error", `${resolved.input} was not resolved by this workspace.`, "Pass the path as text, or as this workspace resolved it.");
    }
    if (intent === "write") {
      this.resolveLexically(resolved.input, intent);
      this.refuseProtected(resolved.input, this.relativeOf(resolved.real));
    }
    return resolved;
  }

  /** The root-relative form of an absolute path inside the workspace. */
  relativeOf(absolute: string): string {
    const relative = path.relative(this.root, absolute);
    return relative === "" ? "." : relative.split(path.sep).join("/");
  }

  /** True if `absolute` is the root or below it (lexically). */
  contains(absolute: string): boolean {
    // A normal absolute path (every path the workspace makes) needs only a prefix test.
    if (path.isAbsolute(absolute) && !ODD_SEGMENT.test(absolute)) {
      return absolute === this.root || absolute.startsWith(this.root === path.sep ? this.root : `${this.root}${path.sep}`);
    }
    const relative = path.relative(this.root, absolute);
    if (relative === "") return true;
    if (path.isAbsolute(relative)) return false;
    return relative !== ".." && !relative.startsWith(`..${path.sep}`);
  }

  /** True if a root-relative path lies in git's internals or clio's state (never written by file commands). */
  isProtected(relative: string): boolean {
    return relative.split("/").some((segment) => this.protectedNames.includes(segment.toLowerCase()));
  }

  private refuseProtected(input: string, relative: string): void {
    if (!this.isProtected(relative)) return;
    const segments = relative.toLowerCase().split("/");
    const what = segments.includes(".git") ? "git's internals" : "clio's own state";
    throw new ToolError(
      "protected_path",
      `${input} is inside ${what} (${relative}) and is never written by file commands.`,
      "Use GIT commands for version control; clio manages its own .clio folder.",
    );
  }

  /** The absolute path `input` names, after the spelling checks; `normal` when `input` is a relative path in normal form. */
  private lexicalResolve(input: string): { absolute: string; normal: boolean } {
    checkPathSpelling(input, this.root);
    const underRoot = joinedUnderRoot(this.root, input);
    if (underRoot !== undefined) return { absolute: withinPathLimit(input, underRoot), normal: true };
    let absolute = path.resolve(this.root, input);
    if (path.isAbsolute(input) && !this.contains(absolute) && this.givenRoot !== this.root) {
      const underGiven = path.relative(this.givenRoot, absolute);
      if (underGiven === "" || (!path.isAbsolute(underGiven) && underGiven !== ".." && !underGiven.startsWith(`..${path.sep}`))) {
        absolute = path.join(this.root, underGiven);
      }
    }
    if (!this.contains(absolute)) {
      throw new ToolError("outside_workspace", `${input} is outside the workspace ${this.root}.`, "Use a path relative to the workspace root, without `..` that leaves it.");
    }
    return { absolute: withinPathLimit(input, absolute), normal: false };
  }

  /**
   * The real location of `absolute` when it is known at once: from a remembered folder, or for an
   * existing path from one `realpath` call; undefined when it must be walked (`walkToReal`).
   * Throws if it is outside.
   */
  private realLocationAtOnce(input: string, absolute: string, mayRemember: boolean): string | undefined {
    // A folder met in this run of reads: no walk (the open that follows confirms where it lands).
    const known = mayRemember ? this.known.realOf(absolute, input, this.containsReal) : undefined;
    if (known !== undefined) return known;
    // An existing path: one realpath call resolves every link on the way (synchronous: here one
    // such call costs a fraction of the promise one, and commands resolve paths all the time).
    try {
      return this.checked(input, realpathSync.native(absolute));
    } catch (error) {
      if (ToolError.isInstance(error)) throw error;
      return undefined;
    }
  }

  /**
   * Walks up to the deepest existing ancestor, following symlinks (dangling ones too) to
   * where they point, and returns the real location of `absolute`. Throws if it is outside.
   */
  private async walkToReal(input: string, absolute: string): Promise<string> {
    let current = absolute;
    const rest: string[] = [];
    for (let hops = 0; hops < MAX_LINK_HOPS; ) {
      let stat;
      try {
        stat = await fs.lstat(current);
      } catch {
        const parent = path.dirname(current);
        if (parent === current) return this.checked(input, path.join(current, ...rest));
        rest.unshift(path.basename(current));
        current = parent;
        continue;
      }
      if (!stat.isSymbolicLink()) return this.checked(input, path.join(await fs.realpath(current), ...rest));
      hops++;
      const directory = await fs.realpath(path.dirname(current));
      const target = path.resolve(directory, await fs.readlink(current));
      let real: string;
      try {
        real = await fs.realpath(target);
      } catch {
        // Dangling (or a loop): judge where it points, then keep walking from there.
        if (!this.contains(target)) throw this.symlinkEscape(input, target);
        current = target;
        continue;
      }
      return this.checked(input, path.join(real, ...rest));
    }
    throw new ToolError("outside_workspace", `${input} goes through too many symbolic links.`, "Use a path without a symlink loop.");
  }

  private checked(input: string, real: string): string {
    if (!this.contains(real)) throw this.symlinkEscape(input, real);
    return real;
  }

  private symlinkEscape(input: string, target: string): ToolError {
    return new ToolError(
      "outside_workspace",
      `${input} leads through a symbolic link to ${target}, which is outside the workspace ${this.root}.`,
      "Only paths whose real location is inside the workspace can be used.",
    );
  }
}
