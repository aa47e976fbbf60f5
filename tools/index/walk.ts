/**
 * Lists the files an index should read: nested .gitignore files respected, clio's and
 * version control's folders left out, symbolic links not followed (so a loop cannot trap the
 * walk), and files too large to be source skipped by size without being read.
 */
import { type Dirent, promises as fs, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";

export interface WalkedFile {
  /** Workspace-relative path with `/` separators. */
  path: string;
  absolute: string;
  size: number;
  mtimeMs: number;
}

export type SkipReason = "too_large" | "binary" | "symlink" | "unreadable";

export interface SkippedFile {
  path: string;
  reason: SkipReason;
  detail?: string;
  /** For binary files: the size and mtime seen, so an unchanged one is not read again. */
  size?: number;
  mtimeMs?: number;
}

export interface WalkOptions {
  /** Files larger than this are skipped unread (default 1 MiB). */
  maxFileBytes?: number;
  /**
   * Called with each folder's files as the walk finds them (a huge folder's a few hundred at a
   * time), so work on them can start before the walk ends: folder by folder in a fixed order (a
   * folder's files sorted by name, then its subfolders in name order), whatever order the file
   * system answers in.
   */
  onFiles?: (files: WalkedFile[]) => void;
  /** Root-relative paths (files and folders) left out as if they did not exist: what the person's deny rules keep from being read. */
  hidden?: (relative: string) => boolean;
  /**
   * Called with the mtime of each folder, seen before it is listed, and of each .gitignore the
   * walk reads: while none of them moves, a walk would list the same files (see change-check.ts).
   */
  onListing?: (relative: string, mtimeMs: number) => void;
  /** Called with each folder's entries as listed, all of them (ignored ones too), sorted by name. */
  onEntries?: (relative: string, entries: readonly Dirent[]) => void;
}

/** Folders never indexed, whether or not a .gitignore names them. */
const ALWAYS_SKIPPED = new Set([".git", ".clio", ".hg", ".svn", "node_modules"]);
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

interface IgnoreLayer {
  /** The folder the .gitignore is in, workspace-relative ("" for the root). */
  base: string;
  rules: Ignore;
}

/** Longest stretch the walk keeps the event loop (progress, workers' replies, a cancel) waiting. */
const SLICE_MS = 10;

const byName = (left: { path: string }, right: { path: string }) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0);

