/** What reading a piece of inline raw HTML (html.ts) or a harmony header (harmony.ts) came to, after a character. */
export const enum TagOutcome {
  Running,
  Complete,
  Failed,
}
