/**
 * Telling text from binary, guessing a binary's type, and formatting numbered lines.
 */

/** How many leading bytes decide whether a file is text. */
export const SNIFF_BYTES = 8192;

const SIGNATURES: Array<[string, number[], number?]> = [
  ["PNG image", [0x89, 0x50, 0x4e, 0x47]],
  ["JPEG image", [0xff, 0xd8, 0xff]],
  ["GIF image", [0x47, 0x49, 0x46, 0x38]],
  ["WebP/RIFF media", [0x52, 0x49, 0x46, 0x46]],
  ["PDF document", [0x25, 0x50, 0x44, 0x46]],
  ["ZIP archive (or docx/xlsx/jar)", [0x50, 0x4b, 0x03, 0x04]],
  ["gzip archive", [0x1f, 0x8b]],
  ["bzip2 archive", [0x42, 0x5a, 0x68]],
  ["xz archive", [0xfd, 0x37, 0x7a, 0x58, 0x5a]],
  ["7-Zip archive", [0x37, 0x7a, 0xbc, 0xaf]],
  ["ELF executable", [0x7f, 0x45, 0x4c, 0x46]],
  ["Mach-O executable", [0xcf, 0xfa, 0xed, 0xfe]],
  ["Windows executable", [0x4d, 0x5a]],
  ["WebAssembly module", [0x00, 0x61, 0x73, 0x6d]],
  ["SQLite database", [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65]],
  ["Java class file", [0xca, 0xfe, 0xba, 0xbe]],
  ["UTF-16 text (little-endian)", [0xff, 0xfe]],
  ["UTF-16 text (big-endian)", [0xfe, 0xff]],
  ["tar archive", [0x75, 0x73, 0x74, 0x61, 0x72], 257],
];

/** 1 for each byte that opens a signature at offset 0: a file starting with any other needs only tar's (at 257) looked at. */
const SIGNATURE_OPENINGS = new Uint8Array(256);
for (const [, bytes, at = 0] of SIGNATURES) if (at === 0) SIGNATURE_OPENINGS[bytes[0]!] = 1;
/** 1 for each byte counted as a control character: below 32, bar tab, line feed, form feed, carriage return and escape (common in text). */
const CONTROL = new Uint8Array(256);
for (let byte = 1; byte < 32; byte++) if (byte !== 9 && byte !== 10 && byte !== 12 && byte !== 13 && byte !== 27) CONTROL[byte] = 1;
/** The byte tar's signature (`ustar` at 257) opens with. */
const TAR_OPENING = 0x75;

/**
 * Decides from a file's first bytes whether it is binary, and if so guesses its type.
 * Returns undefined for text. A NUL byte, or many control characters, mean binary.
 */
export function binaryType(head: Uint8Array): string | undefined {
  if (SIGNATURE_OPENINGS[head[0] ?? 0] === 1 || head[257] === TAR_OPENING) {
    for (let signature = 0; signature < SIGNATURES.length; signature++) {
      const [name, bytes, at = 0] = SIGNATURES[signature]!;
      if (startsWithAt(head, bytes, at)) return name;
    }
  }
  if (head.indexOf(0) !== -1) return "binary data";
  let control = 0;
  for (let index = 0; index < head.length; index++) control += CONTROL[head[index]!]!;
  return head.length > 0 && control / head.length > 0.1 ? "binary data" : undefined;
}

/**
 * A NUL and every control character `binaryType` counts, each as a one-character string, as UTF-8
 * decodes them: bytes below 32 decode to themselves, and no other byte decodes to one.
 */
const NUL_AND_CONTROLS: readonly string[] = Array.from({ length: 32 }, (_, byte) => byte)
  .filter((byte) => byte === 0 || CONTROL[byte] === 1)
  .map((byte) => String.fromCharCode(byte));

/**
 * True when `text` holds a NUL or a control character `binaryType` counts. One `includes` per
 * character: each is a native search of the whole text (about 15 ns per KB), so the 26 of them
 * cost about a third of one regular expression's pass over a small file, which tests every
 * character against the class (about 1 ns each).
 */
function holdsNulOrControl(text: string): boolean {
  for (let index = 0; index < NUL_AND_CONTROLS.length; index++) if (text.includes(NUL_AND_CONTROLS[index]!)) return true;
  return false;
}

/**
 * `binaryType` of the first `SNIFF_BYTES` of a file held whole in `content`, whose UTF-8 decoding
 * is `text`: a text with no NUL or control character, whose first bytes open no signature, is text
 * without a walk over its bytes (a search of the decoded text instead).
 */
export function binaryTypeOfDecoded(content: Uint8Array, text: string): string | undefined {
  if (SIGNATURE_OPENINGS[content[0] ?? 0] !== 1 && content[257] !== TAR_OPENING && !holdsNulOrControl(text)) return undefined;
  return binaryType(content.subarray(0, SNIFF_BYTES));
}

/** True if `head` holds `bytes` at offset `at`. */
function startsWithAt(head: Uint8Array, bytes: readonly number[], at: number): boolean {
  if (head.length < at + bytes.length) return false;
  for (let index = 0; index < bytes.length; index++) if (head[at + index] !== bytes[index]) return false;
  return true;
}

/** Formats lines with right-aligned line numbers and a `│` gutter: `  12│text`. */
export function numberLines(lines: readonly string[], firstLine: number, width = String(firstLine + lines.length - 1).length): string {
  // Gutters and lines side by side, joined once: no string is made per line.
  const parts = new Array<string>(lines.length * 2);
  for (let index = 0; index < lines.length; index++) {
    const gutter = gutterOf(firstLine + index, width);
    parts[2 * index] = index === 0 ? gutter.slice(1) : gutter;
    parts[2 * index + 1] = lines[index]!;
  }
  return parts.join("");
}

/** Line numbers below this keep their gutters once made (most reads show the first lines of a file). */
const KEPT_GUTTERS = 8192;
/** Gutters made so far, by width, then by line number. */
const gutters: string[][] = [];

/** `\n  12│`: a line break, then the line number right-aligned in `width` and the gutter's bar. */
function gutterOf(line: number, width: number): string {
  if (line >= KEPT_GUTTERS || line < 0) return `\n${String(line).padStart(width)}│`;
  const byLine = (gutters[width] ??= []);
  return (byLine[line] ??= `\n${String(line).padStart(width)}│`);
}

/** True if every line of `text` starts like a line-number gutter (`12│` or `12\t`): text copied from a read. */
export function looksLineNumbered(text: string): boolean {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return lines.length > 0 && lines.every((line) => /^\s*\d+(│|\t|→)/.test(line));
}

/** Splits text into lines: a final line break does not start another line; `\r\n` counts as one break. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** A human figure for a byte count: `812 B`, `14.2 KB`, `50.0 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GB`;
}

export { formatCount } from "../format.js";
