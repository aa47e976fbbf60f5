/**
 * Character classes of the protocol language (contract §1–§2), as lookup tables indexed by
 * UTF-16 code unit (< 128) so the hot loops never run a regular expression per character.
 */

function table(characters: string, ranges: [string, string][] = []): Uint8Array {
  const result = new Uint8Array(128);
  for (const character of characters) result[character.charCodeAt(0)] = 1;
  for (const [from, to] of ranges) {
    for (let code = from.charCodeAt(0); code <= to.charCodeAt(0); code++) result[code] = 1;
  }
  return result;
}

const LETTERS: [string, string][] = [
  ["A", "Z"],
  ["a", "z"],
];
const ALPHANUMERIC: [string, string][] = [...LETTERS, ["0", "9"]];

/** First character of a protocol NAME: `[A-Za-z]`. */
export const NAME_FIRST = table("", LETTERS);
/** Further characters of a NAME: `[A-Za-z0-9_]`. */
export const NAME_REST = table("_", ALPHANUMERIC);
/** First character of a KEY (and of a heredoc TAG): `[A-Za-z_]`. */
export const KEY_FIRST = table("_", LETTERS);
/** Further characters of a KEY: `[A-Za-z0-9_-]`. */
export const KEY_REST = table("_-", ALPHANUMERIC);
/** Further characters of a heredoc TAG: `[A-Za-z0-9_]`. */
export const TAG_REST = NAME_REST;
/** Characters of a bare value (padding `=` aside): `A-Z a-z 0-9 + / _ . , @ % ~ -`. */
export const BARE = table("+/_.,@%~-", ALPHANUMERIC);

export const SPACE = 0x20;
export const TAB = 0x09;
export const LINE_FEED = 0x0a;
export const CARRIAGE_RETURN = 0x0d;
export const OPEN_BRACKET = 0x5b; // [
export const CLOSE_BRACKET = 0x5d; // ]
export const OPEN_BRACE = 0x7b; // {
export const OPEN_PARENTHESIS = 0x28; // (
export const BACKSLASH = 0x5c;
export const BACKTICK = 0x60;
export const TILDE = 0x7e;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const SEMICOLON = 0x3b;
export const EQUALS = 0x3d;
export const LESS_THAN = 0x3c;
export const GREATER_THAN = 0x3e;
export const PIPE = 0x7c;
export const FULLWIDTH_OPEN_BRACKET = 0xff3b; // ［
export const QUOTE = 0x22;

/** Whitespace between the pieces of a command: space, tab, carriage return, line feed. */
export function isWhitespace(code: number): boolean {
  return code === SPACE || code === LINE_FEED || code === TAB || code === CARRIAGE_RETURN;
}

/** A space or a tab: what separates words on one line. */
export function isSpaceOrTab(code: number): boolean {
  return code === SPACE || code === TAB;
}

