/**
 * What an expectation may say varies (trycmd's conventions): in a line, `[..]` matches any text
 * up to the next literal part (or the end of the line); a line that is exactly `...` matches any
 * number of lines, none included. And user redactions: a regular expression whose matches become
 * a placeholder, in recorded and new results alike.
 */

export const ANY_TEXT = "[..]";
export const ANY_LINES = "...";

/** A redaction as the expectation file writes it. */
export interface Redaction {
  pattern: string;
  placeholder: string;
}

export interface CompiledRedaction {
  regex: RegExp;
  placeholder: string;
}

/** A redaction that cannot be used; the message says which and how to fix it. */
export class RedactionError extends Error {}

/** Compiles redactions: a pattern that does not compile, or matches the empty text (and so everything), is an error. */
export function compileRedactions(redactions: readonly Redaction[], where: string): CompiledRedaction[] {
  return redactions.map((redaction, index) => {
    let regex: RegExp;
    try {
      regex = new RegExp(redaction.pattern, "g");
    } catch (error) {
      throw new RedactionError(
        `${where}: redactions.${index}.pattern ${JSON.stringify(redaction.pattern)} is not a valid regular expression (${(error as Error).message}). Fix it (JavaScript syntax; backslashes doubled in JSON).`,
      );
    }
    if (regex.test("")) {
      throw new RedactionError(
        `${where}: redactions.${index}.pattern ${JSON.stringify(redaction.pattern)} matches the empty text, so it would redact everywhere. Make it match at least one character (+ instead of *).`,
      );
    }
    regex.lastIndex = 0;
    if (redaction.placeholder === "") throw new RedactionError(`${where}: redactions.${index}.placeholder is empty; name what was redacted, like "<build-id>".`);
    return { regex, placeholder: redaction.placeholder };
  });
}

export function applyRedactions(text: string, redactions: readonly CompiledRedaction[]): string {
  return redactions.reduce((current, redaction) => current.replace(redaction.regex, () => redaction.placeholder), text);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const linePatterns = new Map<string, RegExp>();

/** Whether one expected line (with `[..]` in it) matches one actual line. */
export function lineMatches(expected: string, actual: string): boolean {
  if (!expected.includes(ANY_TEXT)) return expected === actual;
  let pattern = linePatterns.get(expected);
  if (pattern === undefined) {
    pattern = new RegExp(`^${expected.split(ANY_TEXT).map(escapeRegExp).join(".*?")}$`, "s");
    if (linePatterns.size > 10_000) linePatterns.clear();
    linePatterns.set(expected, pattern);
  }
  return pattern.test(actual);
}

/** Whether an expected text (lines with `[..]`, lines reading `...`) matches an actual text. */
export function textMatches(expected: string, actual: string): boolean {
  if (expected === actual) return true;
  if (!expected.includes(ANY_TEXT) && !expected.includes(ANY_LINES)) return false;
  const wanted = expected.split("\n");
  const got = actual === "" ? [] : actual.split("\n");
  // Classic glob matching over lines, with `...` as the star: linear with one saved backtrack point.
  let i = 0;
  let j = 0;
  let starAt = -1;
  let resumeAt = 0;
  while (j < got.length) {
    if (i < wanted.length && wanted[i] === ANY_LINES) {
      starAt = i++;
      resumeAt = j;
    } else if (i < wanted.length && lineMatches(wanted[i]!, got[j]!)) {
      i++;
      j++;
    } else if (starAt >= 0) {
      i = starAt + 1;
      j = ++resumeAt;
    } else {
      return false;
    }
  }
  while (i < wanted.length && wanted[i] === ANY_LINES) i++;
  return i === wanted.length;
}
