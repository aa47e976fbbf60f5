/**
 * An API key that cannot leak by accident: printing, logging, string conversion and JSON
 * serialisation all show `[redacted]`. Only `reveal()` gives the key, for the HTTP client.
 */
import { inspect } from "node:util";

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return "[redacted]";
  }

  toJSON(): string {
    return "[redacted]";
  }

  [inspect.custom](): string {
    return "Secret([redacted])";
  }
}
