/**
 * What goes into the prompt besides the protocols: the project's instruction files and the
 * memories relevant to the person's prompt.
 */
import { open, realpath, stat } from "node:fs/promises";
import path from "node:path";

/** Instruction files read from the workspace root, in this order, when present. */
export const INSTRUCTION_FILES = ["CLIO.md", "AGENTS.md"];

/** Most characters of one instruction file that go into the prompt. */
const INSTRUCTION_LIMIT = 8_000;

export async function readInstructions(workspaceRoot: string): Promise<{ file: string; text: string }[]> {
  const found: { file: string; text: string }[] = [];
  for (const file of INSTRUCTION_FILES) {
    try {
      const text = await readInsideWorkspace(workspaceRoot, file);
      if (text?.trim()) {
        found.push({ file, text: text.length > INSTRUCTION_LIMIT ? `${text.slice(0, INSTRUCTION_LIMIT)}\n[… cut at ${INSTRUCTION_LIMIT} characters]` : text });
      }
    } catch {
      // Absent or unreadable: the project simply has no such file.
    }
  }
  return found;
}

/**
 * The start of a regular file whose real location is inside the workspace, or undefined: a
 * symlink out of a cloned project must not carry the person's own files to the model, and a
 * FIFO or device would block or never end.
 */
async function readInsideWorkspace(workspaceRoot: string, file: string): Promise<string | undefined> {
  const root = await realpath(workspaceRoot);
  const real = await realpath(path.join(workspaceRoot, file));
  const relative = path.relative(root, real);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return undefined;
  if (!(await stat(real)).isFile()) return undefined;
  const handle = await open(real, "r");
  try {
    // Enough bytes for the character limit in any UTF-8 text, and one more to know it was cut.
    const buffer = Buffer.alloc(INSTRUCTION_LIMIT * 4 + 4);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}
