/**
 * Writing a download atomically: the bytes go to a temporary file in the target's own
 * folder, which is renamed over the target only when everything arrived. On any failure
 * (size cap, timeout, cancel, connection lost) the temporary file is removed, so a partial
 * download never appears under the target's name.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import { randomHex } from "../node-crypto.js";

export interface WrittenFile {
  bytes: number;
  /** True when a file already stood at the target and was replaced. */
  replaced: boolean;
}

/** Refuses a target that is a folder; tells whether a file is already there. */
export async function checkDownloadTarget(absolute: string, shown: string): Promise<boolean> {
  try {
    const stat = await fs.stat(absolute);
    if (!stat.isFile()) {
      throw new ToolError("not_a_file", `${shown} is a folder, not a file.`, 'Give the file name to save to, e.g. path="downloads/archive.zip".');
    }
    return true;
  } catch (error) {
    if (ToolError.isInstance(error)) throw error;
    return false;
  }
}

/** Streams `chunks` into `absolute` through a temporary sibling file and a rename. */
export async function writeAtomically(absolute: string, chunks: AsyncIterable<Buffer>): Promise<WrittenFile> {
  const folder = path.dirname(absolute);
  const firstCreated = await fs.mkdir(folder, { recursive: true });
  const replaced = await fs.stat(absolute).then(
    () => true,
    () => false,
  );
  const temporary = path.join(folder, `.${path.basename(absolute)}.${randomHex(6)}.download`);
  const handle = await fs.open(temporary, "wx");
  let bytes = 0;
  try {
    try {
      for await (const chunk of chunks) {
        await handle.write(chunk);
        bytes += chunk.length;
      }
    } finally {
      await handle.close();
    }
    await fs.rename(temporary, absolute);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    if (firstCreated !== undefined) await removeEmptyFolders(folder, firstCreated);
    throw error;
  }
  return { bytes, replaced };
}

/** Removes the folders a failed download created, deepest first, as long as they are empty. */
async function removeEmptyFolders(deepest: string, topmost: string): Promise<void> {
  for (let current = deepest; current.startsWith(topmost); current = path.dirname(current)) {
    try {
      await fs.rmdir(current);
    } catch {
      return;
    }
    if (current === topmost) return;
  }
}
