/**
 * .gitignore rules (nested files too) for walks over the workspace, and a fast-glob
 * file-system adapter that applies them while walking, so ignored folders (node_modules)
 * are never entered. `.git` is always hidden.
 */
import path from "node:path";
import type { Dirent } from "node:fs";
import type fastGlob from "fast-glob";
import ignore, { type Ignore } from "ignore";
import type { FileSystem } from "./file-system.js";

type ReaddirCallback = (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void;

export class IgnoreRules {
  private readonly matchers = new Map<string, Promise<Ignore | undefined>>();

  /**
   * @param root the folder whose .gitignore files count (the workspace root)
   * @param enabled false to apply no .gitignore rules (only `.git` stays hidden)
   */
  constructor(
    private readonly root: string,
    private readonly fs: FileSystem,
    private readonly enabled = true,
  ) {}

  /** True if `absolute` (a path below the root) is ignored by a .gitignore between the root and it. */
  async isIgnored(absolute: string, isDirectory: boolean): Promise<boolean> {
    const segments = path.relative(this.root, absolute).split(path.sep);
    if (segments[segments.length - 1] === ".git") return true;
    if (!this.enabled || segments[0] === "" || segments[0] === "..") return false;
    let ignored = false;
    let directory = this.root;
    for (let depth = 0; depth < segments.length; depth++) {
      const matcher = await this.matcherFor(directory);
      if (matcher !== undefined) {
        const result = matcher.test(segments.slice(depth).join("/") + (isDirectory ? "/" : ""));
        if (result.ignored) ignored = true;
        else if (result.unignored) ignored = false;
      }
      directory = path.join(directory, segments[depth]!);
    }
    return ignored;
  }

  /** A fast-glob `fs` option whose readdir leaves out ignored entries and `.git`. */
  fastGlobAdapter(): Partial<fastGlob.FileSystemAdapter> {
    const readdir = (directory: string, ...rest: unknown[]): void => {
      const callback = rest[rest.length - 1] as ReaddirCallback;
      this.fs
        .readdir(directory, { withFileTypes: true })
        .then(async (entries) => {
          const kept = await Promise.all(
            entries.map(async (entry) => ((await this.isIgnored(path.join(directory, entry.name), entry.isDirectory())) ? undefined : entry)),
          );
          callback(null, kept.filter((entry): entry is Dirent => entry !== undefined));
        })
        .catch((error: NodeJS.ErrnoException) => callback(error, []));
    };
    return { readdir: readdir as unknown as fastGlob.FileSystemAdapter["readdir"] };
  }

  private matcherFor(directory: string): Promise<Ignore | undefined> {
    let matcher = this.matchers.get(directory);
    if (matcher === undefined) {
      matcher = this.fs.readFile(path.join(directory, ".gitignore"), "utf8").then(
        (text) => ignore().add(text),
        () => undefined,
      );
      this.matchers.set(directory, matcher);
    }
    return matcher;
  }
}
