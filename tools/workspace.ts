/**
 * Workspace confinement: every path a protocol touches resolves against the workspace root,
 * and nothing — `..`, absolute paths, `~`, symlinks whose real target is outside — escapes it.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { ClioError } from "./errors.js";

export type PathIntent = "read" | "write";

export interface ResolvedPath {
  /** Absolute path inside the workspace (symlinks in it not expanded). */
  absolute: string;
  /** Path relative to the root, with `/` separators; `.` for the root itself. */
  relative: string;
}

export interface WorkspaceOptions {
  /**
   * Folders (relative to the root, any depth for `.git`) that FILE_OP never writes:
   * git internals and clio's own state.
   */
  protectedNames?: string[];
}

const DEFAULT_PROTECTED = [".git", ".clio"];

export class Workspace {
  private constructor(
    /** The real path of the root (symlinks expanded). */
    readonly root: string,
    private readonly protectedNames: string[],
  ) {}

  /** Opens a workspace at `root`, which must be an existing directory. */
  static async open(root: string, options: WorkspaceOptions = {}): Promise<Workspace> {
    let real: string;
    try {
      real = await fs.realpath(path.resolve(root));
    } catch {
      throw new ClioError("not_found", `Workspace folder ${root} does not exist.`, "Pass an existing folder with --workspace DIR.");
    }
    const stat = await fs.stat(real);
    if (!stat.isDirectory()) {
      throw new ClioError("not_a_directory", `Workspace ${root} is not a folder.`, "Pass a folder with --workspace DIR.");
    }
    return new Workspace(real, options.protectedNames ?? DEFAULT_PROTECTED);
  }

  /**
   * Resolves `input` (relative to the root, or absolute inside it) for reading or writing.
   * Throws `outside_workspace` for any escape and `protected_path` for writes to git or clio
   * internals. The real path of the deepest existing ancestor is checked at call time.
   */
  async resolve(input: string, intent: PathIntent = "read"): Promise<ResolvedPath> {
    const absolute = this.lexicalResolve(input);
    const relative = this.relativeOf(absolute);
    if (intent === "write" && this.isProtected(relative)) {
      throw new ClioError(
        "protected_path",
        `${input} is inside ${relative.split("/")[0] === ".git" || relative.includes("/.git") ? "git's internals" : "clio's own state"} and is never written by file commands.`,
        "Use GIT commands for version control; clio manages its own .clio folder.",
      );
    }
    await this.checkRealPath(input, absolute);
    return { absolute, relative };
  }

  /** The root-relative form of an absolute path inside the workspace. */
  relativeOf(absolute: string): string {
    const relative = path.relative(this.root, absolute);
    return relative === "" ? "." : relative.split(path.sep).join("/");
  }

  private lexicalResolve(input: string): string {
    if (input.includes("\0")) {
      throw new ClioError("invalid_argument", "The path contains a NUL byte.", "Write the path without control characters.");
    }
    if (input.trim() === "") {
      throw new ClioError("invalid_argument", "The path is empty.", 'Give a path relative to the workspace, e.g. path="src/main.ts".');
    }
    if (input.startsWith("~")) {
      throw new ClioError(
        "outside_workspace",
        `${input} refers to a home folder, which is outside the workspace ${this.root}.`,
        "Use a path relative to the workspace root.",
      );
    }
    const absolute = path.resolve(this.root, input);
    if (!this.contains(absolute)) {
      throw new ClioError(
        "outside_workspace",
        `${input} is outside the workspace ${this.root}.`,
        "Use a path relative to the workspace root, without `..` that leaves it.",
      );
    }
    return absolute;
  }

  private contains(absolute: string): boolean {
    const relative = path.relative(this.root, absolute);
    return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
  }

  private isProtected(relative: string): boolean {
    const segments = relative.split("/");
    if (segments[0] !== undefined && this.protectedNames.includes(segments[0])) return true;
    return segments.includes(".git");
  }

  /** Walks up to the deepest existing ancestor (following a final symlink, dangling or not) and checks its real path. */
  private async checkRealPath(input: string, absolute: string): Promise<void> {
    let current = absolute;
    for (let depth = 0; depth < 64; depth++) {
      let stat;
      try {
        stat = await fs.lstat(current);
      } catch {
        const parent = path.dirname(current);
        if (parent === current) return;
        current = parent;
        continue;
      }
      if (stat.isSymbolicLink()) {
        const target = path.resolve(path.dirname(current), await fs.readlink(current));
        let real: string;
        try {
          real = await fs.realpath(target);
        } catch {
          // Dangling: judge where it points, then keep walking from there.
          if (!this.contains(target)) throw this.symlinkEscape(input, target);
          current = target;
          continue;
        }
        if (!this.contains(real)) throw this.symlinkEscape(input, real);
        return;
      }
      const real = await fs.realpath(current);
      if (!this.contains(real)) throw this.symlinkEscape(input, real);
      return;
    }
    throw new ClioError("outside_workspace", `${input} goes through too many symbolic links.`, "Use a path without a symlink loop.");
  }

  private symlinkEscape(input: string, target: string): ClioError {
    return new ClioError(
      "outside_workspace",
      `${input} leads through a symbolic link to ${target}, which is outside the workspace ${this.root}.`,
      "Only paths whose real location is inside the workspace can be used.",
    );
  }
}
