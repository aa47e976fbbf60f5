import { type ChildProcess, spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { ClioError } from "../../grammar/errors.js";

const childScript = fileURLToPath(new URL("./fixtures/session-child.ts", import.meta.url));

/** A fresh real folder under the OS temp folder. */
export async function makeTempDir(label: string): Promise<string> {
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), `clio-${label}-`)));
}

/** The ClioError a promise rejects with (fails the test if it resolves or throws something else). */
export async function rejection(promise: Promise<unknown>): Promise<ClioError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(ClioError.isInstance(error), `expected a ClioError, got ${String(error)}`).toBe(true);
  return error as ClioError;
}

export interface Child {
  process: ChildProcess;
  /** What the child printed after "ready ". */
  readyValue: string;
  /** Resolves with the exit code or signal once the child is gone. */
  exited: Promise<number | NodeJS.Signals | null>;
}

/** Starts test/sessions/fixtures/session-child.ts and waits for its "ready" line. */
export async function startChild(args: string[]): Promise<Child> {
  const child = spawn(process.execPath, ["--import", "tsx", childScript, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const readyValue = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^ready (\S+)\n/m.exec(stdout);
      if (match) resolve(match[1]!);
    });
    void exited.then((outcome) => reject(new Error(`child exited (${String(outcome)}) before it was ready: ${stderr}`)));
  });
  return { process: child, readyValue, exited };
}
