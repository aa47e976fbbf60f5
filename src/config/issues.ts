/**
 * Turns zod issues on a config layer into one sentence a person can act on:
 * which file (or variable, or flag), which key, what was wrong and what is allowed.
 */
import type { z } from "zod";
import { nearestWord } from "../nearest-word.js";

/** `["permissions", "allow", 0]` → `permissions.allow[0]`. */
export function formatKeyPath(path: readonly (string | number)[]): string {
  let text = "";
  for (const part of path) text += typeof part === "number" ? `[${part}]` : text === "" ? part : `.${part}`;
  return text;
}

/** One issue as `key: what is wrong`, with the known keys for an unknown one. */
export function describeIssue(issue: z.ZodIssue, knownKeys: readonly string[], nameKey: (path: readonly (string | number)[]) => string): string {
  const key = nameKey(issue.path);
  switch (issue.code) {
    case "unrecognized_keys": {
      const where = issue.path.length === 0 ? "" : ` in ${key}`;
      const known = issue.path.length === 0 ? knownKeys : issue.path[0] === "permissions" ? ["allow", "deny"] : [];
      return issue.keys
        .map((unknown) => {
          const suggestion = nearestWord(unknown, known);
          const hint = suggestion ? ` (did you mean "${suggestion}"?)` : "";
          return `unknown key "${unknown}"${where}${hint}${known.length > 0 ? `; known keys: ${known.join(", ")}` : ""}`;
        })
        .join("; ");
    }
    case "invalid_enum_value":
      return `${key} must be one of ${issue.options.join(", ")} (got ${JSON.stringify(issue.received)})`;
    case "invalid_type":
      if (issue.message.startsWith("must")) return `${key} ${issue.message} (got ${issue.received})`;
      return `${key} must be ${article(issue.expected)} (got ${issue.received})`;
    default:
      return `${key} ${issue.message}`;
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
