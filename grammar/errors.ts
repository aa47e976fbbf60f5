/**
 * The base of every error clio throws, shared by all layers. It sits in grammar/, the bottom
 * layer, because its shape is the language's: a parse error and a failed command's result both
 * carry a code, a message and a hint that says how to write it right (protocol-language.md §5, §6).
 * Each layer derives its own class with the codes it owns (tools/errors.ts,
 * protocols/contract/errors.ts, src/errors.ts). Errors are recognised by a marker
 * (`Symbol.for("clio.error")`), which survives two copies of a module, never by `name`.
 */

/** An error as data: what a result carries and a model reads. */
export interface ErrorData<Code extends string = string> {
  code: Code;
  message: string;
  hint?: string;
}

const clioErrorMarker = Symbol.for("clio.error");

/** True when `value` is an object carrying the given class marker. */
export function hasErrorMarker(value: unknown, marker: symbol): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
}

/**
 * An error with a code, a hint and the name of the caller that raised it (`FILE_OP.read`,
 * `config`), in the style of isomorphic-git's error classes.
 */
export class ClioError<Code extends string = string> extends Error {
  readonly [clioErrorMarker] = true;
  readonly code: Code;
  readonly hint?: string;
  /** Who raised it: a protocol action (`GIT.commit`) or a part of the application (`config`). */
  caller?: string;

  constructor(code: Code, message: string, hint?: string, options: { caller?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    if (hint !== undefined) this.hint = hint;
    if (options.caller !== undefined) this.caller = options.caller;
  }

  toData(): ErrorData<Code> {
    return this.hint === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, hint: this.hint };
  }

  /** True for any clio error, from any layer (and from any copy of this module). */
  static isInstance(value: unknown): value is ClioError {
    return hasErrorMarker(value, clioErrorMarker);
  }
}
