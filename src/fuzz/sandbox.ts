/**
 * The throwaway world one fuzz case runs in:
 *
 *     <base>/workspace/   the workspace: a few files, `link-out` → ../sentinel, `link-file` → ../sentinel/secret.txt
 *     <base>/sentinel/    a sibling folder nothing may change
 *     <base>/home/        HOME and CLIO_HOME while the case runs (user-level state lands here)
 *
 * A snapshot of the sentinel (every entry with its size, mode and content hash) and of the base
 * folder's listing, taken before and after, shows anything written outside the workspace.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";

export interface FuzzSandbox {
  base: string;
  workspace: string;
  sentinel: string;
  home: string;
  /**
   * Removes the sandbox. Resolves with a note when its tree changed while it was being removed
   * (something the case started still wrote into it), after trying again until it was gone;
   * rejects when it could not be removed at all.
   */
  remove(): Promise<string | undefined>;
}

/** Errors of a removal that another try may get past: the tree changed under it, or a file was busy. */
const RETRYABLE = new Set(["ENOTEMPTY", "EBUSY", "EPERM", "EMFILE", "ENFILE"]);

/**
 * Removes the tree at `folder`; undefined when the first try did it, else a note saying why it
 * had to try again (up to about 5 s in all). Rejects when the tree is still there then.
 */
export async function removeTree(folder: string): Promise<string | undefined> {
  try {
    await fs.rm(folder, { recursive: true, force: true });
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    if (!RETRYABLE.has(code)) throw error;
    await fs.rm(folder, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    return `the sandbox changed while it was being removed after dispose() (${code}): something the case started still wrote into it`;
  }
}

const WORKSPACE_FILES: Record<string, string> = {
  "README.md": "# Fuzz workspace\n\nA small project for property checks.\n",
  "notes.txt": "first line\nsecond line\nthird line\n",
  "data.json": '{ "name": "fuzz", "items": [1, 2, 3] }\n',
  "src/main.ts": "export function add(left: number, right: number): number {\n  return left + right;\n}\n",
  "sub/dir/file.txt": "deep file\n",
};

const SENTINEL_FILES: Record<string, string> = {
  "secret.txt": "the sentinel: nothing may change this file\n",
  "folder/inner.txt": "inner sentinel file\n",
};

async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const absolute = path.join(root, relative);
    await fs.mkdir(path.dirname(absolute), { recursive: true });
    await fs.writeFile(absolute, content);
  }
}

/**
 * Creates a fresh sandbox: at `location` (a folder that must not exist yet, so cases of one run
 * share the same absolute paths) or in a new folder under the system temp folder.
 */
export async function createFuzzSandbox(location?: string): Promise<FuzzSandbox> {
  if (location) {
    // Left by a case whose sandbox could not be removed (its problem was reported then).
    await removeTree(location);
    await fs.mkdir(location);
  }
  const base = await fs.realpath(location ?? (await fs.mkdtemp(path.join(os.tmpdir(), "clio-fuzz-"))));
  const workspace = path.join(base, "workspace");
  const sentinel = path.join(base, "sentinel");
  const home = path.join(base, "home");
  await Promise.all([fs.mkdir(workspace), fs.mkdir(sentinel), fs.mkdir(home)]);
  await writeFiles(workspace, WORKSPACE_FILES);
  await writeFiles(sentinel, SENTINEL_FILES);
  await fs.symlink("../sentinel", path.join(workspace, "link-out"));
  await fs.symlink("../sentinel/secret.txt", path.join(workspace, "link-file"));
  return {
    base,
    workspace,
    sentinel,
    home,
    remove: () => removeTree(base),
  };
}

/** Absolute paths outside the workspace of a sandbox at `base`, for the generators to aim at. */
export function outsidePathsFor(base: string): string[] {
  const sentinel = path.join(base, "sentinel");
  return [path.join(sentinel, "secret.txt"), path.join(sentinel, "new.txt"), sentinel, base];
}

/** What must not change: the sentinel's entries and the base folder's listing. */
export type SandboxSnapshot = Map<string, string>;

async function describeTree(root: string, label: string, into: SandboxSnapshot): Promise<void> {
  let entries;
  try {
    entries = await fs.readdir(root, { withFileTypes: true });
  } catch {
    into.set(label, "missing");
    return;
  }
  for (const entry of entries) {
    const absolute = path.join(root, entry.name);
    const key = `${label}/${entry.name}`;
    const stat = await fs.lstat(absolute);
    if (entry.isDirectory()) {
      into.set(key, `dir mode=${stat.mode.toString(8)}`);
      await describeTree(absolute, key, into);
    } else if (entry.isSymbolicLink()) {
      into.set(key, `link -> ${await fs.readlink(absolute)}`);
    } else {
      const hash = createHash("sha256")
        .update(await fs.readFile(absolute))
        .digest("hex")
        .slice(0, 16);
      into.set(key, `file size=${stat.size} mode=${stat.mode.toString(8)} sha=${hash}`);
    }
  }
}

export async function snapshotOutside(sandbox: FuzzSandbox): Promise<SandboxSnapshot> {
  const snapshot: SandboxSnapshot = new Map();
  snapshot.set("base", (await fs.readdir(sandbox.base)).sort().join(","));
  await describeTree(sandbox.sentinel, "sentinel", snapshot);
  return snapshot;
}

/** The changes between two snapshots, one line each (empty when nothing changed). */
export function snapshotChanges(before: SandboxSnapshot, after: SandboxSnapshot): string[] {
  const changes: string[] = [];
  for (const [key, value] of before) {
    const now = after.get(key);
    if (now === undefined) changes.push(`${key} was removed`);
    else if (now !== value) changes.push(`${key} changed: ${value} → ${now}`);
  }
  for (const [key, value] of after) if (!before.has(key)) changes.push(`${key} was created (${value})`);
  return changes;
}
