/**
 * Telling a command from the description of one (docs/protocol.md, "Commands only described").
 * A command that changes something and stands inside a sentence that asks, supposes, says it
 * will not happen or tells what was run before, tells the person what they can do, gives an
 * example, or is a row of a table — "I would run
 * [GIT:action=reset:mode=hard] if you agree", "I won't run [FILE_OP:action=delete:path="src"]" —
 * was not meant to run. A command on a line of its own always runs; so does one that only reads.
 */
import type { Span } from "../../grammar/ast.js";
import type { ResultError } from "../errors.js";

/** Why a sentence describes a command rather than giving it. */
export type DescribedAs = "question" | "conditional" | "negation" | "past" | "addressed" | "example" | "table";

/** The words that make a sentence each kind, tried in this order (a question is told by its `?`). */
const KINDS: ReadonlyArray<[DescribedAs, RegExp]> = [
  [
    "conditional",
    /\b(?:if|unless|would|could|might|shall I|should I|may I|can I|want me to|do you want|would you like|once you|after you|when you (?:confirm|agree|approve|say)|let me know|with your (?:ok|okay|permission|approval)|otherwise)\b/i,
  ],
  ["negation", /\b(?:won't|won’t|will not|wouldn't|wouldn’t|don't|don’t|do not|did not|didn't|didn’t|never|not going to|no need to|instead of|rather than|avoid)\b/i],
  [
    "past",
    /\b(?:(?:I|we|you|they|it) (?:already |just |previously )?(?:ran|executed|tried|used)|(?:I've|I’ve|I have|we've|we’ve|we have|you've|you’ve|you have) (?:already |just )?(?:run|executed|tried|used)|already (?:ran|run|executed|tried)|earlier|previously|last time|the previous|the last (?:command|run|time)|used to|had (?:run|executed))\b/i,
  ],
  ["addressed", /\byou (?:can|could|may|might|should|need to|have to|will need to) (?:run|use|execute|type|call|try|do)\b|\byourself\b/i],
  [
    "example",
    /\b(?:for example|for instance|e\.g\.|such as|example:|an example|looks like|the (?:syntax|format|form) (?:is|for|of)|is written (?:as|like)|works like this|the command (?:is|would be))/i,
  ],
];

const SENTENCE_END = /[.!?](?=\s|$)/;

const SAID: Record<DescribedAs, string> = {
  question: "a question",
  conditional: "a conditional sentence",
  negation: "a sentence that says it will not or need not be done",
  past: "a sentence about what was run before",
  table: "a row of a table",
  addressed: "a sentence that tells the person what they can do",
  example: "a sentence that gives it as an example",
};

/**
 * The sentence around the command at `span` in `text`, and why it describes the command, when it
 * does; else undefined. Only the command's own line is looked at.
 */
export function hypotheticalSentence(text: string, span: Span): { sentence: string; as: DescribedAs } | undefined {
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
  const as = closing.trimEnd().endsWith("?")
    ? "question"
    : before.trimStart().startsWith("|") && after.includes("|")
      ? "table"
      : KINDS.find(([, pattern]) => pattern.test(words))?.[0];
  return as === undefined ? undefined : { sentence: `${opening}${text.slice(span.start.offset, span.end.offset)}${closing}`.trim(), as };
}

/** The error for a state-changing command written inside a sentence that describes it. */
export function describedOnlyError(described: { sentence: string; as: DescribedAs }, command: string): ResultError {
  const { sentence, as } = described;
  const shown = sentence.length > 160 ? `${sentence.slice(0, 157)}…` : sentence;
  return {
    code: "described_only",
    message: `Not run: this command changes things and stands in ${SAID[as]} ("${shown}"), so it reads as a description, not an instruction.`,
    hint: `To run it, write it on a line of its own: ${command}. To ask first, describe it in words or \`inline code\` and wait for the answer.`,
  };
}
