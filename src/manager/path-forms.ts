/**
 * The forms a path parameter takes for permission rules. A rule must see where a path really
 * lands, whatever its spelling: `./a/../b`, an absolute path (through the workspace root as given
 * or as resolved), a symbolic link, or `\` that a careless rule writer reads as `/`.
 */
import path from "node:path";
import type { ActionDefinition, PermissionClass } from "../../protocols/contract/protocol.js";
import type { Workspace } from "../../tools/workspace.js";
import type { PermissionPolicy, PermissionRequest } from "./permissions.js";

/**
 * What permission rules match for one command: the first declared parameter's decoded value,
 * and every form of every path parameter (when a rule reads values, or the action changes
 * something and "always" then covers that file). The real run and the dry run both ask here.
 */
export async function permissionSubject(
  definition: ActionDefinition,
  decoded: Record<string, unknown>,
  context: { workspace: Workspace; permissions: PermissionPolicy; protocol: string; action: string; permissionClass: PermissionClass },
): Promise<Pick<PermissionRequest, "subject" | "subjectIsPath" | "pathForms">> {
  const names = Object.keys(definition.parameters);
  const first = names[0];
  const subject = first === undefined ? undefined : decoded[first];
  const paths = names.filter((name) => definition.parameters[name]!.path === true && typeof decoded[name] === "string");
  const needed = context.permissionClass !== "read" || context.permissions.readsValues(context.protocol, context.action);
  const shown = typeof subject === "string" ? { subject } : {};
  if (paths.length === 0 || !needed) return shown;
  const forms = new Set<string>();
  for (const name of paths) for (const form of await pathForms(context.workspace, decoded[name] as string)) forms.add(form);
  return { ...shown, subjectIsPath: definition.parameters[first!]!.path === true, pathForms: [...forms] };
}

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
  const normal = path.posix
    .normalize(value.replace(/\\/g, "/"))
    .replace(/^(\.\/)+/, "")
    .replace(/\/+$/, "");
  return normal === "" ? "." : normal;
}
