/**
 * The forms a path parameter takes for permission rules. A rule must see where a path really
 * lands, whatever its spelling: `./a/../b`, an absolute path (through the workspace root as given
 * or as resolved), a symbolic link, or `\` that a careless rule writer reads as `/`.
 */
import path from "node:path";
import type { Workspace } from "../../tools/workspace.js";

/**
 * Where `value` lands in the workspace as written (workspace-relative, `.` and `..` resolved as
 * the workspace resolves them), where it really leads (symbolic links followed), and, when it
 * holds `\`, its spelling with `\` read as `/`. A path the workspace refuses keeps its raw form:
 * the command fails on it anyway.
 */
export async function pathForms(workspace: Workspace, value: string): Promise<string[]> {
  const forms = new Set<string>();
  try {
    const { relative, real } = await workspace.resolve(value, "read");
    forms.add(relative);
    if (workspace.contains(real)) forms.add(workspace.relativeOf(real));
  } catch {
    forms.add(value);
  }
  if (value.includes("\\")) forms.add(slashed(value));
  return [...forms];
}

/** `value` with `\` read as `/`, normalised: no `.` or `..` segments, no leading `./` or trailing `/`. */
function slashed(value: string): string {
  const normal = path.posix.normalize(value.replace(/\\/g, "/")).replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  return normal === "" ? "." : normal;
}
