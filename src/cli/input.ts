/** Reading a command's input: a file, or standard input for `-` or no file. */
import { readFile } from "node:fs/promises";

export class InputError extends Error {}

export async function readInput(file: string | undefined): Promise<string> {
  if (file === undefined || file === "-") {
    if (process.stdin.isTTY) throw new InputError("No input: give a FILE, or pipe text into standard input (clio parse - < reply.md).");
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a folder" : code === "EACCES" ? "permission denied" : (error as Error).message;
    throw new InputError(`Cannot read ${file}: ${reason}.`);
  }
}

/** Exit status for input that cannot be read. */
export const EXIT_UNREADABLE = 2;

/** Reads the input, or reports why it cannot be read and gives the exit status to use. */
export async function readInputOrReport(file: string | undefined, commandName: string): Promise<{ text: string } | { exitCode: number }> {
  try {
    return { text: await readInput(file) };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    process.stderr.write(`clio ${commandName}: ${error.message}\n`);
    return { exitCode: EXIT_UNREADABLE };
  }
}
