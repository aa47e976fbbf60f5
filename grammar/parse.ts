/**
 * One-shot parsing: one StreamingScanner fed the whole text, so one-shot and streaming
 * results cannot disagree. Never throws.
 */
import type { ParseResult, SyntaxError } from "./ast.js";
import { CallScanner } from "./dialects/call-scanner.js";
import type { CallVocabulary } from "./dialects/vocabulary.js";
import type { ParseEvent } from "./scanner.js";

/** Sorts scanner events into the three lists of a ParseResult (each stays in source order). */
export function collectEvents(events: ParseEvent[], into: ParseResult = { commands: [], mentions: [], errors: [] }): ParseResult {
  for (const event of events) {
    if (event.type === "command") into.commands.push(event.command);
    else if (event.type === "mention") into.mentions.push(event.mention);
    else into.errors.push(event.error);
  }
  return into;
}

/**
 * Finds every command, mention and syntax error in `text`; with a vocabulary, also the calls
 * written in other dialects that name what it holds (§4a).
 */
export function parse(text: string, vocabulary?: CallVocabulary): ParseResult {
  const result: ParseResult = { commands: [], mentions: [], errors: [] };
  try {
    const scanner = new CallScanner(vocabulary);
    collectEvents(scanner.push(text), result);
    collectEvents(scanner.end(), result);
  } catch (caught) {
    result.errors.push(parserFailure(text, caught));
  }
  return result;
}

/** The error that stands for the findings when the scanner threw on `text` (which it never should), at the text's end. */
export function parserFailure(text: string, caught: unknown): SyntaxError {
  const end = { offset: text.length, line: 1, column: 1 };
  return {
    code: "unexpected_character",
    message: `internal: the parser failed (${String(caught)}); please report this with the text that caused it`,
    span: { start: end, end },
  };
}
