/**
 * Unified diffs in git's format (`diff --git` headers, `@@ -a,b +c,d @@` hunks with three
 * lines of context) between any two of: a commit's tree, the index, the worktree.
 */
import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { headCommit, readIndex, resolveCommit, type Repository } from "./repository.js";
import { parentOf } from "./ignore-rules.js";
import type { IndexFile } from "./index-file.js";
import { compareWorktreeWithIndex, type StatusCode, treeFilesBesideIndex } from "./status.js";
import { changedFiles, commitTree, hashBlob, readBlob, type FlatTree } from "./tree.js";
import { cQuote, pathFilter } from "./format.js";
import { lineDiffHunks } from "../line-diff.js";

/** One side of a diff: which files it has, and how to read one. */
interface Side {
  files: Map<string, { oid?: string; mode: number }>;
  read(file: string): Promise<Buffer>;
}

export interface DiffRequest {
  /** Compare the index with HEAD instead of the worktree with the index. */
  staged?: boolean;
  /** Compare this commit with `to` (or with the worktree when `to` is absent). */
  from?: string;
  to?: string;
  /** Only paths equal to or under one of these. */
  paths?: string[];
}

export interface FileDiff {
  path: string;
  status: "added" | "deleted" | "modified";
  binary: boolean;
  /** The file's section of the unified diff, headers included. */
  patch: string;
}

export async function diffRepository(repository: Repository, request: DiffRequest): Promise<FileDiff[]> {
  let before: Side;
  let after: Side;
  if (request.to !== undefined) {
    // Between two commits only the folders that differ are read.
    const from = request.from === undefined ? await headCommit(repository) : await resolveCommit(repository, request.from);
    const to = await resolveCommit(repository, request.to);
    const changed = await changedFiles(repository, from === undefined ? undefined : await commitTree(repository, from), await commitTree(repository, to));
    before = treeSide(repository, changed.before);
    after = treeSide(repository, changed.after);
  } else if (request.from !== undefined) {
    // Folders the index's cache-tree shows as in the commit, with no tracked file changed on disk, are not read.
    const index = await readIndex(repository);
    const changes = worktreeChanges(repository, index);
    const changedFolders = foldersOf([...changes.keys(), ...index.entries.filter((entry) => entry.stage !== 0).map((entry) => entry.path)]);
    const commit = await commitTree(repository, await resolveCommit(repository, request.from));
    const tree = await treeFilesBesideIndex(repository, commit, index.cachedTrees, (folder) => !changedFolders.has(folder));
    before = treeSide(repository, tree.files);
    after = await worktreeSide(repository, index, changes, tree.passed);
  } else if (request.staged) {
    // Folders the index's cache-tree shows as in HEAD are not read.
    const index = await readIndex(repository);
    const head = await headCommit(repository);
    const tree = await treeFilesBesideIndex(repository, head === undefined ? undefined : await commitTree(repository, head), index.cachedTrees);
    before = treeSide(repository, tree.files);
    after = indexSide(repository, index, tree.passed);
  } else {
    const index = await readIndex(repository);
    before = indexSide(repository, index);
    after = await worktreeSide(repository, index, worktreeChanges(repository, index));
  }
  const selected = request.paths === undefined ? () => true : pathFilter(request.paths);
  const names = [...new Set([...before.files.keys(), ...after.files.keys()])].filter(selected).sort();
  const diffs: FileDiff[] = [];
  for (const name of names) {
    const old = before.files.get(name);
    const next = after.files.get(name);
    if (old && next && old.oid !== undefined && old.oid === next.oid && old.mode === next.mode) continue;
    const oldContent = old ? await before.read(name) : Buffer.alloc(0);
    const newContent = next ? await after.read(name) : Buffer.alloc(0);
    const oldOid = old ? (old.oid ?? hashBlob(oldContent)) : undefined;
    const newOid = next ? (next.oid ?? hashBlob(newContent)) : undefined;
    if (oldOid === newOid && old?.mode === next?.mode) continue;
    diffs.push(formatFileDiff(name, old && { oid: oldOid!, mode: old.mode, content: oldContent }, next && { oid: newOid!, mode: next.mode, content: newContent }));
  }
  return diffs;
}

function treeSide(repository: Repository, files: FlatTree): Side {
  return { files, read: (file) => readBlob(repository, files.get(file)!.oid) };
}

/** The index's stage-0 files, except those `passed` (the same on the other side). */
function indexSide(repository: Repository, index: IndexFile, passed: (file: string) => boolean = () => false): Side {
  const files = new Map(index.entries.filter((entry) => entry.stage === 0 && !passed(entry.path)).map((entry) => [entry.path, { oid: entry.oid, mode: entry.mode }]));
  return { files, read: (file) => readBlob(repository, files.get(file)!.oid) };
}

/** Tracked files that differ on disk from the index (M, D or T). */
function worktreeChanges(repository: Repository, index: IndexFile & { mtimeMs: number }): Map<string, StatusCode> {
  return compareWorktreeWithIndex(
    repository,
    index.entries.filter((entry) => entry.stage === 0),
    index.mtimeMs,
  );
}

