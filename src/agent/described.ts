/**
 * Telling a command from the description of one (docs/protocol.md, "Commands only described").
 * A command that changes something and stands inside a sentence that is a question or a
 * conditional — "I would run [GIT:action=reset:mode=hard] if you agree" — was not meant to run.
 * A command on a line of its own always runs; so does one that only reads.
 */
import type { Span } from "../../grammar/ast.js";
import type { ResultError } from "../errors.js";

const CONDITIONAL =
  /\b(?:if|unless|would|could|might|shall I|should I|may I|can I|want me to|do you want|would you like|once you|after you|when you (?:confirm|agree|approve|say)|let me know|with your (?:ok|okay|permission|approval)|otherwise)\b/i;
const SENTENCE_END = /[.!?](?=\s|$)/;

/**
 * The sentence around the command at `span` in `text` when it is a question or a conditional,
 * else undefined. Only the command's own line is looked at.
 */
export function hypotheticalSentence(text: string, span: Span): string | undefined {
  const lineStart = text.lastIndexOf("\n", span.start.offset - 1) + 1;
  let lineEnd = text.indexOf("\n", span.end.offset);
  if (lineEnd < 0) lineEnd = text.length;
  const before = text.slice(lineStart, span.start.offset);
  const after = text.slice(span.end.offset, lineEnd);
  if (before.trim() === "" && /^[\s.,;:!]*$/.test(after)) return undefined;
  const boundary = Math.max(before.lastIndexOf(". "), before.lastIndexOf("! "), before.lastIndexOf("? "));
  const opening = boundary < 0 ? before : before.slice(boundary + 2);
  const end = SENTENCE_END.exec(after);
  const closing = end ? after.slice(0, end.index + 1) : after;
  const words = `${opening} … ${closing}`;
  if (closing.trimEnd().endsWith("?") || CONDITIONAL.test(words)) return `${opening}${text.slice(span.start.offset, span.end.offset)}${closing}`.trim();
  return undefined;
}

/** The error for a state-changing command written inside a question or conditional. */
export function describedOnlyError(sentence: string, command: string): ResultError {
  const shown = sentence.length > 160 ? `${sentence.slice(0, 157)}…` : sentence;
  return {
    code: "described_only",
    message: `Not run: this command changes things and stands in a question or conditional sentence ("${shown}"), so it reads as a description, not an instruction.`,
    hint: `To run it, write it on a line of its own: ${command}. To ask first, describe it in words or \`inline code\` and wait for the answer.`,
  };
}
