/**
 * What isomorphic-git reads again and again, read once. For every object it looks up, the library
 * first tries the loose file (`objects/ab/cdef…`, an open that fails in a packed repository) and
 * then lists `objects/pack`; a `log` of one file's history looks up thousands of objects. The file
 * system given to it here answers those two questions from listings taken once per action, and
 * forgets them whenever the action writes below `objects/`. Between actions, the parsed pack
 * indexes and the objects resolved from them are kept for the process, until the set of packs
 * changes (a `git gc`, a fetch).
 *
 * Its reads are synchronous except for packs: the library reads HEAD, refs, packed-refs and the
 * config ten to twenty times an action, and each of node's promise reads is four trips through
 * the thread pool (open, stat, read, close), which cost far more than these small files' bytes.
 */
import * as nodeFs from "node:fs";
import path from "node:path";

type Promises = typeof nodeFs.promises;

/** The file system isomorphic-git is given: node's promises, with object look-ups answered from listings. */
export interface GitFileSystem {
  promises: Promises;
}

/** Mutations that can add or remove objects: each one below `objects/` drops the listings. */
const MUTATIONS = ["writeFile", "mkdir", "rmdir", "unlink", "rename", "rm", "symlink"] as const;

/** A file system for one action on the repository whose git folder is `gitdir`. */
export function objectListingFileSystem(gitdir: string): GitFileSystem {
  const objects = path.join(gitdir, "objects");
  const packFolder = path.join(objects, "pack");
  let packListing: string[] | undefined;
  let looseFolders: Set<string> | undefined;
  const looseListings = new Map<string, Set<string>>();
  const forget = () => {
    packListing = undefined;
    looseFolders = undefined;
    looseListings.clear();
  };
  const listing = (folder: string): Set<string> => {
    try {
      return new Set(nodeFs.readdirSync(folder));
    } catch {
      return new Set();
    }
  };
  /** True when the loose object file surely does not exist (its folder's listing lacks it). */
  const looseMissing = (folder: string, name: string): boolean => {
    looseFolders ??= listing(objects);
    if (!looseFolders.has(folder)) return true;
    let names = looseListings.get(folder);
    if (names === undefined) {
      names = listing(path.join(objects, folder));
      looseListings.set(folder, names);
    }
    return !names.has(name);
  };
  const readInBackground = (file: nodeFs.PathLike) => typeof file !== "string" || file.startsWith(`${packFolder}${path.sep}`);

  const real = nodeFs.promises;
  const promises: Promises = { ...real };
  let gitdirStat: nodeFs.Stats | undefined;
  promises.stat = (async (file: nodeFs.PathLike, options?: unknown) => {
    if (file !== gitdir || options !== undefined) return nodeFs.statSync(file, options as never);
    gitdirStat ??= nodeFs.statSync(gitdir);
    return gitdirStat;
  }) as Promises["stat"];
  promises.lstat = (async (file: nodeFs.PathLike, options?: unknown) => nodeFs.lstatSync(file, options as never)) as Promises["lstat"];
  promises.readlink = (async (file: nodeFs.PathLike, options?: unknown) => nodeFs.readlinkSync(file, options as never)) as Promises["readlink"];
  promises.readFile = (async (file: nodeFs.PathLike | undefined, options?: unknown) => {
    // isomorphic-git calls readFile() with no path on every API call, to see that it returns a promise.
    if (file === undefined) throw NO_PATH;
    if (typeof file === "string") {
      const loose = looseObjectName(objects, file);
      if (loose !== undefined && looseMissing(loose.folder, loose.name)) throw notFound(file);
    }
    // A pack may be large: read without holding up the process.
    if (readInBackground(file)) return real.readFile(file, options as never);
    return nodeFs.readFileSync(file, options as never);
  }) as Promises["readFile"];
  promises.readdir = (async (folder: nodeFs.PathLike, options?: unknown) => {
    if (folder === packFolder && options === undefined) {
      packListing ??= nodeFs.readdirSync(packFolder);
      return [...packListing];
    }
    return nodeFs.readdirSync(folder, options as never);
  }) as Promises["readdir"];
  const touchesObjects = (args: unknown[]) => args.some((arg) => typeof arg === "string" && (arg === objects || arg.startsWith(`${objects}${path.sep}`)));
  for (const name of MUTATIONS) {
    const original = real[name] as (...args: unknown[]) => Promise<unknown>;
    (promises as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      if (!touchesObjects(args)) return original.apply(real, args);
      // Forgotten before (a look-up while it runs lists again) and after (nothing listed before it is kept).
      forget();
      return original.apply(real, args).finally(forget);
    };
  }
  return { promises };
}

/** `{ folder: "ab", name: "cdef…" }` for a loose object's file below `objects`, else undefined. */
function looseObjectName(objects: string, file: string): { folder: string; name: string } | undefined {
  if (!file.startsWith(objects) || file.charCodeAt(objects.length) !== 0x2f) return undefined;
  const rest = file.slice(objects.length + 1);
  if (rest.length !== 41 || rest.charCodeAt(2) !== 0x2f) return undefined;
  const folder = rest.slice(0, 2);
  const name = rest.slice(3);
  return /^[0-9a-f]{2}$/.test(folder) && /^[0-9a-f]{38}$/.test(name) ? { folder, name } : undefined;
}

const NO_PATH = new TypeError("readFile needs a path");

function notFound(file: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`ENOENT: no such file or directory, open '${file}'`);
  error.code = "ENOENT";
  error.errno = -2;
  error.syscall = "open";
  error.path = file;
  return error;
}

const sharedCaches = new Map<string, { packs: string; cache: object }>();

/**
 * isomorphic-git's cache for a repository (parsed pack indexes, pack contents, objects resolved
 * from deltas), shared by the actions of this process while the set of packs stays the same.
 */
export function sharedObjectCache(gitdir: string): object {
  let names: string[] = [];
  try {
    names = nodeFs.readdirSync(path.join(gitdir, "objects", "pack"));
  } catch {
    // No pack folder yet: no packs.
  }
  const packs = names
    .filter((name) => name.endsWith(".pack") || name.endsWith(".idx"))
    .sort()
    .join("\n");
  const known = sharedCaches.get(gitdir);
  if (known !== undefined && known.packs === packs) return known.cache;
  const cache = {};
  sharedCaches.set(gitdir, { packs, cache });
  return cache;
}
