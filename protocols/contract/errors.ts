/**
 * The codes the protocol contract owns: a command that does not fit the language or a protocol's
 * definition (the checker reports them; a handler may too). Together with the tool layer's codes
 * they are what a protocol can fail with.
 */
import { ClioError, hasErrorMarker } from "../../grammar/errors.js";
import type { ToolErrorCode } from "../../tools/errors.js";

/** Errors in how a command was written: the model can fix them by writing it again. */
export const LANGUAGE_ERROR_CODES = ["syntax_error", "unknown_protocol", "unknown_action", "missing_parameter", "unknown_parameter"] as const;

export type LanguageErrorCode = (typeof LANGUAGE_ERROR_CODES)[number];

export type ProtocolErrorCode = LanguageErrorCode | ToolErrorCode;

const protocolErrorMarker = Symbol.for("clio.error.protocol");

/** An error a protocol handler throws about its own command (a parameter another one needs, say). */
export class ProtocolError extends ClioError<ProtocolErrorCode> {
  readonly [protocolErrorMarker] = true;

  static override isInstance(value: unknown): value is ProtocolError {
    return hasErrorMarker(value, protocolErrorMarker);
  }
}
