/**
 * What goes into the prompt besides the protocols: the project's instruction files and the
 * memories relevant to the person's prompt.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";

/** Instruction files read from the workspace root, in this order, when present. */
export const INSTRUCTION_FILES = ["CLIO.md", "AGENTS.md"];

/** Most characters of one instruction file that go into the prompt. */
const INSTRUCTION_LIMIT = 8_000;

export async function readInstructions(workspaceRoot: string): Promise<{ file: string; text: string }[]> {
  const found: { file: string; text: string }[] = [];
  for (const file of INSTRUCTION_FILES) {
    try {
      const text = await readFile(path.join(workspaceRoot, file), "utf8");
      if (text.trim()) {
        found.push({ file, text: text.length > INSTRUCTION_LIMIT ? `${text.slice(0, INSTRUCTION_LIMIT)}\n[… cut at ${INSTRUCTION_LIMIT} characters]` : text });
      }
    } catch {
      // Absent or unreadable: the project simply has no such file.
    }
  }
  return found;
}
