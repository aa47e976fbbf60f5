/**
 * Code-aware tokens for lexical ranking: identifiers are kept whole (lower-cased) and also
 * split at camelCase, PascalCase, snake_case, kebab-case and digit boundaries; the parts are
 * lightly stemmed so "hashed" meets `hashPassword`.
 */

const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+/g;

/** Words too common in questions and code to tell chunks apart. */
const STOPWORDS = new Set(
  (
    "a an and are as at be by do does for from how i in into is it its of on or that the this to was what " +
    "when where which who why with we you me my our can should would could get set use used using find show " +
    "code file files function functions method methods return returns"
  ).split(" "),
);

/** Splits one identifier into its lower-case parts: `parseHTTPRequest_v2` → parse, http, request, v, 2. */
export function splitIdentifier(identifier: string): string[] {
  const parts: string[] = [];
  for (const piece of identifier.split(/[_$\-]+/)) {
    if (piece === "") continue;
    const words = piece.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g);
    if (words === null) continue;
    for (const word of words) parts.push(word.toLowerCase());
  }
  return parts;
}

/** A light suffix stemmer: enough to meet plurals and verb forms, never below three letters. */
export function stem(word: string): string {
  let base = word;
  if (word.length > 4) {
    for (const suffix of ["ations", "ation", "ings", "ing", "ers", "er", "ies", "es", "ed", "ly", "s"]) {
      if (!word.endsWith(suffix) || word.length - suffix.length < 3) continue;
      base = word.slice(0, -suffix.length);
      if (suffix === "ies") base += "y";
      else if (suffix === "s" && base.endsWith("s")) base = word;
      else if (/^(ing|ed|er|ers|ings)$/.test(suffix) && /([^aeioulsz])\1$/.test(base)) base = base.slice(0, -1);
      break;
    }
  }
  if (base.length >= 4 && base.endsWith("e")) base = base.slice(0, -1);
  return base;
}

/**
 * The tokens of one identifier: its whole lower-cased form, then its stemmed parts when it has
 * more than one part (or the stem when it has one part and the stem differs). Stopwords and
 * one-letter parts are left out.
 */
export function identifierTokens(identifier: string): string[] {
  const list: string[] = [];
  const whole = identifier.toLowerCase();
  const parts = splitIdentifier(identifier);
  if (parts.length <= 1) {
    if (!STOPWORDS.has(whole) && whole.length >= 2) {
      list.push(whole);
      const stemmed = stem(whole);
      if (stemmed !== whole) list.push(stemmed);
    }
  } else {
    list.push(whole);
    for (const part of parts) if (part.length >= 2 && !STOPWORDS.has(part)) list.push(stem(part));
  }
  return list;
}

/** Tokens of one identifier, remembered: code repeats its identifiers, so most are looked up, not split. */
const identifierTokensMemo = new Map<string, readonly string[]>();
const MEMO_LIMIT = 500_000;

function tokensOfIdentifier(identifier: string): readonly string[] {
  let tokens: readonly string[] | undefined = identifierTokensMemo.get(identifier);
  if (tokens !== undefined) return tokens;
  tokens = identifierTokens(identifier);
  if (identifierTokensMemo.size >= MEMO_LIMIT) identifierTokensMemo.clear();
  identifierTokensMemo.set(identifier, tokens);
  return tokens;
}

/**
 * The tokens of a text, in order, repeats kept (term frequency counts them): for each
 * identifier its whole lower-cased form, then its stemmed parts when it has more than one part
 * or the stem differs.
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(IDENTIFIER)) {
    if (match[0].length > 64) continue;
    for (const token of tokensOfIdentifier(match[0])) tokens.push(token);
  }
  return tokens;
}
