/**
 * The forms a path parameter takes for permission rules. A rule must see where a path really
 * lands, whatever its spelling: `./a/../b`, an absolute path (through the workspace root as given
 * or as resolved), a symbolic link, or `\` that a careless rule writer reads as `/`.
 */
import path from "node:path";
import type { ActionDefinition, PermissionClass } from "../../protocols/contract/protocol.js";
import type { CheckedPaths, ResolvedPath, Workspace } from "../../tools/workspace.js";
import { parameterNamesOf } from "./parameter-names.js";
import type { PermissionPolicy, PermissionRequest } from "./permissions.js";

/**
 * Every path parameter of a command resolved once, before anything judges it: the permission
 * rules match these, and the action then does its I/O on them (never resolving the text again),
 * so no link swapped in between can send it elsewhere. A path the workspace refuses keeps its
 * error: the action fails with it. The map comes at once when every path resolved without a walk.
 */
export function checkPaths(definition: ActionDefinition, decoded: Record<string, unknown>, workspace: Workspace): CheckedPaths | Promise<CheckedPaths> {
  const checked = new Map<string, ResolvedPath | Error>();
  const pathNames = parameterNamesOf(definition).paths;
  const seen = pathNames.length > 1 ? new Set<string>() : undefined;
  let waiting: Promise<void>[] | undefined;
  for (const name of pathNames) {
    const value = decoded[name];
    const spec = definition.parameters[name]!;
    if (typeof value !== "string" || seen?.has(value)) continue;
    seen?.add(value);
    try {
      // A read's path is often known at once (a remembered folder, one realpath): then no promise.
      const found = spec.opensConfirmed === true ? workspace.resolveCommandPathAtOnce(value) : workspace.resolve(value, "read");
      if (found instanceof Promise)
        (waiting ??= []).push(
          found.then(
            (resolved) => void checked.set(value, resolved),
            (error: unknown) => void checked.set(value, asError(error)),
          ),
        );
      else checked.set(value, found);
    } catch (error) {
      checked.set(value, asError(error));
    }
  }
  return waiting === undefined ? checked : Promise.all(waiting).then(() => checked);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * What permission rules match for one command: the first declared parameter's decoded value,
 * and every form of every path parameter (when a rule reads values, or the action changes
 * something and "always" then covers that file). The real run and the dry run both ask here;
 * `checked` are the command's paths as `checkPaths` resolved them (resolved here when absent).
 */
export function permissionSubject(definition: ActionDefinition, decoded: Record<string, unknown>, context: SubjectContext): PermissionSubject | Promise<PermissionSubject> {
  const { first, paths: pathNames } = parameterNamesOf(definition);
  const subject = first === undefined ? undefined : decoded[first];
  const shown = typeof subject === "string" ? { subject } : {};
  const needed = context.permissionClass !== "read" || context.permissions.readsValues(context.protocol, context.action);
  const paths = needed ? pathNames.filter((name) => typeof decoded[name] === "string") : [];
  // Without path forms to work out, the answer is given at once (no promise per command).
  if (paths.length === 0) return shown;
  return withPathForms(definition, decoded, context, paths, shown);
}

/** What permission rules see of a command (see `permissionSubject`). */
export type PermissionSubject = Pick<PermissionRequest, "subject" | "subjectIsPath" | "pathForms">;

type SubjectContext = { workspace: Workspace; permissions: PermissionPolicy; protocol: string; action: string; permissionClass: PermissionClass; checked?: CheckedPaths };

/** `shown` with every form of the path parameters `paths` and whether the first parameter is a path. */
async function withPathForms(
  definition: ActionDefinition,
  decoded: Record<string, unknown>,
  context: SubjectContext,
  paths: string[],
  shown: { subject?: string },
): Promise<PermissionSubject> {
  const first = Object.keys(definition.parameters)[0];
  const checked = context.checked ?? (await checkPaths(definition, decoded, context.workspace));
  const forms = new Set<string>();
  for (const name of paths) {
    const value = decoded[name] as string;
    for (const form of formsOf(context.workspace, value, checked.get(value))) forms.add(form);
  }
  return { ...shown, subjectIsPath: definition.parameters[first!]!.path === true, pathForms: [...forms] };
}

/**
 * Where `value` lands in the workspace as written (workspace-relative, `.` and `..` resolved as
 * the workspace resolves them), where it really leads (symbolic links followed), and, when it
 * holds `\`, its spelling with `\` read as `/`. A path the workspace refuses keeps its raw form:
 * the command fails on it anyway.
 */
export async function pathForms(workspace: Workspace, value: string): Promise<string[]> {
  const resolved = await workspace.resolve(value, "read").catch((error: Error) => error);
  return formsOf(workspace, value, resolved);
}

function formsOf(workspace: Workspace, value: string, resolved: ResolvedPath | Error | undefined): string[] {
  const forms = new Set<string>();
  if (resolved === undefined || resolved instanceof Error) forms.add(value);
  else {
    forms.add(resolved.relative);
    if (workspace.contains(resolved.real)) forms.add(workspace.relativeOf(resolved.real));
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
