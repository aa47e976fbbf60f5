/** Temporary workspaces for tests: a real folder, removed afterwards. */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export async function temporaryFolder(prefix = "clio-test-"): Promise<{ path: string; remove(): Promise<void> }> {
  const folder = await mkdtemp(path.join(os.tmpdir(), prefix));
  return { path: folder, remove: () => rm(folder, { recursive: true, force: true }) };
}
