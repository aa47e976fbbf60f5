/** Whole-file replacement that a reader never sees half done. */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";

/** Writes `content` to `file` atomically: a unique temporary file in the same folder, then rename. */
export async function writeAtomically(file: string, content: string | Uint8Array): Promise<void> {
  const temporary = `${file}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    await fs.writeFile(temporary, content);
    await fs.rename(temporary, file);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}
