/**
 * .gitignore rules (nested files too) for walks over the workspace, and a fast-glob
 * file-system adapter that applies them while walking, so ignored folders (node_modules)
 * are never entered. `.git` (anywhere) and `.clio` (at the root) are always hidden.
 */
import path from "node:path";
import { constants, type Dirent } from "node:fs";
import type fastGlob from "fast-glob";
import ignore, { type Ignore } from "ignore";
import type { FileSystem } from "./file-system.js";

interface Rules {
  directory: string;
  matcher: Ignore;
}

/** Larger .gitignore files are not read. */
const IGNORE_FILE_MAX_BYTES = 1024 * 1024;

/**
 * A .gitignore's text, or undefined unless it is a regular file of sane size. Like git, a
 * symlinked .gitignore is not followed; a FIFO or device is never read (no blocking, no
 * endless /dev/zero).
 */
async function readIgnoreFile(fs: FileSystem, file: string): Promise<string | undefined> {
  const handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > IGNORE_FILE_MAX_BYTES) return undefined;
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

type ReaddirCallback = (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void;

export class IgnoreRules {
  private readonly matchers = new Map<string, Promise<Ignore | undefined>>();
  private readonly chains = new Map<string, Promise<Rules[]>>();

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
    if (this.hidden(path.basename(absolute))) return true;
    if (!this.enabled || !this.below(absolute)) return false;
    return this.test(await this.chainFor(path.dirname(absolute)), absolute, isDirectory);
  }

  /** `.git` and clio's `.clio` (any depth) are never shown by walks. */
  private hidden(name: string): boolean {
    return name === ".git" || name === ".clio";
  }

  private below(absolute: string): boolean {
    const relative = path.relative(this.root, absolute);
    return relative !== "" && relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
  }

  /** Applies the rules of every .gitignore from the root down: deeper files override shallower ones. */
  private test(chain: Rules[], absolute: string, isDirectory: boolean): boolean {
    let ignored = false;
    for (const { directory, matcher } of chain) {
      const relative = path.relative(directory, absolute).split(path.sep).join("/") + (isDirectory ? "/" : "");
      const result = matcher.test(relative);
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }

  /** The .gitignore matchers that apply inside `directory`, root first (cached per folder). */
  private chainFor(directory: string): Promise<Rules[]> {
    let chain = this.chains.get(directory);
    if (chain === undefined) {
      const parent = directory === this.root || !this.below(directory) ? Promise.resolve([]) : this.chainFor(path.dirname(directory));
      chain = Promise.all([parent, this.matcherFor(directory)]).then(([above, matcher]) => (matcher === undefined ? above : [...above, { directory, matcher }]));
      this.chains.set(directory, chain);
    }
    return chain;
  }

  /** A fast-glob `fs` option whose readdir leaves out ignored entries and `.git`. */
  fastGlobAdapter(): Partial<fastGlob.FileSystemAdapter> {
    const readdir = (directory: string, ...rest: unknown[]): void => {
      const callback = rest[rest.length - 1] as ReaddirCallback;
      Promise.all([this.fs.readdir(directory, { withFileTypes: true }), this.enabled ? this.chainFor(directory) : []])
        .then(([entries, chain]) => {
          const kept = entries.filter((entry) => !this.hidden(entry.name) && !this.test(chain, path.join(directory, entry.name), entry.isDirectory()));
          callback(null, kept);
        })
        .catch((error: NodeJS.ErrnoException) => callback(error, []));
    };
    return { readdir: readdir as unknown as fastGlob.FileSystemAdapter["readdir"] };
  }

  private matcherFor(directory: string): Promise<Ignore | undefined> {
    let matcher = this.matchers.get(directory);
    if (matcher === undefined) {
      matcher = readIgnoreFile(this.fs, path.join(directory, ".gitignore")).then(
        (text) => (text === undefined ? undefined : ignore().add(text)),
        () => undefined,
      );
      this.matchers.set(directory, matcher);
    }
    return matcher;
  }
}
