/**
 * Code-aware tokens for lexical ranking: identifiers are kept whole (lower-cased) and also
 * split at camelCase, PascalCase, snake_case, kebab-case and digit boundaries; the parts are
 * lightly stemmed so "hashed" meets `hashPassword`.
 */
import { ByteInterner, hashOfBytes } from "./int-tables.js";

const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+/g;

/** Words too common in questions and code to tell chunks apart. */
const STOPWORDS = new Set(
  (
    "a an and are as at be by do does for from how i in into is it its of on or that the this to was what " +
    "when where which who why with we you me my our can should would could get set use used using find show " +
    "code file files function functions method methods return returns"
  ).split(" "),
);

/** A word too common in questions and code to tell chunks apart (lower-case). */
export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}

/** The stopwords by their bytes, so a byte run is checked without making a string. */
const STOPWORD_BYTES = new ByteInterner(256, 1024, 128);
for (const word of STOPWORDS) {
  const bytes = Buffer.from(word, "latin1");
  STOPWORD_BYTES.idOf(bytes, 0, bytes.length, hashOfBytes(bytes, 0, bytes.length));
}

/** Whether source[start, end) (lower-case ASCII) spells a stopword; `hash` is its FNV-1a hash. */
export function isStopwordBytes(source: Uint8Array, start: number, end: number, hash: number): boolean {
  return STOPWORD_BYTES.find(source, start, end, hash) >= 0;
}

const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;

function letterClass(code: number): number {
  if (code >= 97 && code <= 122) return LOWER;
  if (code >= 65 && code <= 90) return UPPER;
  if (code >= 48 && code <= 57) return DIGIT;
  return 0;
}

/**
 * The parts of an identifier whose character codes `codeAt` gives for positions 0..length-1:
 * calls `each(start, end)` for each part, in order. Any character other than an ASCII letter or
 * digit separates parts; a run of capitals before a lower-case letter gives up its last capital
 * to the next word (`HTTPRequest`). Returns how many parts there were.
 */
export function forEachPart(length: number, codeAt: (position: number) => number, each: (start: number, end: number) => void): number {
  let count = 0;
  let position = 0;
  while (position < length) {
    const kind = letterClass(codeAt(position));
    if (kind === 0) {
      position++;
      continue;
    }
    const start = position;
    let end = position + 1;
    if (kind === DIGIT) {
      while (end < length && letterClass(codeAt(end)) === DIGIT) end++;
    } else if (kind === LOWER) {
      while (end < length && letterClass(codeAt(end)) === LOWER) end++;
    } else {
      while (end < length && letterClass(codeAt(end)) === UPPER) end++;
      if (end < length && letterClass(codeAt(end)) === LOWER) {
        // `HTTPRequest`: HTTP is a word, R starts the next; a single capital leads its word.
        if (end - start > 1) end--;
        else while (end < length && letterClass(codeAt(end)) === LOWER) end++;
      }
    }
    each(start, end);
    count++;
    position = end;
  }
  return count;
}

/** Splits one identifier into its lower-case parts (see `forEachPart`): `parseHTTPRequest_v2` → parse, http, request, v, 2. */
export function splitIdentifier(identifier: string): string[] {
  const parts: string[] = [];
  forEachPart(
    identifier.length,
    (position) => identifier.charCodeAt(position),
    (start, end) => parts.push(identifier.slice(start, end).toLowerCase()),
  );
  return parts;
}

/**
 * What every word whose stem starts with `stemmed` begins with: the stem is the start of its
 * word, but for the final y that `ies` becomes. A text without it holds no such word.
 */
export function stemHead(stemmed: string): string {
  return stemmed.length > 1 && stemmed.endsWith("y") ? stemmed.slice(0, -1) : stemmed;
}

const stems = new Map<string, string>();
const STEM_MEMO_LIMIT = 100_000;

/** A light suffix stemmer: enough to meet plurals and verb forms, never below three letters. */
export function stem(word: string): string {
  let base = stems.get(word);
  if (base !== undefined) return base;
  base = stemOnce(word);
  if (stems.size >= STEM_MEMO_LIMIT) stems.clear();
  stems.set(word, base);
  return base;
}

function stemOnce(word: string): string {
  const cut = stemCut(word.length, (position) => word.charCodeAt(position));
  if (cut === 2 * word.length) return word;
  return cut % 2 === 1 ? `${word.slice(0, cut >> 1)}y` : word.slice(0, cut >> 1);
}

