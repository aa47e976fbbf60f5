/** Temp workspaces for the file and process tool tests: a real folder under os.tmpdir(), removed after. */
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Workspace } from "../../tools/workspace.js";

export interface TempWorkspace {
  /** The parent folder: holds `project/` (the workspace) and siblings outside it. */
  base: string;
  root: string;
  workspace: Workspace;
  /** Writes a file under the workspace root, creating folders. */
  write(relative: string, content: string | Buffer): Promise<string>;
  read(relative: string): Promise<string>;
  exists(relative: string): Promise<boolean>;
  remove(): Promise<void>;
}

export async function makeTempWorkspace(): Promise<TempWorkspace> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "clio-files-")));
  const root = path.join(base, "project");
  await fs.mkdir(root);
  const workspace = await Workspace.open(root);
  return {
    base,
    root,
    workspace,
    async write(relative, content) {
      const absolute = path.join(root, relative);
      await fs.mkdir(path.dirname(absolute), { recursive: true });
      await fs.writeFile(absolute, content);
      return absolute;
    },
    read: (relative) => fs.readFile(path.join(root, relative), "utf8"),
    exists: (relative) =>
      fs.lstat(path.join(root, relative)).then(
        () => true,
        () => false,
      ),
    remove: () => fs.rm(base, { recursive: true, force: true }),
  };
}

/** Makes a character device like /dev/null (needs root's CAP_MKNOD); false where that is not allowed. */
export function makeNullDevice(at: string): boolean {
  try {
    execFileSync("mknod", [at, "c", "1", "3"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
