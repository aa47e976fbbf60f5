/**
 * Reading argument lists written inline: function-call style (`path="a.ts", limit=40`), and
 * near-misses of this language's own form (`[FILE_OP action=read path="a.ts"]`,
 * `[FILE_OP|action=read|path="a.ts"]`, `[FILE_OP.read:path="a.ts"]`, `[FILE_OP:{…json…}]`,
 * fullwidth `［：］`). Plain loops over a finished string, each character read once.
 */
import { callFromJson, parseJson, type ReadCall, type ReadResult } from "./read-call.js";
import type { CallVocabulary } from "./vocabulary.js";

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_-]*/y;
/** Whether a text holds any of FULLWIDTH's characters (no `g`: no `lastIndex` to keep). */
const FULLWIDTH_PATTERN = /[［］：｜，＝（）＂]/;
const FULLWIDTH: Record<string, string> = { "［": "[", "］": "]", "：": ":", "｜": "|", "，": ",", "＝": "=", "（": "(", "）": ")", "＂": '"' };

/** Index just after the string literal opening at `start` (its quote character), or -1. */
function stringEnd(text: string, start: number): number {
  const quote = text[start]!;
  const triple = text.startsWith(quote.repeat(3), start);
  if (triple) {
    const close = text.indexOf(quote.repeat(3), start + 3);
    return close < 0 ? -1 : close + 3;
  }
  for (let i = start + 1; i < text.length; i++) {
    const character = text[i];
    if (character === "\\") i++;
    else if (character === quote) return i + 1;
  }
  return -1;
}

