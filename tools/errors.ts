/**
 * The codes the tool layer owns, and the error it throws with them; the protocol manager turns
 * it into result data. Every message says what was wrong; every hint says how to do it right.
 */
import { ClioError, hasErrorMarker } from "../grammar/errors.js";

export type ToolErrorCode =
  | "invalid_argument"
  // permission and confinement
  | "permission_denied"
  | "outside_workspace"
  | "protected_path"
  // files
  | "not_found"
  | "already_exists"
  | "not_a_file"
  | "not_a_directory"
  | "binary_file"
  | "too_large"
  | "no_match"
  | "stale_file"
  | "ambiguous_match"
  | "directory_not_empty"
  // processes
  | "timeout"
  | "cancelled"
  | "exec_failed"
  | "job_not_found"
  // git
  | "git_error"
  | "not_a_repository"
  | "merge_conflict"
  | "uncommitted_changes"
  | "nothing_to_commit"
  | "push_rejected"
  | "authentication_failed"
  // network
  | "network_error"
  | "blocked_address"
  | "unsupported_scheme"
  | "unsupported_content"
  | "http_error"
  | "too_many_redirects"
  // storage
  | "corrupt_file"
  | "locked"
  | "unsupported_version"
  // a setting the person has to make first (git user.name, a WEB key)
  | "not_configured"
  // anything else
  | "limit_reached"
  | "internal_error";

/**
 * A command a hint suggests: one of the calling protocol's actions and its arguments. Tools never
 * write command syntax; the protocol layer writes the suggestion in the language
 * (protocols/contract/hints.ts), each value in the form its parameter's kind needs.
 */
export interface SuggestedCommand {
  action: string;
  arguments?: Record<string, string>;
}

/** A hint as text and suggested commands, in reading order. */
export type HintPart = string | SuggestedCommand;

/** The hint's words with each suggestion as `action=NAME:key=value` (what a reader sees without the protocol). */
export function plainHint(parts: HintPart[]): string {
  return parts
    .map((part) => (typeof part === "string" ? part : [`action=${part.action}`, ...Object.entries(part.arguments ?? {}).map(([key, value]) => `${key}=${value}`)].join(":")))
    .join("");
}

const toolErrorMarker = Symbol.for("clio.error.tool");

/** A typed error a tool may throw. The manager is the one place that catches it. */
export class ToolError extends ClioError<ToolErrorCode> {
  readonly [toolErrorMarker] = true;
  /** The hint with its suggested commands kept apart, when it suggests any. */
  readonly hintParts?: HintPart[];

  constructor(code: ToolErrorCode, message: string, hint?: string | HintPart[], options: { caller?: string; cause?: unknown } = {}) {
    super(code, message, typeof hint === "object" ? plainHint(hint) : hint, options);
    if (typeof hint === "object") this.hintParts = hint;
  }

  static override isInstance(value: unknown): value is ToolError {
    return hasErrorMarker(value, toolErrorMarker);
  }
}
