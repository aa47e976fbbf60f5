/**
 * Errors the tool layer throws and the protocol manager turns into result data.
 * Every message says what was wrong; every hint says how to do it right.
 */

export type ErrorCode =
  // language and checking
  | "syntax_error"
  | "unknown_protocol"
  | "unknown_action"
  | "missing_parameter"
  | "unknown_parameter"
  | "invalid_argument"
  | "fabricated_result"
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
  // configuration
  | "invalid_config"
  // providers
  | "not_configured"
  | "provider_error"
  | "rate_limited"
  // anything else
  | "limit_reached"
  | "internal_error";

export interface ErrorData {
  code: ErrorCode;
  message: string;
  hint?: string;
}

/** A typed error a tool may throw. The manager is the one place that catches it. */
export class ClioError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;

  constructor(code: ErrorCode, message: string, hint?: string) {
    super(message);
    this.name = "ClioError";
    this.code = code;
    this.hint = hint;
  }

  toData(): ErrorData {
    return this.hint === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, hint: this.hint };
  }

  static is(value: unknown): value is ClioError {
    return value instanceof ClioError;
  }
}
