/**
 * Parameter values for protocol commands (commands.ts builds the commands from them), drawn
 * from a parameter's definition alone, so any protocol — a new one included — is fuzzed with
 * the same tools. Values follow each parameter's kind (word, text, json, bytes) and what its zod
 * schema admits (enums, numbers within their bounds, booleans), mixed — unless `validOnly` — with
 * what breaks things: `..`, absolute paths, symlink names, empty and huge values, unicode,
 * invalid base64. Values are written bare or quoted (never heredocs), so commands stay on one line.
 */
import fc from "fast-check";
import type { ZodTypeAny } from "zod";
import { jsonValuesFor } from "./schema-values.js";
import type { ActionDefinition, ParameterDefinition, PermissionClass } from "../../protocols/contract/protocol.js";

/** Shell commands exec-class actions are given: harmless, quick, and finished within a second. */
export const SAFE_COMMANDS: readonly string[] = ["true", "false", "echo x", "sleep 0.1", "cat missing-file", "pwd", "ls", "exit 3"];

/** Word values exec-class actions are given besides numbers and a schema's own choices: programs and ids that are harmless. */
export const SAFE_WORDS: readonly string[] = ["sh", "cat", "true", "job-1", "job-2", "job-99", "no-such-program"];

/** JSON values exec-class actions are given (argument lists that keep a safe command safe and quick). */
export const SAFE_JSON: readonly string[] = ["[]", '["x"]', '["missing-file"]', "{}"];

/** Path-like text values exec-class actions are given besides SAFE_COMMANDS (as a command, each just fails). */
const EXEC_PATHS = ["src", "sub/dir", "new/folder/file", "link-out", "link-out/secret", "link-file", "../outside", "../../etc/passwd"];

/** Addresses network-class actions are given: each refused by a safe client or unreachable, none outside this machine. */
export const LOCAL_URLS: readonly string[] = [
  "http://127.0.0.1:1/",
  "http://localhost:1/page",
  "http://169.254.169.254/latest/meta-data/",
  "http://10.0.0.1/",
  "http://[::1]:1/",
  "file:///etc/passwd",
  "ftp://127.0.0.1/x",
  "gopher://127.0.0.1:1/",
];

/** Path-like values: inside, escaping, absolute, through the sandbox's symlinks, protected. No dots, so network-class gates accept them. */
const DOTLESS_PATHS = [
  "src",
  "sub/dir",
  "new/folder/file",
  "link-out",
  "link-out/secret",
  "link-file",
  "../outside",
  "../../etc/passwd",
  "/etc/passwd",
  "sub/../..",
  "~/x",
  "a\u0000b",
  " ",
  "",
];
const DOTTED_PATHS = [
  ".",
  "..",
  "README.md",
  "notes.txt",
  "src/main.ts",
  "data.json",
  ".git/config",
  ".clio/state.json",
  "link-out/secret.txt",
  "sub/dir/file.txt",
  "new.txt",
  "ünïcödé/файл.txt",
];

/** Absolute paths outside the workspace that a run should never touch (the sandbox's sentinel). */
export interface FuzzTargets {
  outsidePaths?: readonly string[];
}

/** What the zod schema of a word parameter admits, as far as can be seen from outside. */
export interface SchemaHints {
  values: string[];
  numeric: boolean;
  /** The bounds a number schema sets (z.number().int().min(1).max(500)), when it sets them. */
  minimum?: number;
  maximum?: number;
}

export function schemaHints(schema: ZodTypeAny, depth = 0): SchemaHints {
  const hints: SchemaHints = { values: [], numeric: false };
  if (depth > 8) return hints;
  const definition = schema._def as Record<string, unknown> & { typeName?: string };
  const inner = (value: unknown) => {
    const found = schemaHints(value as ZodTypeAny, depth + 1);
    hints.values.push(...found.values);
    hints.numeric ||= found.numeric;
    hints.minimum ??= found.minimum;
    hints.maximum ??= found.maximum;
  };
  switch (definition.typeName) {
    case "ZodEnum":
      hints.values.push(...(definition.values as string[]));
      break;
    case "ZodLiteral":
      if (typeof definition.value === "string" || typeof definition.value === "number") hints.values.push(String(definition.value));
      break;
    case "ZodNumber":
      hints.numeric = true;
      for (const check of (definition.checks as { kind: string; value?: number; inclusive?: boolean }[] | undefined) ?? []) {
        if (check.kind === "min" && check.value !== undefined) hints.minimum = check.inclusive === false ? Math.floor(check.value) + 1 : Math.ceil(check.value);
        if (check.kind === "max" && check.value !== undefined) hints.maximum = check.inclusive === false ? Math.ceil(check.value) - 1 : Math.floor(check.value);
      }
      break;
    case "ZodOptional":
    case "ZodNullable":
    case "ZodDefault":
      inner(definition.innerType);
      break;
    case "ZodEffects":
      inner(definition.schema);
      break;
    case "ZodPipeline":
      inner(definition.in);
      inner(definition.out);
      break;
    case "ZodUnion":
      for (const option of definition.options as ZodTypeAny[]) inner(option);
      break;
  }
  return hints;
}

