/**
 * git's ignore rules: `.gitignore` in every folder (deeper files win), then
 * `.git/info/exclude`, then the user's global excludes file. Within one file the last
 * matching pattern wins, and a `!pattern` can re-include what a shallower file excluded.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";

export class IgnoreRules {
  private readonly perFolder = new Map<string, Ignore | null>();
  private readonly repositoryWide: Ignore[];

  /**
   * @param root the worktree root
   * @param extraFiles absolute paths of repository-wide exclude files, highest precedence first
   *   (normally `.git/info/exclude`, then the global excludes file)
   */
  constructor(
    private readonly root: string,
    extraFiles: string[],
  ) {
    this.repositoryWide = extraFiles.map((file) => this.load(file)).filter((rules): rules is Ignore => rules !== null);
  }

  /** Is `relative` (a path from the root, `/`-separated) ignored? Folders are asked with `isFolder`. */
  isIgnored(relative: string, isFolder: boolean): boolean {
    const subject = isFolder ? `${relative}/` : relative;
    let folder = parentOf(relative);
    for (;;) {
      const rules = this.rulesOf(folder);
      if (rules) {
        const verdict = rules.test(folder === "" ? subject : subject.slice(folder.length + 1));
        if (verdict.ignored) return true;
        if (verdict.unignored) return false;
      }
      if (folder === "") break;
      folder = parentOf(folder);
    }
    for (const rules of this.repositoryWide) {
      const verdict = rules.test(subject);
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }

  private rulesOf(folder: string): Ignore | null {
    let rules = this.perFolder.get(folder);
    if (rules === undefined) {
      rules = this.load(path.join(this.root, folder, ".gitignore"));
      this.perFolder.set(folder, rules);
    }
    return rules;
  }

  private load(file: string): Ignore | null {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      return null;
    }
    return ignore({ ignorecase: false }).add(text);
  }
}

export function parentOf(relative: string): string {
  const slash = relative.lastIndexOf("/");
  return slash === -1 ? "" : relative.slice(0, slash);
}

/** The repository-wide exclude files git reads, highest precedence first. */
export function excludeFiles(gitdir: string, configuredExcludesFile: string | undefined, env: NodeJS.ProcessEnv): string[] {
  const files = [path.join(gitdir, "info", "exclude")];
  const home = env.HOME ?? env.USERPROFILE;
  if (configuredExcludesFile) {
    files.push(configuredExcludesFile.startsWith("~/") && home ? path.join(home, configuredExcludesFile.slice(2)) : configuredExcludesFile);
  } else if (env.XDG_CONFIG_HOME) {
    files.push(path.join(env.XDG_CONFIG_HOME, "git", "ignore"));
  } else if (home) {
    files.push(path.join(home, ".config", "git", "ignore"));
  }
  return files;
}
