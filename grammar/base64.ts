/**
 * Base64 as the protocol language accepts it (contract §3) and writes it.
 *
 * Accepted: the standard alphabet (`+` `/`) or the URL-safe one (`-` `_`), not both in one
 * value; padding optional, but when present the length must come out a multiple of 4;
 * whitespace (spaces, tabs, line breaks) ignored anywhere. Rejected: any other character,
 * a length that cannot be base64 (4n+1 characters), `=` anywhere but the end, and
 * non-zero unused bits in the last character (so every byte string has one spelling).
 */

const WHITESPACE = /[ \t\r\n\f\v]/;
const WHITESPACE_RUNS = /[ \t\r\n\f\v]+/g;
const STANDARD = /^[A-Za-z0-9+/]*$/;
const URL_SAFE = /^[A-Za-z0-9_-]*$/;

function sextet(code: number): number {
  if (code >= 0x41 && code <= 0x5a) return code - 0x41;
  if (code >= 0x61 && code <= 0x7a) return code - 0x61 + 26;
  if (code >= 0x30 && code <= 0x39) return code - 0x30 + 52;
  return code === 0x2b || code === 0x2d ? 62 : 63;
}

/** Decodes base64 text; `undefined` when it is not base64 by the rules above. */
export function decodeBase64(text: string): Buffer | undefined {
  let compact = WHITESPACE.test(text) ? text.replace(WHITESPACE_RUNS, "") : text;
  let padding = 0;
  while (padding < compact.length && padding < 3 && compact.charCodeAt(compact.length - 1 - padding) === 0x3d) padding++;
  if (padding > 2) return undefined;
  if (padding > 0) {
    if (compact.length % 4 !== 0) return undefined;
    compact = compact.slice(0, compact.length - padding);
  }
  const remainder = compact.length % 4;
  if (remainder === 1 || (padding > 0 && remainder === 0)) return undefined;
  if (!STANDARD.test(compact) && !URL_SAFE.test(compact)) return undefined;
  if (remainder > 0) {
    const last = sextet(compact.charCodeAt(compact.length - 1));
    if ((remainder === 2 ? last & 0x0f : last & 0x03) !== 0) return undefined;
  }
  return Buffer.from(compact, "base64");
}

/** Standard base64 with padding. */
export function encodeBase64(bytes: Buffer | string): string {
  return (typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes).toString("base64");
}