/** Walks `start` (absolute, inside `root`) and returns the files to index (sorted by path) and the ones skipped. */
export async function walkFiles(root: string, start: string, options: WalkOptions = {}): Promise<{ files: WalkedFile[]; skipped: SkippedFile[] }> {
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const files: WalkedFile[] = [];
  const skipped: SkippedFile[] = [];
  const layers = ancestorLayers(root, start);
  let sliceStarted = performance.now();

  /**
   * Hands on a folder's files (sorted by name), then walks its subfolders in name order. Each
   * folder is read with synchronous calls, which cost a fraction of the asynchronous ones on a
   * local disk; between folders the event loop gets its turn once a slice of time is used.
   */
  async function visit(directory: string, inherited: IgnoreLayer[]): Promise<void> {
    const relativeDirectory = toRelative(root, directory);
    let entries;
    try {
      if (options.onListing !== undefined) options.onListing(relativeDirectory, statSync(directory).mtimeMs);
      entries = readdirSync(directory, { withFileTypes: true });
    } catch (error) {
      skipped.push({ path: relativeDirectory, reason: "unreadable", detail: (error as Error).message });
      return;
    }
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    options.onEntries?.(relativeDirectory, entries);
    const own = entries.some((entry) => entry.name === ".gitignore" && entry.isFile()) ? readIgnore(directory, relativeDirectory, options.onListing) : undefined;
    const active = own === undefined ? inherited : [...inherited, own];
    const subfolders: string[] = [];
    let found: WalkedFile[] = [];
    for (let index = 0; index < entries.length; index++) {
      // A huge folder is handed on, and the event loop let in, a few hundred entries at a time.
      if (index % 256 === 255 && found.length > 0) {
        handOn(found);
        found = [];
        await breathe();
      }
      const entry = entries[index]!;
      const relative = relativeDirectory === "." ? entry.name : `${relativeDirectory}/${entry.name}`;
      const absolute = path.join(directory, entry.name);
      if (options.hidden?.(relative)) continue;
      if (entry.isDirectory()) {
        if (!ALWAYS_SKIPPED.has(entry.name) && !isIgnored(active, relative, true)) subfolders.push(absolute);
      } else if (entry.isSymbolicLink()) {
        if (!isIgnored(active, relative, false)) skipped.push({ path: relative, reason: "symlink", detail: "symbolic links are not followed" });
      } else if (entry.isFile() && !isIgnored(active, relative, false)) {
        let stat;
        try {
          stat = statSync(absolute);
        } catch (error) {
          skipped.push({ path: relative, reason: "unreadable", detail: (error as Error).message });
          continue;
        }
        if (stat.size <= maxFileBytes) found.push({ path: relative, absolute, size: stat.size, mtimeMs: stat.mtimeMs });
        else skipped.push({ path: relative, reason: "too_large", detail: `${stat.size} bytes, over the ${maxFileBytes}-byte limit` });
      }
    }
    handOn(found);
    await breathe();
    for (const subfolder of subfolders) await visit(subfolder, active);
  }

  /** Lets the event loop in once a slice of time has been used. */
  async function breathe(): Promise<void> {
    if (performance.now() - sliceStarted < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    sliceStarted = performance.now();
  }

  function handOn(found: WalkedFile[]): void {
    for (const file of found) files.push(file);
    if (found.length > 0) options.onFiles?.(found);
  }

  const startStat = await fs.lstat(start);
  if (startStat.isFile()) {
    const relative = toRelative(root, start);
    if (startStat.size > maxFileBytes) skipped.push({ path: relative, reason: "too_large", detail: `${startStat.size} bytes, over the ${maxFileBytes}-byte limit` });
    else handOn([{ path: relative, absolute: start, size: startStat.size, mtimeMs: startStat.mtimeMs }]);
  } else if (startStat.isSymbolicLink()) {
    skipped.push({ path: toRelative(root, start), reason: "symlink", detail: "symbolic links are not followed" });
  } else {
    await visit(start, layers);
  }
  files.sort(byName);
  return { files, skipped };
}

/**
 * Why a walk of the whole workspace never reaches `start` (absolute, inside `root`): inside a
 * folder that is never indexed, or left out by a .gitignore. Undefined when it is reached.
 */
export async function exclusionOf(root: string, start: string): Promise<string | undefined> {
  const relative = toRelative(root, start);
  if (relative === ".") return undefined;
  const segments = relative.split("/");
  const layers = ancestorLayers(root, start);
  const startIsDirectory = await fs.lstat(start).then(
    (stats) => stats.isDirectory(),
    () => true,
  );
  for (let index = 0; index < segments.length; index++) {
    const directory = index < segments.length - 1 || startIsDirectory;
    const prefix = segments.slice(0, index + 1).join("/");
    if (directory && ALWAYS_SKIPPED.has(segments[index]!)) return `${prefix} is one of the folders never indexed (${[...ALWAYS_SKIPPED].join(", ")})`;
    const above = layers.filter((layer) => layer.base === "" || prefix.startsWith(`${layer.base}/`));
    if (isIgnored(above, prefix, directory)) return `a .gitignore leaves ${prefix} out`;
  }
  return undefined;
}

function toRelative(root: string, absolute: string): string {
  const relative = path.relative(root, absolute);
  return relative === "" ? "." : relative.split(path.sep).join("/");
}

function readIgnore(directory: string, relativeDirectory: string, onListing?: (relative: string, mtimeMs: number) => void): IgnoreLayer | undefined {
  let text: string;
  const file = path.join(directory, ".gitignore");
  try {
    if (onListing !== undefined) onListing(relativeDirectory === "." ? ".gitignore" : `${relativeDirectory}/.gitignore`, statSync(file).mtimeMs);
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  return { base: relativeDirectory === "." ? "" : relativeDirectory, rules: ignore().add(text) };
}

/** The .gitignore layers of the folders above `start` (from the root down), when indexing a subfolder. */
function ancestorLayers(root: string, start: string): IgnoreLayer[] {
  const layers: IgnoreLayer[] = [];
  const relative = toRelative(root, start);
  if (relative === ".") return layers;
  const segments = relative.split("/");
  let current = root;
  for (let index = 0; index < segments.length; index++) {
    const layer = readIgnore(current, toRelative(root, current));
    if (layer !== undefined) layers.push(layer);
    current = path.join(current, segments[index]!);
  }
  return layers;
}

function isIgnored(layers: IgnoreLayer[], relative: string, directory: boolean): boolean {
  let ignored = false;
  for (const layer of layers) {
    const local = layer.base === "" ? relative : relative.slice(layer.base.length + 1);
    const result = layer.rules.test(directory ? `${local}/` : local);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}
