/** Finds clio's own folder (where package.json, sessions/ and docs/ are), from source or bundle. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

export function packageRoot(): string {
  if (cached) return cached;
  let folder = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(folder, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "clio") {
      cached = folder;
      return folder;
    }
    const parent = path.dirname(folder);
    if (parent === folder) throw new Error("clio's package.json was not found above its code.");
    folder = parent;
  }
}
