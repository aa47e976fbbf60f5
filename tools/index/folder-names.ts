/** A folder listed again to confirm the names a walk saw in it (change-check.ts, for a folder whose mtime was too recent to trust). */
import { readdirSync, statSync } from "node:fs";

/**
 * True when the folder at `absolute` still has the mtime `mtimeMs` and holds exactly `names`
 * (as a walk lists them: every entry, sorted by code unit); false for anything else, a folder
 * gone or unreadable, or `names` not a list of them.
 */
export function holdsTheSameNames(absolute: string, mtimeMs: number, names: unknown): boolean {
  if (!Array.isArray(names)) return false;
  let listed: string[];
  try {
    // The default order of a sort of strings is by code unit, as a walk sorts.
    listed = readdirSync(absolute).sort();
    // Read after the listing: a change between the two moves the mtime.
    if (statSync(absolute).mtimeMs !== mtimeMs) return false;
  } catch {
    return false;
  }
  return listed.length === names.length && listed.every((name, position) => name === names[position]);
}
