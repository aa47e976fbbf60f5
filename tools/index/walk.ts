/**
 * Lists the files an index should read: nested .gitignore files respected, clio's and
 * version control's folders left out, symbolic links not followed (so a loop cannot trap the
 * walk), and files too large to be source skipped by size without being read.
 */
import { promises as fs } from "node:fs";
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
   * Called with each folder's files as the walk finds them, so work on them can start before the
   * walk ends: folder by folder in a fixed order (a folder's files sorted by name, then its
   * subfolders in name order), whatever order the file system answers in.
   */
  onFiles?: (files: WalkedFile[]) => void;
}

/** Folders never indexed, whether or not a .gitignore names them. */
const ALWAYS_SKIPPED = new Set([".git", ".clio", ".hg", ".svn", "node_modules"]);
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

interface IgnoreLayer {
  /** The folder the .gitignore is in, workspace-relative ("" for the root). */
  base: string;
  rules: Ignore;
}

/** One folder's files, and how to list each of its subfolders. */
interface Listing {
  files: WalkedFile[];
  subfolders: Array<() => Promise<Listing>>;
}

/** Subfolders of one folder listed ahead of the one being handed on. */
const LIST_AHEAD = 32;

const byName = (left: { path: string }, right: { path: string }) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0);

/** Walks `start` (absolute, inside `root`) and returns the files to index (sorted by path) and the ones skipped. */
export async function walkFiles(
  root: string,
  start: string,
  options: WalkOptions = {},
): Promise<{ files: WalkedFile[]; skipped: SkippedFile[] }> {
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const files: WalkedFile[] = [];
  const skipped: SkippedFile[] = [];
  const layers = await ancestorLayers(root, start);

  /** Lists a folder (its files with their sizes); its subfolders are listed when `emit` comes to them. */
  async function list(directory: string, inherited: IgnoreLayer[]): Promise<Listing> {
    const relativeDirectory = toRelative(root, directory);
    let entries;
    try {
      entries = await fs.readdir(directory, { withFileTypes: true });
    } catch (error) {
      skipped.push({ path: relativeDirectory, reason: "unreadable", detail: (error as Error).message });
      return { files: [], subfolders: [] };
    }
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    const own = entries.some((entry) => entry.name === ".gitignore" && entry.isFile()) ? await readIgnore(directory, relativeDirectory) : undefined;
    const active = own === undefined ? inherited : [...inherited, own];
    const subfolders: Array<() => Promise<Listing>> = [];
    const stats: Array<Promise<WalkedFile | undefined>> = [];
    for (const entry of entries) {
      const relative = relativeDirectory === "." ? entry.name : `${relativeDirectory}/${entry.name}`;
      const absolute = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        if (ALWAYS_SKIPPED.has(entry.name) || isIgnored(active, relative, true)) continue;
        subfolders.push(() => list(absolute, active));
      } else if (entry.isSymbolicLink()) {
        if (!isIgnored(active, relative, false)) skipped.push({ path: relative, reason: "symlink", detail: "symbolic links are not followed" });
      } else if (entry.isFile()) {
        if (isIgnored(active, relative, false)) continue;
        stats.push(
          fs.stat(absolute).then(
            (stat) => {
              if (stat.size <= maxFileBytes) return { path: relative, absolute, size: stat.size, mtimeMs: stat.mtimeMs };
              skipped.push({ path: relative, reason: "too_large", detail: `${stat.size} bytes, over the ${maxFileBytes}-byte limit` });
              return undefined;
            },
            (error: Error) => void skipped.push({ path: relative, reason: "unreadable", detail: error.message }),
          ),
        );
      }
    }
    const found = (await Promise.all(stats)).filter((file): file is WalkedFile => file !== undefined);
    return { files: found, subfolders };
  }

  /**
   * Hands on a folder's files, then its subfolders', in order; a few subfolders are listed ahead,
   * so the file system stays busy while the walk still hands files on in order from the start.
   */
  async function emit(listing: Listing): Promise<void> {
    for (const file of listing.files) files.push(file);
    if (listing.files.length > 0) options.onFiles?.(listing.files);
    const started: Array<Promise<Listing>> = [];
    const startNext = () => {
      const next = listing.subfolders[started.length];
      if (next === undefined) return;
      const pending = next();
      // Awaited in order below; until then a failure must not count as unhandled.
      pending.catch(() => undefined);
      started.push(pending);
    };
    for (let index = 0; index < LIST_AHEAD; index++) startNext();
    for (let index = 0; index < listing.subfolders.length; index++) {
      const subfolder = await started[index]!;
      startNext();
      await emit(subfolder);
    }
  }

  const startStat = await fs.lstat(start);
  if (startStat.isFile()) {
    const relative = toRelative(root, start);
    if (startStat.size > maxFileBytes) skipped.push({ path: relative, reason: "too_large", detail: `${startStat.size} bytes, over the ${maxFileBytes}-byte limit` });
    else await emit({ files: [{ path: relative, absolute: start, size: startStat.size, mtimeMs: startStat.mtimeMs }], subfolders: [] });
  } else if (startStat.isSymbolicLink()) {
    skipped.push({ path: toRelative(root, start), reason: "symlink", detail: "symbolic links are not followed" });
  } else {
    await emit(await list(start, layers));
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
  const layers = await ancestorLayers(root, start);
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

async function readIgnore(directory: string, relativeDirectory: string): Promise<IgnoreLayer | undefined> {
  let text: string;
  try {
    text = await fs.readFile(path.join(directory, ".gitignore"), "utf8");
  } catch {
    return undefined;
  }
  return { base: relativeDirectory === "." ? "" : relativeDirectory, rules: ignore().add(text) };
}

/** The .gitignore layers of the folders above `start` (from the root down), when indexing a subfolder. */
async function ancestorLayers(root: string, start: string): Promise<IgnoreLayer[]> {
  const layers: IgnoreLayer[] = [];
  const relative = toRelative(root, start);
  if (relative === ".") return layers;
  const segments = relative.split("/");
  let current = root;
  for (let index = 0; index < segments.length; index++) {
    const layer = await readIgnore(current, toRelative(root, current));
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
