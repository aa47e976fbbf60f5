/**
 * The file-system seam of the file tools: the promise API of `node:fs`. Tests pass a copy with
 * one method replaced (a rename that fails) to check what a failure leaves behind.
 */
import { promises } from "node:fs";

export type FileSystem = typeof promises;

export const nodeFileSystem: FileSystem = promises;

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
