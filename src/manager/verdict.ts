/**
 * The permission verdict on one checked command: what the policy is asked (the command, what its
 * rules match of it, the changes it would make), at once when no question is needed.
 */
import type { PermissionClass, PlannedChange } from "../../protocols/contract/protocol.js";
import type { CheckedPaths, Workspace } from "../../tools/workspace.js";
import type { Invocation } from "./check.js";
import { permissionSubject, type PermissionSubject } from "./path-forms.js";
import type { PermissionPolicy, PermissionRequest, PermissionVerdict } from "./permissions.js";

/** A command as the permission policy judges it. */
export interface VerdictSubject {
  invocation: Invocation;
  permissionClass: PermissionClass;
  description: string;
  checkedPaths: CheckedPaths;
  changes: PlannedChange[] | undefined;
}

/** The policy's verdict on `subject` (at once when it needs no question); a policy that fails refuses (nothing runs). */
export function verdictFor(permissions: PermissionPolicy, workspace: Workspace, subject: VerdictSubject): PermissionVerdict | Promise<PermissionVerdict> {
  const { invocation, permissionClass, checkedPaths } = subject;
  const { protocol, action, definition } = invocation;
  const found = permissionSubject(definition, invocation.decoded, { workspace, permissions, protocol, action, permissionClass, checked: checkedPaths });
  if (found instanceof Promise) return found.then((paths) => verdictOn(permissions, permissionRequest(subject, paths)));
  return verdictOn(permissions, permissionRequest(subject, found));
}

/** The policy's verdict on `request`: at once when no question is needed, else the question's promise. */
function verdictOn(permissions: PermissionPolicy, request: PermissionRequest): PermissionVerdict | Promise<PermissionVerdict> {
  try {
    const atOnce = permissions.decideWithoutAsking(request);
    if (atOnce !== undefined) return atOnce;
  } catch (error) {
    return askingFailed(request, error);
  }
  return permissions.decide(request).catch((error: unknown) => askingFailed(request, error));
}

/** What the permission policy is asked: the command, what rules match of it (`paths`), and the changes it would make. */
function permissionRequest({ invocation, permissionClass, description, changes }: VerdictSubject, paths: PermissionSubject): PermissionRequest {
  const request: PermissionRequest = { protocol: invocation.protocol, action: invocation.action, permissionClass, description };
  if (paths.subject !== undefined) request.subject = paths.subject;
  if (paths.subjectIsPath !== undefined) request.subjectIsPath = paths.subjectIsPath;
  if (paths.pathForms !== undefined) request.pathForms = paths.pathForms;
  if (changes) request.changes = changes;
  return request;
}

/** The refusal when asking for permission failed: nothing runs. */
function askingFailed({ protocol, action }: PermissionRequest, error: unknown): PermissionVerdict {
  return {
    allowed: false,
    error: {
      code: "permission_denied",
      message: `${protocol}.${action} was refused: asking for permission failed (${error instanceof Error ? error.message : String(error)}).`,
      hint: "Nothing ran. Try again, or ask the person to allow it in their permission rules.",
    },
  };
}
