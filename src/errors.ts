/**
 * The codes the application owns (configuration, model providers, the result guard) and the
 * error it throws with them; `ErrorCode` is every code a result or a person can meet.
 */
import { ClioError, type ErrorData, hasErrorMarker } from "../grammar/errors.js";
import type { ProtocolErrorCode } from "../protocols/contract/errors.js";

export type ApplicationErrorCode =
  // a model wrote a result envelope itself
  | "fabricated_result"
  // a command that changes things, written inside a sentence that only describes it (agent/described.ts)
  | "described_only"
  // configuration
  | "invalid_config"
  // providers
  | "provider_error"
  | "rate_limited";

export type ErrorCode = ApplicationErrorCode | ProtocolErrorCode;

/** A result's error: what a model and a person read. */
export type ResultError = ErrorData<ErrorCode>;

const applicationErrorMarker = Symbol.for("clio.error.application");

/** A typed error the application throws (bad config, a provider that failed, a broken session). */
export class ApplicationError extends ClioError<ErrorCode> {
  readonly [applicationErrorMarker] = true;

  static override isInstance(value: unknown): value is ApplicationError {
    return hasErrorMarker(value, applicationErrorMarker);
  }
}