/** A character regular expressions call `\s`: JavaScript's white space and line terminators. */
export function isRegexSpace(code: number): boolean {
  if (code <= 0x20) return code === SPACE || (code >= TAB && code <= CARRIAGE_RETURN);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** Whether `text` is a complete bare value: `B+ (ws+ B+)* ("=" | "==")?`. */
export const BARE_VALUE = /^[A-Za-z0-9+/_.,@%~-]+(?:[ \t\r\n]+[A-Za-z0-9+/_.,@%~-]+)*(?:==?)?$/;

/** Space separators, controls and format characters beyond ASCII: they look like nothing, or like a space. */
const INVISIBLE = /^[\p{Z}\p{C}]$/u;

function codePoint(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Describes one character (a UTF-16 code unit) for an error message: `"x"`, `a line break`,
 * `U+0007`, `U+00A0 (an invisible or space-like character)`. Half of a surrogate pair is
 * described as such, without looking at its other half (which may not have arrived yet).
 */
export function describeCharacter(code: number | undefined): string {
  if (code === undefined) return "the end of the text";
  if (code === LINE_FEED) return "a line break";
  if (code === SPACE) return "a space";
  if (code === TAB) return "a tab";
  if (code === CARRIAGE_RETURN) return "a carriage return";
  if (code < 0x20 || code === 0x7f) return codePoint(code);
  if (code >= 0xd800 && code <= 0xdfff) return "a character beyond U+FFFF (such as an emoji)";
  const character = String.fromCharCode(code);
  if (code > 0x7f && INVISIBLE.test(character)) return `${codePoint(code)} (an invisible or space-like character)`;
  return JSON.stringify(character);
}

/**
 * Stop masks for the scanner's fast path: for every UTF-16 code unit, one bit per situation
 * telling whether that character needs the full scanner there. One table lookup per character.
 */
export const Stops = {
  text: 1,
  fence: 2,
  recover: 4,
  lineFeed: 8,
  codeHold: 16,
  bare: 32,
  quoted: 64,
  name: 128,
  key: 256,
  space: 512,
  lineStart: 1024,
  nameFirst: 2048,
  /** Characters that end a line's beginning (anything but markers, indentation and fence runs). */
  prefix: 4096,
  /** The rest of a broken quoted value (command-machine.ts): quotes, escapes, brackets and line breaks. */
  broken: 8192,
  /** What a dialect layer must read while it waits for a call (dialects/call-scanner.ts): `<`, `>`, `[`, `［`, `{`, `(`, line feeds. */
  dialect: 16384,
  /** Every character: a layer beside the scanner that must read each one. */
  every: 32768,
} as const;

/** The bits the scanner's own states use; the two above are a layer's. */
export const SCANNER_STOPS = Stops.dialect - 1;

function buildStops(): Uint16Array {
  const table = new Uint16Array(65536);
  table.fill(Stops.bare | Stops.name | Stops.key | Stops.space | Stops.nameFirst | Stops.prefix | Stops.every, 128);
  for (let code = 0; code < 128; code++) {
    let mask = 0;
    if (code === OPEN_BRACKET || code === BACKSLASH || code === BACKTICK || code === LINE_FEED || code === LESS_THAN) mask |= Stops.text;
    if (!" \t\r>-+*_=#.)`~0123456789".includes(String.fromCharCode(code))) mask |= Stops.prefix;
    if (code === OPEN_BRACKET || code === BACKSLASH || code === LINE_FEED) mask |= Stops.fence;
    if (code === CLOSE_BRACKET || code === LINE_FEED || code === LESS_THAN) mask |= Stops.recover;
    if (code === LINE_FEED) mask |= Stops.lineFeed;
    if (code === BACKTICK || code === LINE_FEED) mask |= Stops.codeHold;
    if (BARE[code] !== 1) mask |= Stops.bare;
    if (code === QUOTE || code === BACKSLASH || code < 0x20) mask |= Stops.quoted;
    if (NAME_REST[code] !== 1) mask |= Stops.name;
    if (KEY_REST[code] !== 1) mask |= Stops.key;
    if (code !== SPACE) mask |= Stops.space;
    if (mask & Stops.text || code === SPACE || code === TAB || code === TILDE || code === CLOSE_BRACKET || code === LESS_THAN) mask |= Stops.lineStart;
    if (NAME_FIRST[code] !== 1) mask |= Stops.nameFirst;
    if (code === QUOTE || code === BACKSLASH || code === OPEN_BRACKET || code === CLOSE_BRACKET || code === LINE_FEED) mask |= Stops.broken;
    if (code === LESS_THAN || code === GREATER_THAN || code === OPEN_BRACKET || code === OPEN_BRACE || code === OPEN_PARENTHESIS || code === LINE_FEED) mask |= Stops.dialect;
    table[code] = mask | Stops.every;
  }
  table[FULLWIDTH_OPEN_BRACKET] = table[FULLWIDTH_OPEN_BRACKET]! | Stops.dialect;
  // A carriage return may be a line ending (line-endings.ts): the full scanner decides, in every state.
  table[CARRIAGE_RETURN] = 0xffff;
  return table;
}

export const STOPS = buildStops();