/** The value of a string literal (JSON, single-quoted or triple-quoted). */
function stringValue(literal: string): string {
  if (literal.startsWith('"""') || literal.startsWith("'''")) return literal.slice(3, -3);
  if (literal.startsWith('"')) {
    const parsed = parseJson(literal);
    if (typeof parsed === "string") return parsed;
  }
  return literal
    .slice(1, -1)
    .replace(/\\(["'\\])/g, "$1")
    .replace(/\\n/g, "\n")
    .replace(/\\t/g, "\t");
}

/** Index just after the balanced `{…}` or `[…]` opening at `start`, or -1. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const character = text[i];
    if (character === '"' || character === "'") {
      const end = stringEnd(text, i);
      if (end < 0) return -1;
      i = end - 1;
    } else if (character === "{" || character === "[") depth++;
    else if (character === "}" || character === "]") {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

const WORDS: Record<string, unknown> = { true: true, True: true, false: false, False: false, None: null, null: null };

/** The two sticky patterns of `readPairs` for each set of separators, compiled once (each use sets `lastIndex` first). */
const PAIR_PATTERNS = new Map<string, { skip: RegExp; bareRun: RegExp }>();

function pairPatterns(separators: string): { skip: RegExp; bareRun: RegExp } {
  let patterns = PAIR_PATTERNS.get(separators);
  if (patterns === undefined) {
    patterns = { skip: new RegExp(`[${separators}]*`, "y"), bareRun: new RegExp(`[^${separators}\\]\\)]+`, "y") };
    PAIR_PATTERNS.set(separators, patterns);
  }
  return patterns;
}

/**
 * `key=value` pairs separated by `separators` (a regular-expression character class body).
 * Values: string literals, numbers, words, JSON objects and arrays, heredocs, or bare runs.
 */
export function readPairs(text: string, separators: string): { problem: string } | { args: ReadCall["args"]; bare: Set<string> | undefined } {
  const { skip, bareRun } = pairPatterns(separators);
  const args: ReadCall["args"] = [];
  let bare: Set<string> | undefined;
  let i = 0;
  for (;;) {
    skip.lastIndex = i;
    skip.exec(text);
    i = skip.lastIndex;
    if (i >= text.length) return { args, bare };
    IDENTIFIER.lastIndex = i;
    const key = IDENTIFIER.exec(text)?.[0];
    if (key === undefined) return { problem: `expected a parameter name at "${text.slice(i, i + 20)}"` };
    i += key.length;
    while (text[i] === " " || text[i] === "\t") i++;
    if (text.startsWith("<<", i)) {
      const header = /<<([A-Za-z_][A-Za-z0-9_]*)[ \t]*\r?\n/y;
      header.lastIndex = i;
      const tag = header.exec(text);
      const close = tag ? new RegExp(`\\r?\\n${tag[1]}[ \\t]*(?:\\r?\\n|$)`, "g") : undefined;
      if (!tag || !close) return { problem: `the heredoc of ${key} is not closed` };
      close.lastIndex = header.lastIndex - 1;
      const found = close.exec(text);
      if (!found) return { problem: `the heredoc of ${key} is not closed` };
      args.push([key, text.slice(header.lastIndex, found.index)]);
      i = found.index + found[0].length;
      continue;
    }
    if (text[i] !== "=" && text[i] !== ":") return { problem: `expected = after ${key}` };
    i++;
    while (text[i] === " " || text[i] === "\t") i++;
    const first = text[i];
    let end: number;
    let value: unknown;
    if (first === '"' || first === "'") {
      end = stringEnd(text, i);
      if (end < 0) return { problem: `the quoted value of ${key} is not closed` };
      value = stringValue(text.slice(i, end));
    } else if (first === "{" || first === "[") {
      end = balancedEnd(text, i);
      value = end < 0 ? undefined : parseJson(text.slice(i, end));
      if (value === undefined) return { problem: `the value of ${key} is not valid JSON` };
    } else {
      bareRun.lastIndex = i;
      const run = bareRun.exec(text)?.[0]?.trimEnd() ?? "";
      if (run === "") return { problem: `${key} has no value` };
      end = i + run.length;
      value = Object.hasOwn(WORDS, run) ? WORDS[run] : run;
      if (typeof value === "string") (bare ??= new Set()).add(key);
    }
    args.push([key, value]);
    i = end;
  }
}

/** A function call's argument list (between its parentheses). */
export function readFunctionArguments(name: string, action: string | undefined, text: string): ReadResult {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    const value = parseJson(trimmed);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return withAction({ name, args: Object.entries(value) }, action);
  }
  const pairs = readPairs(text, "\\s,");
  if ("problem" in pairs) {
    const positional = /^\s*["'\d]/.test(text);
    return { problem: positional ? 'its arguments must be named (path="a.ts"), not positional' : pairs.problem };
  }
  return withAction({ name, args: pairs.args }, action);
}

function withAction(call: ReadCall, action: string | undefined): ReadCall {
  return action === undefined ? call : { ...call, action };
}

/** Fullwidth brackets, colons and bars as their ASCII forms. */
export function normaliseFullwidth(text: string): string {
  if (!FULLWIDTH_PATTERN.test(text)) return text;
  return text.replace(/[［］：｜，＝（）＂]/g, (character) => FULLWIDTH[character] ?? character);
}

/**
 * A near-miss of this language, `text` running from its `[` through its `]`: the name (a
 * protocol, maybe written with a space: `FILE OP`), an optional `.action`, then parameters
 * separated by `:`, `|`, `,` or whitespace, a JSON object, or a function call's parentheses.
 */
export function readNearMiss(text: string, vocabulary: CallVocabulary): ReadResult {
  const inner = normaliseFullwidth(text).slice(1, -1);
  const head = /^\s*([A-Za-z][A-Za-z0-9_]*)(?:[ \t]+([A-Za-z][A-Za-z0-9_]*))?/.exec(inner);
  if (!head) return undefined;
  let name = head[1]!;
  let rest = inner.slice(head[0].length);
  if (head[2] !== undefined && vocabulary.resolve(`${head[1]}_${head[2]}`)) name = `${head[1]}_${head[2]}`;
  else {
    if (!vocabulary.resolve(name)) return undefined;
    rest = inner.slice(inner.indexOf(name) + name.length);
  }
  let action: string | undefined;
  const dotted = /^\.([A-Za-z_][A-Za-z0-9_]*)/.exec(rest);
  if (dotted) {
    action = dotted[1];
    rest = rest.slice(dotted[0].length);
  }
  const opening = /^\s*\(([\s\S]*)\)\s*$/.exec(rest);
  if (opening) return readFunctionArguments(name, action, opening[1]!);
  const json = /^\s*[:|]?\s*(\{[\s\S]*\})\s*$/.exec(rest);
  if (json) {
    const value = parseJson(json[1]!);
    if (value === undefined) return { problem: "its parameters are not valid JSON" };
    const call = callFromJson(value);
    if (call !== undefined && !("problem" in call) && vocabulary.resolve(call.name)) return call;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return withAction({ name, args: Object.entries(value) }, action);
    return { problem: "its parameters must be a JSON object" };
  }
  const pairs = readPairs(rest, "\\s:|,");
  if ("problem" in pairs) return { problem: pairs.problem };
  const call: ReadCall = { name, args: pairs.args };
  if (pairs.bare !== undefined) call.bare = pairs.bare;
  return withAction(call, action);
}
