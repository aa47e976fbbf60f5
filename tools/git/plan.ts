/**
 * What a GIT action would do to the worktree's files, worked out without changing them: each
 * file's text now and after, for the permission question's diff and for undo checkpoints.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { binaryType, SNIFF_BYTES } from "../files/text.js";
import { assertNothingOverwritten, type PathChange } from "./apply-tree.js";
import { planCheckout } from "./branches.js";
import { planIndexReset, planMerge, planRestore } from "./merge-reset.js";
import { resolveCommit, type Repository } from "./repository.js";
import type { StatusOptions } from "./status.js";
import { readBlob, type TreeFile } from "./tree.js";

/** One worktree file's text now and after (null: absent); `unknown` says why the text is not given. */
export interface WorktreeChange {
  path: string;
  before: string | null;
  after: string | null;
  unknown?: string;
}

/** Files larger than this are named, their text not shown (as FILE_OP's previews). */
const PREVIEW_MAX_BYTES = 4 * 1024 * 1024;
const SYMLINK_MODE = 0o120000;

type Side = { text: string | null } | { unknown: string };

/** Checking out a branch or commit: the files that differ between HEAD and it. */
export async function previewCheckout(repository: Repository, target: string, options: { create?: boolean; startPoint?: string } & StatusOptions): Promise<WorktreeChange[]> {
  const { changes } = await planCheckout(repository, target, options);
  await assertNothingOverwritten(repository, changes, `Checking out ${target}`, options);
  return worktreeChanges(repository, changes);
}

/** Restoring paths from the index (or a commit): each file as it is now against what it gets. */
export async function previewRestore(repository: Repository, paths: readonly string[], ref?: string): Promise<WorktreeChange[]> {
  return worktreeChanges(repository, await planRestore(repository, paths, ref));
}

/** A hard reset: every tracked file it rewrites, local changes included. */
export async function previewHardReset(repository: Repository, ref: string, options: StatusOptions): Promise<WorktreeChange[]> {
  const { changes } = await planIndexReset(repository, "hard", await resolveCommit(repository, ref), options);
  return worktreeChanges(repository, changes);
}

/** A merge (fast-forward or clean): the files the merged commit changes. */
export async function previewMerge(
  repository: Repository,
  theirs: string,
  author: () => Promise<{ name: string; email: string }>,
  options: { message?: string; now?: () => number } & StatusOptions,
): Promise<WorktreeChange[]> {
  const { changes } = await planMerge(repository, theirs, author, options);
  await assertNothingOverwritten(repository, changes, `Merging ${theirs}`, options);
  return worktreeChanges(repository, changes);
}

/** The text of each changing path on disk now and in the target, in path order; paths whose text stays are left out. */
async function worktreeChanges(repository: Repository, changes: readonly PathChange[]): Promise<WorktreeChange[]> {
  const planned: WorktreeChange[] = [];
  for (const change of changes) {
    const before = await onDisk(path.join(repository.dir, ...change.path.split("/")));
    const after = change.after === undefined ? { text: null } : await inTree(repository, change.after);
    const unknown = ("unknown" in before ? before.unknown : undefined) ?? ("unknown" in after ? after.unknown : undefined);
    if (unknown !== undefined) planned.push({ path: change.path, before: null, after: null, unknown });
    else if ("text" in before && "text" in after && before.text !== after.text) planned.push({ path: change.path, before: before.text, after: after.text });
  }
  return planned.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}

async function onDisk(file: string): Promise<Side> {
  const stat = await fs.lstat(file).catch(() => undefined);
  if (stat === undefined) return { text: null };
  if (stat.isSymbolicLink()) return { unknown: "a symbolic link" };
  if (!stat.isFile()) return { unknown: stat.isDirectory() ? "a folder" : "not a regular file" };
  if (stat.size > PREVIEW_MAX_BYTES) return { unknown: "too large" };
  return asText(await fs.readFile(file));
}

async function inTree(repository: Repository, file: TreeFile): Promise<Side> {
  if (file.mode === SYMLINK_MODE) return { unknown: "a symbolic link" };
  return asText(await readBlob(repository, file.oid));
}

function asText(bytes: Buffer): Side {
  if (bytes.length > PREVIEW_MAX_BYTES) return { unknown: "too large" };
  if (binaryType(bytes.subarray(0, SNIFF_BYTES)) !== undefined) return { unknown: "binary" };
  return { text: bytes.toString("utf8") };
}
