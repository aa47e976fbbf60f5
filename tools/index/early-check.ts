/**
 * The first change check of a fresh process, begun before the index code loads: the manifest is
 * read and find (or the stat thread) started as `CodeIndex.open` would start them, while the
 * rest of the index code is loaded and the index opened. find takes about 0.1 s over a
 * 13,000-file tree, and an update waits for it, so every millisecond it starts sooner is one
 * less of waiting. `CodeIndex.open` takes the helpers over (`CodeIndexOptions.helpers`).
 *
 * Loads the check's own modules and Node's, not the index's.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { CheckHelpers, type CheckHelperOptions } from "./check-helpers.js";
import { INDEX_DIRECTORY, type IndexManifest, usableManifest } from "./store.js";

/** Helpers for the index of `root`, with find or the stat thread under way when its manifest asks for them. */
export function beginCheckEarly(root: string, options: CheckHelperOptions): CheckHelpers {
  const helpers = new CheckHelpers(root, options);
  const manifest = storedManifest(root);
  if (manifest !== undefined) helpers.startEarly(manifest);
  return helpers;
}

/** The manifest as stored, when there is one of this format (the index reads it again, under its lock, as it opens). */
function storedManifest(root: string): IndexManifest | undefined {
  try {
    return usableManifest(JSON.parse(readFileSync(path.join(root, INDEX_DIRECTORY, "manifest.json"), "utf8")));
  } catch {
    return undefined;
  }
}
