/**
 * Parameter kinds: how a value's raw text becomes its meaning (contract §3).
 *
 * | kind | bare                    | quoted / heredoc  |
 * | word | as written              | as written        |
 * | text | base64 → UTF-8          | literally         |
 * | json | base64 of JSON          | JSON text         |
 * | bytes| base64                  | not allowed       |
 */
export type ParameterKind = "word" | "text" | "json" | "bytes";
