/**
 * Commits, trees and blobs read through clio's object reader (object-reader.ts) and parsed.
 * Objects are named by their content's hash, so once read they are kept for the process (a
 * bounded number of commits and trees, a bounded number of bytes of blobs) and never read again.
 */
import type { CommitObject, TreeEntry } from "isomorphic-git";
import { BoundedCache } from "../bounded-cache.js";
import { ToolError } from "../errors.js";
import { missingObject, type GitObject, type ObjectReader } from "./object-reader.js";
import { parseCommit, parseTree } from "./object-parse.js";

/** Where objects come from: a repository's reader and its shallow commits (a Repository is one). */
export interface ObjectSource {
  objects: ObjectReader;
  /** Commits whose parents a shallow clone did not fetch (`.git/shallow`). */
  shallow: ReadonlySet<string>;
}

/** How many commits and trees the process keeps once read (the least recently read go first). */
const KEPT_OBJECTS = 20_000;
const keptObjects = new Map<string, CommitObject | TreeEntry[]>();

function keep<Value extends CommitObject | TreeEntry[]>(oid: string, value: Value): Value {
  keptObjects.set(oid, value);
  if (keptObjects.size > KEPT_OBJECTS) keptObjects.delete(keptObjects.keys().next().value!);
  return value;
}

function kept(oid: string): CommitObject | TreeEntry[] | undefined {
  const value = keptObjects.get(oid);
  if (value !== undefined) {
    keptObjects.delete(oid);
    keptObjects.set(oid, value);
  }
  return value;
}

/** The object `oid`, which must be of type `type`: `not_found` when the repository lacks it. */
export function readObjectOfType(repository: ObjectSource, oid: string, type: GitObject["type"]): Buffer {
  const object = repository.objects.read(oid);
  if (object === undefined) throw missingObject(oid, `a ${type}`);
  if (object.type !== type) {
    throw new ToolError(
      "corrupt_file",
      `The object ${oid} is a ${object.type} where the repository names a ${type}; nothing was changed.`,
      "Run `git fsck` to see what is damaged.",
    );
  }
  return object.content;
}

/**
 * A commit, parsed (kept for the process once read). A commit the repository lists as shallow
 * (`.git/shallow`: its parents were not fetched) comes back without parents, as git shows it.
 */
export async function readCommitObject(repository: ObjectSource, oid: string): Promise<CommitObject> {
  let commit = kept(oid);
  if (commit === undefined || Array.isArray(commit)) commit = keep(oid, parseCommit(oid, readObjectOfType(repository, oid, "commit")));
  return repository.shallow.has(oid) ? { ...commit, parent: [] } : commit;
}

/** A tree's entries (kept for the process once read). */
export async function readTreeEntries(repository: ObjectSource, oid: string): Promise<TreeEntry[]> {
  const known = kept(oid);
  if (Array.isArray(known)) return known;
  return keep(oid, parseTree(oid, readObjectOfType(repository, oid, "tree")));
}

/** How many bytes of blobs the process keeps once read (the least recently read go first). */
const KEPT_BLOB_BYTES = 64 * 1024 * 1024;
/** Larger blobs are not kept: one would push out many small ones. */
const KEPT_BLOB_LARGEST = 1024 * 1024;
const keptBlobs = new BoundedCache<string, Buffer>(KEPT_BLOB_BYTES, KEPT_BLOB_LARGEST);

/** Reads a blob's bytes (small blobs are kept for the process once read). Do not modify the buffer. */
export async function readBlob(repository: ObjectSource, oid: string): Promise<Buffer> {
  const known = keptBlobs.get(oid);
  if (known !== undefined) return known;
  const content = readObjectOfType(repository, oid, "blob");
  keptBlobs.set(oid, content, content.length);
  return content;
}
