/**
 * clio's own folder in a workspace, `.clio` (config, memory, the code index, kept outputs).
 * When clio creates it, it writes `.clio/.gitignore` ignoring everything, so none of it ends up
 * in commits; a `.clio` the person made themselves (e.g. to commit a shared config) is left as is.
 */
import { promises as fs } from "node:fs";
import path from "node:path";

export const CLIO_FOLDER = ".clio";

/** What clio writes into a `.clio` folder it creates. */
export const CLIO_GITIGNORE = "# Written by clio: its state stays out of commits.\n*\n";

/** True when one of the path's segments is `.clio` (any case, any depth). */
export function isInClioFolder(relative: string): boolean {
  return relative.split(/[\\/]/).some((segment) => segment.toLowerCase() === CLIO_FOLDER);
}

/**
 * `mkdir -p folder`; when that creates a `.clio` folder on the way, writes its `.gitignore`.
 * Throws what mkdir throws.
 */
export async function makeFolder(folder: string): Promise<void> {
  const firstCreated = await fs.mkdir(folder, { recursive: true });
  if (firstCreated === undefined) return;
  const segments = folder.split(path.sep);
  const clioIndex = segments.lastIndexOf(CLIO_FOLDER);
  if (clioIndex < 0) return;
  const clioFolder = segments.slice(0, clioIndex + 1).join(path.sep);
  if (path.relative(firstCreated, clioFolder).startsWith("..")) return;
  await fs.writeFile(path.join(clioFolder, ".gitignore"), CLIO_GITIGNORE, { flag: "wx" }).catch(() => undefined);
}
