/**
 * What goes into the prompt besides the protocols: the project's instruction files (CLIO.md,
 * AGENTS.md, CLAUDE.md, GEMINI.md, from the repository root down to the workspace).
 */
import { open, realpath, stat } from "node:fs/promises";
import path from "node:path";

/** Instruction files read from each folder, in this order, when present (other tools' names included). */
export const INSTRUCTION_FILES = ["CLIO.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"];

/** Most characters of one instruction file that go into the prompt. */
const INSTRUCTION_LIMIT = 8_000;
/** Most characters of all instruction files together; the farthest folders give way first. */
const INSTRUCTIONS_BUDGET = 24_000;

/**
 * The instruction files of the workspace root and of every folder above it up to the
 * repository's root (the nearest folder with `.git`), farthest first and nearest last, within
 * the budget. Each is named by its path from the repository root.
 */
export async function readInstructions(workspaceRoot: string): Promise<{ file: string; text: string }[]> {
  const top = await repositoryRoot(workspaceRoot);
  const folders: string[] = [];
  for (let folder = workspaceRoot; ; folder = path.dirname(folder)) {
    folders.unshift(folder);
    if (folder === top || path.dirname(folder) === folder) break;
  }
  const found: { file: string; text: string }[] = [];
  for (const folder of folders) {
    for (const file of INSTRUCTION_FILES) {
      try {
        const text = await readInsideWorkspace(top, path.join(path.relative(top, folder), file));
        if (text?.trim()) {
          const name = path.relative(top, path.join(folder, file)).split(path.sep).join("/");
          found.push({ file: name, text: text.length > INSTRUCTION_LIMIT ? `${text.slice(0, INSTRUCTION_LIMIT)}\n[… cut at ${INSTRUCTION_LIMIT} characters]` : text });
        }
      } catch {
        // Absent or unreadable: the project simply has no such file.
      }
    }
  }
  let total = found.reduce((sum, entry) => sum + entry.text.length, 0);
  while (total > INSTRUCTIONS_BUDGET && found.length > 1) total -= found.shift()!.text.length;
  return found;
}

/** The nearest folder at or above `start` that holds `.git`; `start` itself when there is none. */
async function repositoryRoot(start: string): Promise<string> {
  for (let folder = start; ; folder = path.dirname(folder)) {
    if (
      await stat(path.join(folder, ".git")).then(
        () => true,
        () => false,
      )
    )
      return folder;
    if (path.dirname(folder) === folder) return start;
  }
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
