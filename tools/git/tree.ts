/**
 * Trees as flat maps (path → oid and mode), and git's blob hashing. Reading a commit's tree
 * costs one object read per folder; folders whose oid the index's cache-tree already vouches
 * for can be skipped entirely. The objects themselves are read and kept by objects.ts.
 */
import { createHash } from "node:crypto";
import type { TreeEntry } from "isomorphic-git";
import { readCommitObject, readTreeEntries } from "./objects.js";
import type { Repository } from "./repository.js";

export { readBlob, readCommitObject, readTreeEntries } from "./objects.js";

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
  return (await readCommitObject(repository, commitOid)).tree;
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
    const tree = await readTreeEntries(repository, oid);
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

/**
 * The files that differ between two trees, with their old and new entries: folders whose oid
 * is the same on both sides are not read, so a small change between large trees costs little.
 */
export async function changedFiles(repository: Repository, oldTree: string | undefined, newTree: string | undefined): Promise<{ before: FlatTree; after: FlatTree }> {
  const before: FlatTree = new Map();
  const after: FlatTree = new Map();
  const collect = async (oid: string | undefined, prefix: string, into: FlatTree): Promise<void> => {
    if (oid === undefined) return;
    for (const [name, entry] of (await flattenTree(repository, oid)).files) into.set(prefix === "" ? name : `${prefix}/${name}`, entry);
  };
  const compare = async (oldOid: string | undefined, newOid: string | undefined, prefix: string): Promise<void> => {
    if (oldOid === newOid) return;
    if (oldOid === undefined || newOid === undefined) {
      await Promise.all([collect(oldOid, prefix, before), collect(newOid, prefix, after)]);
      return;
    }
    const [oldEntries, newEntries] = await Promise.all([readTreeEntries(repository, oldOid), readTreeEntries(repository, newOid)]);
    const byName = new Map<string, { old?: TreeEntry; next?: TreeEntry }>();
    for (const entry of oldEntries) byName.set(entry.path, { old: entry });
    for (const entry of newEntries) byName.set(entry.path, { ...byName.get(entry.path), next: entry });
    const folders: Promise<void>[] = [];
    for (const [name, { old, next }] of byName) {
      if (old !== undefined && next !== undefined && old.oid === next.oid && old.mode === next.mode) continue;
      const full = prefix === "" ? name : `${prefix}/${name}`;
      const oldFolder = old?.type === "tree" ? old.oid : undefined;
      const newFolder = next?.type === "tree" ? next.oid : undefined;
      if (oldFolder !== undefined || newFolder !== undefined) folders.push(compare(oldFolder, newFolder, full));
      if (old !== undefined && old.type !== "tree") before.set(full, { oid: old.oid, mode: parseInt(old.mode, 8) });
      if (next !== undefined && next.type !== "tree") after.set(full, { oid: next.oid, mode: parseInt(next.mode, 8) });
    }
    await Promise.all(folders);
  };
  await compare(oldTree, newTree, "");
  return { before, after };
}

/** The oid and mode at `path` in a tree, or undefined when nothing is there. */
export async function entryAt(repository: Repository, treeOid: string, path: string): Promise<{ oid: string; type: string } | undefined> {
  let oid = treeOid;
  let type = "tree";
  for (const segment of path.split("/")) {
    if (type !== "tree") return undefined;
    const entry = (await readTreeEntries(repository, oid)).find((candidate) => candidate.path === segment);
    if (entry === undefined) return undefined;
    ({ oid, type } = entry);
  }
  return { oid, type };
}
