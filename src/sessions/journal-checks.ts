/**
 * Shape checks for journal lines. Written out by hand rather than with zod: opening a long
 * session checks thousands of lines, and these run about ten times faster. Each returns
 * `undefined` for a good record, or what is wrong with it ("role: expected one of …").
 */
type Fields = Record<string, unknown>;
type Check = (value: unknown) => string | undefined;

const isCount = (value: unknown): boolean => typeof value === "number" && Number.isInteger(value) && value >= 0;

const count: Check = (value) => (isCount(value) ? undefined : `expected a whole number ≥ 0, got ${describe(value)}`);
const text: Check = (value) => (typeof value === "string" ? undefined : `expected a string, got ${describe(value)}`);
const nonEmptyText: Check = (value) => (typeof value === "string" && value !== "" ? undefined : `expected a non-empty string, got ${describe(value)}`);
const flag: Check = (value) => (typeof value === "boolean" ? undefined : `expected true or false, got ${describe(value)}`);
const duration: Check = (value) => (typeof value === "number" && value >= 0 ? undefined : `expected a number ≥ 0, got ${describe(value)}`);
const optional =
  (check: Check): Check =>
  (value) =>
    value === undefined ? undefined : check(value);
const oneOf =
  (...values: string[]): Check =>
  (value) =>
    typeof value === "string" && values.includes(value) ? undefined : `expected one of ${values.join(", ")}, got ${describe(value)}`;

const argument: Check = (value) => {
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") return undefined;
  if (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 1 && typeof (value as Fields).base64 === "string") return undefined;
  return `expected a string, number, boolean, null or {"base64": …}, got ${describe(value)}`;
};
const argumentsObject: Check = (value) => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return `expected an object, got ${describe(value)}`;
  for (const [key, item] of Object.entries(value)) {
    const problem = argument(item);
    if (problem !== undefined) return `${key}: ${problem}`;
  }
  return undefined;
};
const errorObject: Check = (value) => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return `expected an object, got ${describe(value)}`;
  return checkFields(value as Fields, { code: text, message: text, hint: optional(text) });
};

function checkFields(fields: Fields, checks: Record<string, Check>): string | undefined {
  for (const [key, check] of Object.entries(checks)) {
    const problem = check(fields[key]);
    if (problem !== undefined) return `${key}: ${problem}`;
  }
  return undefined;
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  return Array.isArray(value) ? "an array" : typeof value;
}

const HEADER = {
  kind: oneOf("session"),
  version: count,
  id: nonEmptyText,
  createdAt: nonEmptyText,
  workspace: text,
  provider: text,
  model: text,
  mode: optional(oneOf("chat", "print")),
};
const MESSAGE = { sequence: count, role: oneOf("system", "user", "assistant", "tool"), content: text, reasoning: optional(text), timestamp: nonEmptyText, turn: count };
const COMMAND = {
  sequence: count,
  protocol: text,
  action: text,
  args: argumentsObject,
  description: text,
  ok: flag,
  output: text,
  outputLength: optional(count),
  error: optional(errorObject),
  durationMs: duration,
  turn: count,
  timestamp: nonEmptyText,
};
const USAGE = { turn: count, inputTokens: count, outputTokens: count, estimated: flag, timestamp: nonEmptyText };
const EVENT = { sequence: count, type: text, timestamp: nonEmptyText, turn: optional(count) };

const objectChecker =
  (checks: Record<string, Check>) =>
  (value: unknown): string | undefined =>
    typeof value === "object" && value !== null && !Array.isArray(value) ? checkFields(value as Fields, checks) : `expected an object, got ${describe(value)}`;

export const checkHeader = objectChecker(HEADER);
export const checkMessage = objectChecker(MESSAGE);
export const checkCommand = objectChecker(COMMAND);
export const checkUsage = objectChecker(USAGE);
export const checkEvent = objectChecker(EVENT);