const BARE = /^[A-Za-z0-9+/_.,@%~-]+={0,2}$/;

/** A value written as the grammar reads it: bare when it may be, else a JSON string literal. */
export function writeWord(value: string): string {
  return BARE.test(value) ? value : JSON.stringify(value);
}

function base64Forms(text: string): fc.Arbitrary<string> {
  const standard = Buffer.from(text, "utf8").toString("base64");
  const forms = [standard, standard.replace(/=+$/, ""), Buffer.from(text, "utf8").toString("base64url")].filter((form) => form !== "");
  return forms.length ? fc.constantFrom(...forms) : fc.constant('""');
}

/** A text value written quoted (most often), as base64, or as junk that is not base64. */
function writeText(values: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 12, arbitrary: values.map((value) => JSON.stringify(value)) },
    { weight: 6, arbitrary: values.chain(base64Forms) },
    { weight: 1, arbitrary: fc.constantFrom("@@@", "a", "abc=", "%%", "-_-_") },
  );
}

function textValues(permission: PermissionClass | "varies", targets: FuzzTargets): fc.Arbitrary<string> {
  if (permission === "exec") return fc.constantFrom(...SAFE_COMMANDS, ...EXEC_PATHS);
  if (permission === "network") return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...LOCAL_URLS) }, { weight: 2, arbitrary: fc.constantFrom(...DOTLESS_PATHS) });
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...DOTLESS_PATHS, ...DOTTED_PATHS, ...(targets.outsidePaths ?? [])) },
    { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
    { weight: 1, arbitrary: fc.constantFrom("\u0000", "\r\n", '[FILE_OP:action=read:path="x"]') },
    // Huge values shrink toward the smallest length that still fails (a file name past 255 bytes, say).
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 30_000 }).chain((length) => fc.constantFrom("x".repeat(length), "line\n".repeat(Math.ceil(length / 5)))) },
  );
}

/** Numbers for a number schema: inside its bounds mostly, on them and just outside them often (with `inside`, never outside). */
function numberValues(hints: SchemaHints & { inside?: boolean }): fc.Arbitrary<number> {
  const low = hints.minimum ?? -3;
  const high = hints.maximum ?? Math.max(low + 200, 200);
  const candidates = hints.inside ? [low, high, low + 1, high - 1] : [low, high, low - 1, high + 1, 0, 1, 1_000_000];
  const edges = candidates.filter((value, index, all) => all.indexOf(value) === index && (!hints.inside || (value >= low && value <= high)));
  return fc.oneof({ weight: 3, arbitrary: fc.integer({ min: Math.min(low, high), max: Math.max(low, high) }) }, { weight: 2, arbitrary: fc.constantFrom(...edges) });
}

function wordValues(definition: ParameterDefinition, permission: PermissionClass | "varies"): fc.Arbitrary<string> {
  const hints = schemaHints(definition.schema as ZodTypeAny);
  const junk =
    permission === "exec"
      ? fc.constantFrom(...SAFE_WORDS, "")
      : fc.oneof(fc.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/), fc.constantFrom("", "-1", "0", "true", "yes", "NaN", "1e309", "9007199254740993"));
  const choices: fc.WeightedArbitrary<string>[] = [{ weight: 1, arbitrary: junk }];
  if (hints.values.length) choices.push({ weight: 5, arbitrary: fc.constantFrom(...hints.values) });
  if (hints.numeric) choices.push({ weight: 5, arbitrary: numberValues(hints).map(String) });
  return fc.oneof(...choices);
}

