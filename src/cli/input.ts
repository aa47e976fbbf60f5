/** Reading a command's input: a file, or standard input for `-` or no file. */
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Readable } from "node:stream";

export class InputError extends Error {}

export async function readInput(file: string | undefined): Promise<string> {
  if (file === undefined || file === "-") {
    if (process.stdin.isTTY) throw new InputError("No input: give a FILE, or pipe text into standard input (clio parse - < reply.md).");
    return (await readPipedInput()) ?? "";
  }
  try {
    return await readFileOrPipe(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a folder" : code === "EACCES" ? "permission denied" : (error as Error).message;
    throw new InputError(`Cannot read ${file}: ${reason}.`);
  }
}

/**
 * A file's text, read at once as the command starts (an asynchronous read was a round trip to the
 * thread pool). A named pipe is read through the event loop instead: the open does not wait for a
 * writer (O_NONBLOCK), so until one comes the command still answers SIGTERM, whose handler
 * (main.ts) is JavaScript that a blocking open, waiting in the kernel, would never let run.
 */
async function readFileOrPipe(file: string): Promise<string> {
  const descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  let handedOver = false;
  try {
    const stat = fstatSync(descriptor);
    if (stat.isFIFO()) {
      handedOver = true;
      // Loaded here only (a cached script has no dynamic import): most inputs are files.
      const { Socket } = createRequire(import.meta.url)("node:net") as typeof import("node:net");
      return await readToEnd(new Socket({ fd: descriptor, readable: true, writable: false }));
    }
    // A device (a terminal, /dev/stdin on one) is read as before, blocking: a non-blocking read there fails with EAGAIN.
    if (stat.isCharacterDevice()) return readFileSync(file, "utf8");
    return readFileSync(descriptor, "utf8");
  } finally {
    if (!handedOver) closeSync(descriptor);
  }
}

/** A stream's bytes to its end, as UTF-8 text; the stream is closed either way. */
function readToEnd(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    stream.once("error", (error) => {
      stream.destroy();
      reject(error);
    });
  });
}

/** How long `-p` with a prompt waits for the first piped byte (override: CLIO_STDIN_WAIT_MS). */
export const DEFAULT_STDIN_WAIT_MS = 5000;

/**
 * Reads piped standard input to its end. With `waitMs`, gives up — returning undefined — when
 * not one byte has arrived by then: an open pipe nobody writes to (a CI runner's stdin) must not
 * hang the command. Once anything arrives, it reads to the end however long that takes.
 */
export function readPipedInput(waitMs?: number): Promise<string | undefined> {
  const stdin = process.stdin;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const finish = () => {
      if (timer !== undefined) clearTimeout(timer);
      stdin.off("data", onData).off("end", onEnd).off("error", onError);
    };
    const onData = (chunk: Buffer) => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      chunks.push(chunk);
    };
    const onEnd = () => {
      finish();
      resolve(Buffer.concat(chunks).toString("utf8"));
    };
    const onError = (error: Error) => {
      finish();
      reject(error);
    };
    let timer: NodeJS.Timeout | undefined =
      waitMs === undefined
        ? undefined
        : setTimeout(() => {
            finish();
            stdin.destroy();
            resolve(undefined);
          }, waitMs);
    stdin.on("data", onData).once("end", onEnd).once("error", onError);
  });
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
