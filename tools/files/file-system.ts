/**
 * The file-system seams of the file tools: the promise API of `node:fs`, and the few synchronous
 * calls that read a small file whole (on this kind of machine one synchronous read costs a
 * fraction of the four promise calls it replaces). Tests pass a copy with one method replaced (a
 * rename that fails) to check what a failure leaves behind.
 */
import { closeSync, fstatSync, openSync, promises, readlinkSync, readSync } from "node:fs";

export type FileSystem = typeof promises;

export const nodeFileSystem: FileSystem = promises;

/**
 * The synchronous calls that read a small file whole, and the one that tells what an open
 * descriptor refers to (its link under /proc/self/fd).
 */
export interface SyncReads {
  openSync: typeof openSync;
  fstatSync: typeof fstatSync;
  readSync: typeof readSync;
  closeSync: typeof closeSync;
  readlinkSync: (path: string) => string;
}

export const nodeSyncReads: SyncReads = { openSync, fstatSync, readSync, closeSync, readlinkSync: (path) => readlinkSync(path) };

/** The `code` of a Node system error (`ENOENT`, `EXDEV`, ...), or undefined. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : undefined;
}

/** Runs `operation`; a missing file yields `undefined` instead of an error. */
export async function unlessMissing<Value>(operation: Promise<Value>): Promise<Value | undefined> {
  try {
    return await operation;
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return undefined;
    throw error;
  }
}