function jsonValues(permission: PermissionClass | "varies"): fc.Arbitrary<string> {
  if (permission === "exec") return fc.constantFrom(...SAFE_JSON).map((value) => JSON.stringify(value));
  const valid = fc.oneof(fc.json({ maxDepth: 2 }), fc.constantFrom("{}", "[]", '{"a":"b"}', '["x"]', '{"tags":["a"]}'));
  const text = fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: fc.constantFrom("{", "nul", "", "[1,") });
  return fc.oneof({ weight: 4, arbitrary: text.map((value) => JSON.stringify(value)) }, { weight: 1, arbitrary: text.chain(base64Forms) });
}

function bytesValues(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString("base64") || "AA==") },
    { weight: 1, arbitrary: fc.constantFrom('"not allowed quoted"', "@@@") },
  );
}

/** The permission class an action always has, or `varies` when it depends on the arguments. */
export function staticPermission(definition: ActionDefinition): PermissionClass | "varies" {
  return typeof definition.permission === "function" ? "varies" : definition.permission;
}

export interface ValueOptions extends FuzzTargets {
  parameter: ParameterDefinition;
  /** The action's permission class: exec and network values come from safe pools (default read). */
  permission?: PermissionClass | "varies";
  /** Only values the parameter's schema accepts (default false: mixed with what breaks things). */
  validOnly?: boolean;
}

/**
 * One parameter's value as written in a command: a bare word, a JSON string literal or base64.
 * Word values follow the zod schema (enum choices; numbers inside its integer bounds mostly, on
 * and just outside them often — only inside with `validOnly`).
 */
export function valueArbitrary(options: ValueOptions): fc.Arbitrary<string> {
  const { parameter: definition, permission = "read" } = options;
  if (options.validOnly) return validValues(definition, permission, options).map((value) => writeValid(definition, value));
  switch (definition.kind) {
    case "word":
      return wordValues(definition, permission).map(writeWord);
    case "text":
      return writeText(textValues(permission, options));
    case "json":
      return jsonValues(permission);
    case "bytes":
      return bytesValues();
  }
}

function accepted(definition: ParameterDefinition, value: string): boolean {
  if (definition.kind === "bytes") return definition.schema.safeParse(Buffer.from(value, "base64")).success;
  return definition.schema.safeParse(value).success;
}

/** Raw values for one parameter that its schema accepts (decoded: the text itself, JSON text, base64 of bytes). */
function validValues(definition: ParameterDefinition, permission: PermissionClass | "varies", targets: FuzzTargets): fc.Arbitrary<string> {
  let values: fc.Arbitrary<string>;
  switch (definition.kind) {
    case "word": {
      const hints = schemaHints(definition.schema as ZodTypeAny);
      const choices: fc.Arbitrary<string>[] = [];
      if (hints.values.length) choices.push(fc.constantFrom(...hints.values));
      if (hints.numeric) choices.push(numberValues({ ...hints, inside: true }).map(String));
      if (!choices.length) choices.push(fc.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/));
      values = fc.oneof(...choices);
      break;
    }
    case "text":
      values = textValues(permission, targets);
      break;
    case "json":
      values = jsonValuesFor(definition.schema as ZodTypeAny).map((value) => JSON.stringify(value) ?? "null");
      break;
    case "bytes":
      values = fc.uint8Array({ minLength: 1, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString("base64"));
      break;
  }
  return values.filter((value) => accepted(definition, value));
}

function writeValid(definition: ParameterDefinition, value: string): string {
  if (definition.kind === "word") return writeWord(value);
  if (definition.kind === "bytes") return value;
  return JSON.stringify(value);
}

/** A value as the grammar reads it from its written form (a JSON string literal unquoted, a bare word as it is). */
export function readWritten(written: string): string {
  return written.startsWith('"') ? (JSON.parse(written) as string) : written;
}

/**
 * Whether a decoded value is one an exec-class action may be run with in a fuzz case: a safe
 * command or harmless path for text, a number, a schema's own choice or a safe word for words,
 * a safe argument list for JSON. Anything else could run arbitrary or endless work.
 */
export function isSafeExecValue(definition: ParameterDefinition, value: string): boolean {
  switch (definition.kind) {
    case "text":
      return SAFE_COMMANDS.includes(value) || EXEC_PATHS.includes(value);
    case "word": {
      const hints = schemaHints(definition.schema as ZodTypeAny);
      return hints.values.includes(value) || (hints.numeric && /^-?\d+$/.test(value)) || SAFE_WORDS.includes(value);
    }
    case "json":
      return SAFE_JSON.includes(value);
    case "bytes":
      return true;
  }
}

export function isRequired(definition: ParameterDefinition): boolean {
  return !definition.schema.safeParse(undefined).success;
}