const SUFFIXES = ["ations", "ation", "ings", "ing", "ers", "er", "ies", "es", "ed", "ly", "s"].map((suffix) => ({
  codes: Array.from(suffix, (character) => character.charCodeAt(0)),
  /** A doubled consonant before it loses one (`running` → run). */
  undoubles: /^(ing|ed|er|ers|ings)$/.test(suffix),
  toY: suffix === "ies",
}));
/** Letters that stay doubled before a suffix. */
const KEPT_DOUBLE = new Set(Array.from("aeioulsz", (character) => character.charCodeAt(0)));
const CODE_E = 101;
const CODE_S = 115;

/**
 * The stem rule over a word of `length` character codes (`codeAt`): the stem is the word's first
 * n characters, followed by a `y` when `ies` became one; returns 2n + 1 with that `y`, else 2n
 * (2 × length: the word is its own stem). So a string and a byte run are stemmed by one rule.
 */
export function stemCut(length: number, codeAt: (position: number) => number): number {
  let end = length;
  if (length > 4) {
    for (const { codes, undoubles, toY } of SUFFIXES) {
      if (length - codes.length < 3 || !endsWithCodes(length, codeAt, codes)) continue;
      end = length - codes.length;
      if (toY) return 2 * end + 1;
      const last = codeAt(end - 1);
      if (codes.length === 1 && last === CODE_S) end = length;
      else if (undoubles && last === codeAt(end - 2) && !KEPT_DOUBLE.has(last)) end--;
      break;
    }
  }
  if (end >= 4 && codeAt(end - 1) === CODE_E) end--;
  return 2 * end;
}

function endsWithCodes(length: number, codeAt: (position: number) => number, codes: readonly number[]): boolean {
  for (let offset = 1; offset <= codes.length; offset++) if (codeAt(length - offset) !== codes[codes.length - offset]) return false;
  return true;
}

/**
 * The tokens of one identifier: its whole lower-cased form, then its stemmed parts when it has
 * more than one part (or the stem when it has one part and the stem differs). Stopwords and
 * one-letter parts are left out.
 */
export function identifierTokens(identifier: string): string[] {
  if (isLowerCaseWord(identifier)) {
    // One part, already lower-case (most identifiers in code): the general path below gives the same tokens.
    if (identifier.length < 2 || STOPWORDS.has(identifier)) return [];
    const stemmed = stem(identifier);
    return stemmed === identifier ? [identifier] : [identifier, stemmed];
  }
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

/** Only ASCII lower-case letters. */
function isLowerCaseWord(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 97 || code > 122) return false;
  }
  return true;
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

/** Whether lower-cased `text` holds any of `heads` (a token's `stemHead`s): else it holds none of their tokens. */
export function holdsAny(lower: string, heads: readonly string[]): boolean {
  for (let head = 0; head < heads.length; head++) if (lower.includes(heads[head]!)) return true;
  return false;
}

/**
 * How many of the tokens of `text` (as `tokenize` gives them, repeats counted) are in `wanted`.
 * Only identifiers whose lower-cased form holds one of `heads` are split: every token of an
 * identifier holds its own `stemHead` and lies in the identifier's lower-cased form, so `heads`
 * being the `stemHead`s of `wanted` makes this the count `tokenize` would give, without the
 * tokens of the other identifiers (most of a long line).
 */
export function countTokensIn(text: string, wanted: ReadonlySet<string>, heads: readonly string[]): number {
  const identifiers = text.match(IDENTIFIER) ?? [];
  let count = 0;
  for (let at = 0; at < identifiers.length; at++) {
    const identifier = identifiers[at]!;
    if (identifier.length > 64 || !holdsAny(identifier.toLowerCase(), heads)) continue;
    const found = tokensOfIdentifier(identifier);
    for (let token = 0; token < found.length; token++) if (wanted.has(found[token]!)) count++;
  }
  return count;
}

/**
 * The tokens of a text, in order, repeats kept (term frequency counts them): for each
 * identifier its whole lower-cased form, then its stemmed parts when it has more than one part
 * or the stem differs.
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  // All the identifiers at once as strings (no match object each), and indexed loops: searches run this cold on the lines they show.
  const identifiers = text.match(IDENTIFIER) ?? [];
  for (let at = 0; at < identifiers.length; at++) {
    if (identifiers[at]!.length > 64) continue;
    const found = tokensOfIdentifier(identifiers[at]!);
    for (let token = 0; token < found.length; token++) tokens.push(found[token]!);
  }
  return tokens;
}