/** Every folder holding one of `files`, at any depth, the top ("") included. */
function foldersOf(files: readonly string[]): Set<string> {
  const folders = new Set<string>();
  for (const file of files) {
    for (let folder = parentOf(file); !folders.has(folder); folder = parentOf(folder)) {
      folders.add(folder);
      if (folder === "") break;
    }
  }
  return folders;
}

/** Tracked files as they are on disk (except those `passed`); unchanged ones keep the index oid so they are not read. */
async function worktreeSide(repository: Repository, index: IndexFile, changes: Map<string, StatusCode>, passed: (file: string) => boolean = () => false): Promise<Side> {
  const files: Side["files"] = new Map();
  for (const entry of index.entries) {
    if (entry.stage !== 0 || passed(entry.path)) continue;
    const change = changes.get(entry.path);
    if (change === "D") continue;
    if (change === undefined) files.set(entry.path, { oid: entry.oid, mode: entry.mode });
    else files.set(entry.path, { mode: repository.fileMode ? await modeOnDisk(repository, entry.path) : entry.mode });
  }
  return {
    files,
    async read(file) {
      // A file the same on disk as in the index (by its stat data, or hashed when that could not tell) is read from the objects, as git does.
      const unchanged = files.get(file)?.oid;
      if (unchanged !== undefined) return readBlob(repository, unchanged);
      const absolute = path.join(repository.dir, file);
      return lstatSync(absolute).isSymbolicLink() ? Buffer.from(readlinkSync(absolute)) : readFileSync(absolute);
    },
  };
}

async function modeOnDisk(repository: Repository, file: string): Promise<number> {
  const stat = lstatSync(path.join(repository.dir, file));
  if (stat.isSymbolicLink()) return 0o120000;
  return stat.mode & 0o111 ? 0o100755 : 0o100644;
}

interface Version {
  oid: string;
  mode: number;
  content: Buffer;
}

/**
 * A path in a diff header as git writes it: C-quoted ("a/x\ty") when it holds a quote, a
 * backslash or a control character; UTF-8 as is (git's core.quotePath=false).
 */
function headerPath(prefix: string, name: string): string {
  return /["\\\x00-\x1f\x7f]/.test(name) ? cQuote(`${prefix}${name}`) : `${prefix}${name}`;
}

function formatFileDiff(name: string, old: Version | undefined, next: Version | undefined): FileDiff {
  const [a, b] = [headerPath("a/", name), headerPath("b/", name)];
  // git ends the ---/+++ lines of a name with a space in a tab, so patch(1) finds where the name ends.
  const tab = name.includes(" ") ? "\t" : "";
  const lines = [`diff --git ${a} ${b}`];
  const mode = (value: number) => value.toString(8);
  if (!old) lines.push(`new file mode ${mode(next!.mode)}`);
  else if (!next) lines.push(`deleted file mode ${mode(old.mode)}`);
  else if (old.mode !== next.mode) lines.push(`old mode ${mode(old.mode)}`, `new mode ${mode(next.mode)}`);
  const sameMode = old && next && old.mode === next.mode;
  const shortOld = old ? old.oid.slice(0, 7) : "0000000";
  const shortNew = next ? next.oid.slice(0, 7) : "0000000";
  if (old?.oid !== next?.oid) lines.push(`index ${shortOld}..${shortNew}${sameMode ? ` ${mode(old!.mode)}` : ""}`);
  const status = !old ? "added" : !next ? "deleted" : "modified";
  const binary = isBinary(old?.content) || isBinary(next?.content);
  if (old?.oid !== next?.oid) {
    if (binary) {
      lines.push(`Binary files ${old ? a : "/dev/null"} and ${next ? b : "/dev/null"} differ`);
    } else {
      lines.push(`--- ${old ? `${a}${tab}` : "/dev/null"}`, `+++ ${next ? `${b}${tab}` : "/dev/null"}`);
      const oldText = old?.content.toString("utf8") ?? "";
      const hunks = lineDiffHunks(oldText, next?.content.toString("utf8") ?? "");
      const oldLines = oldText.split("\n");
      for (const hunk of hunks) {
        const heading = functionHeading(oldLines, hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1);
        lines.push(`@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@${heading ? ` ${heading}` : ""}`, ...hunk.lines);
      }
    }
  }
  return { path: name, status, binary, patch: `${lines.join("\n")}\n` };
}

/** git's hunk range: `start,count`, just `start` for one line, `start-1,0` for none. */
function range(start: number, count: number): string {
  if (count === 1) return `${start}`;
  return `${count === 0 ? start - 1 : start},${count}`;
}

/** git's default hunk heading: the nearest line above the hunk that starts with a letter, `_` or `$`. */
function functionHeading(lines: readonly string[], before: number): string | undefined {
  for (let number = Math.min(before, lines.length) - 1; number >= 0; number--) {
    const line = lines[number]!;
    if (/^[A-Za-z_$]/.test(line)) return line.trimEnd().slice(0, 80);
  }
  return undefined;
}

/** git's test: a NUL byte in the first 8000 bytes. */
function isBinary(content: Buffer | undefined): boolean {
  return content?.subarray(0, 8000).includes(0) === true;
}
