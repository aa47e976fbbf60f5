/**
 * Trees as flat maps (path → oid and mode), and git's blob hashing. Reading a commit's tree
 * costs one object read per folder; folders whose oid the index's cache-tree already vouches
 * for can be skipped entirely.
 */
import { createHash } from "node:crypto";
import git from "isomorphic-git";
import type { Repository } from "./repository.js";

export interface TreeFile {
  oid: string;
  mode: number;
}

export type FlatTree = Map<string, TreeFile>;

/** The git object id of a blob with this content. */
export function hashBlob(content: Buffer): string {
  return createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex");
}

/** The root tree oid of a commit. */
export async function commitTree(repository: Repository, commitOid: string): Promise<string> {
  const { commit } = await git.readCommit({ fs: repository.fs, gitdir: repository.gitdir, oid: commitOid, cache: repository.cache });
  return commit.tree;
}

/**
 * Every file of a tree, keyed by its full path. When `skip(folder, oid)` says true, that
 * folder is not read and its folder path is reported in `skipped` instead.
 */
export async function flattenTree(
  repository: Repository,
  treeOid: string,
  skip: (folder: string, oid: string) => boolean = () => false,
): Promise<{ files: FlatTree; skipped: Set<string> }> {
  const files: FlatTree = new Map();
  const skipped = new Set<string>();
  const visit = async (oid: string, prefix: string): Promise<void> => {
    if (skip(prefix, oid)) {
      skipped.add(prefix);
      return;
    }
    const { tree } = await git.readTree({ fs: repository.fs, gitdir: repository.gitdir, oid, cache: repository.cache });
    const folders: Promise<void>[] = [];
    for (const entry of tree) {
      const full = prefix === "" ? entry.path : `${prefix}/${entry.path}`;
      if (entry.type === "tree") folders.push(visit(entry.oid, full));
      else files.set(full, { oid: entry.oid, mode: parseInt(entry.mode, 8) });
    }
    await Promise.all(folders);
  };
  await visit(treeOid, "");
  return { files, skipped };
}

/** The files of the tree of commit `commitOid` (an empty map for undefined: no commits yet). */
export async function commitFiles(repository: Repository, commitOid: string | undefined): Promise<FlatTree> {
  if (commitOid === undefined) return new Map();
  return (await flattenTree(repository, await commitTree(repository, commitOid))).files;
}

/** Reads a blob's bytes. */
export async function readBlob(repository: Repository, oid: string): Promise<Buffer> {
  const { blob } = await git.readBlob({ fs: repository.fs, gitdir: repository.gitdir, oid, cache: repository.cache });
  return Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
}
