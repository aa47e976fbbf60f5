/**
 * What a call written with prose on its line maps to (finding.ts): a JSON call in the middle of a
 * line, or a function call in the middle of a sentence, may describe a call rather than make it;
 * it never runs, and the model is told the command to write.
 */
import type { Command, Span } from "../ast.js";
import { print } from "../printer.js";
import type { MappedCall } from "./mapping.js";
import type { ReadResult } from "./read-call.js";

type MappedError = Extract<MappedCall, { type: "error" }>;

/** A JSON call with prose on its line: an error whose hint is `command`. */
export function inlineError(command: Command, span: Span): MappedError {
  const hint = print(command);
  const message = `This looks like a JSON tool call with prose on its line, so it did not run; to run it, write it as a clio command on a line of its own: ${hint}`;
  return { type: "error", error: { code: "unmapped_call", message, hint, protocol: command.protocol, span } };
}

/**
 * A function call in the middle of a sentence (`Let me call read_file(path="a.ts") to see it.`),
 * read as `read` and mapped as `mapped`: an error whose hint is the command it maps to, or the
 * mapping's own error when that has a hint (one argument without its name, `read_file("a.ts")`).
 * Undefined (text) for anything else: a name with empty parentheses or with arguments that do not
 * read as a call's names a function in prose (`read_file()`, `read_file(path)`).
 */
export function inlineCallOutcome(read: ReadResult, mapped: MappedCall): MappedError | undefined {
  if (read === undefined || "problem" in read || read.args.length === 0) return undefined;
  if (mapped.type === "error") return mapped.error.hint === undefined ? undefined : mapped;
  if (mapped.type !== "command") return undefined;
  const hint = print(mapped.command);
  const message = `This looks like a tool call in the middle of a sentence, so it did not run; to run it, write it as a clio command on a line of its own: ${hint}`;
  return { type: "error", error: { code: "unmapped_call", message, hint, protocol: mapped.command.protocol, span: mapped.command.span } };
}
