/**
 * Reading argument lists written inline: function-call style (`path="a.ts", limit=40`), and
 * near-misses of this language's own form (`[FILE_OP action=read path="a.ts"]`,
 * `[FILE_OP|action=read|path="a.ts"]`, `[FILE_OP.read:path="a.ts"]`, `[FILE_OP:{…json…}]`,
 * fullwidth `［：］`). Plain loops over a finished string, each character read once.
 */
import { BACKSLASH, COLON, isRegexSpace, isSpaceOrTab, NAME_FIRST, NAME_REST, QUOTE } from "../chars.js";
import { callFromJson, type ReadCall, type ReadResult } from "./read-call.js";
import { parseJson } from "./relaxed-json.js";
import { type CallVocabulary, isNamespaceWord } from "./vocabulary.js";

/** The ASCII form of the fullwidth `［］：｜，＝（）＂`, by their code less 0xff00. */
const FULLWIDTH: (string | undefined)[] = [];
for (const ascii of '[]:|,=()"') FULLWIDTH[ascii.charCodeAt(0) - 0x20] = ascii;

/** Index just after the string literal opening at `start` (its quote character), or -1. */
function stringEnd(text: string, start: number): number {
  const quote = text.charCodeAt(start);
  if (text.charCodeAt(start + 1) === quote && text.charCodeAt(start + 2) === quote) {
    const close = text.indexOf(quote === QUOTE ? '"""' : "'''", start + 3);
    return close < 0 ? -1 : close + 3;
  }
  for (let i = start + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === BACKSLASH) i++;
    else if (code === quote) return i + 1;
  }
  return -1;
}

/** The value of a string literal (JSON, single-quoted or triple-quoted). */
function stringValue(literal: string): string {
  if (literal.startsWith('"""') || literal.startsWith("'''")) return literal.slice(3, -3);
  // Without a backslash there is nothing to unescape: JSON's reading and the fallback below agree.
  if (!literal.includes("\\")) return literal.slice(1, -1);
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

/** Index just after the balanced `{…}`, `[…]` or `(…)` opening at `start`, or -1. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const character = text[i];
    if (character === '"' || character === "'") {
      const end = stringEnd(text, i);
      if (end < 0) return -1;
      i = end - 1;
    } else if (character === "{" || character === "[" || character === "(") depth++;
    else if (character === "}" || character === "]" || character === ")") {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

/** Index just after the balanced `(…)` or `{…}` that opens first in `text` after its first character (a near-miss's `[`), or -1. */
export function firstCallEnd(text: string): number {
  const paren = text.indexOf("(", 1);
  const brace = text.indexOf("{", 1);
  const open = paren < 0 ? brace : brace < 0 ? paren : Math.min(paren, brace);
  return open < 0 ? -1 : balancedEnd(text, open);
}

const WORDS: Record<string, unknown> = { true: true, True: true, false: false, False: false, None: null, null: null };

/** Between a function call's arguments: white space or `,`. */
export function isArgumentSeparator(code: number): boolean {
  return code === 0x2c || isRegexSpace(code);
}

/** Between a near-miss's parameters: white space, `:`, `|` or `,`. */
function isNearMissSeparator(code: number): boolean {
  return code === COLON || code === 0x7c || code === 0x2c || isRegexSpace(code);
}

/** `[A-Za-z_]`, and with `rest` also `[0-9-]`: a parameter name's characters. */
function isKeyCharacter(code: number, rest: boolean): boolean {
  if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f) return true;
  return rest && ((code >= 0x30 && code <= 0x39) || code === 0x2d);
}

/** Index of the first character at or after `from` that is no separator. */
function skipSeparators(text: string, from: number, isSeparator: (code: number) => boolean): number {
  let i = from;
  while (i < text.length && isSeparator(text.charCodeAt(i))) i++;
  return i;
}

/** Index just after the parameter name at `from` (`from` itself when there is none). */
function keyEnd(text: string, from: number): number {
  if (from >= text.length || !isKeyCharacter(text.charCodeAt(from), false)) return from;
  let i = from + 1;
  while (i < text.length && isKeyCharacter(text.charCodeAt(i), true)) i++;
  return i;
}

/** A string literal in either quote. */
const STRING_LITERAL = String.raw`("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')`;
/** One argument without its name: a string literal alone, blanks around it. */
const ONE_STRING = new RegExp(String.raw`^\s*${STRING_LITERAL}\s*$`);
/** The same after a near-miss's separators (`[FILE_OP:action=read:"a.ts"]`). */
const AFTER_SEPARATORS_ONE_STRING = new RegExp(String.raw`^[\s:|,]*${STRING_LITERAL}\s*$`);

/** Index just after the word `[A-Za-z][A-Za-z0-9_]*` at `from` (`from` itself when there is none). */
function wordEnd(text: string, from: number): number {
  if (NAME_FIRST[text.charCodeAt(from)] !== 1) return from;
  let i = from + 1;
  while (i < text.length && NAME_REST[text.charCodeAt(i)] === 1) i++;
  return i;
}

/** Index just after the bare value at `from`: up to a separator, `]` or `)`. */
function bareEnd(text: string, from: number, isSeparator: (code: number) => boolean): number {
  let i = from;
  for (; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x5d || code === 0x29 || isSeparator(code)) break;
  }
  return i;
}

/**
 * The calls `NAME(…)` (a name in dots too, `FILE_OP.read(…)`) that stand among other words in
 * `text`: the [start, end) index pairs of each, from its name through its `)`. Reading stops at a
 * `(` that never closes. One pass over the text.
 */
export function callsAmongWords(text: string): [number, number][] {
  const items: [number, number][] = [];
  let i = 0;
  while (i < text.length) {
    if (NAME_FIRST[text.charCodeAt(i)] !== 1) {
      i++;
      continue;
    }
    let nameEnd = wordEnd(text, i);
    while (text.charCodeAt(nameEnd) === 0x2e && wordEnd(text, nameEnd + 1) > nameEnd + 1) nameEnd = wordEnd(text, nameEnd + 1);
    if (text.charCodeAt(nameEnd) !== 0x28) {
      i = nameEnd;
      continue;
    }
    const close = balancedEnd(text, nameEnd);
    if (close < 0) return items;
    items.push([i, close]);
    i = close;
  }
  return items;
}

/**
 * A Python list of two or more calls, `[NAME(…), NAME(…)]` (Llama 3.2's and ToolACE's pythonic
 * form, as a near-miss's text), a comma allowed before its `]` (then one call is a list too): the
 * [start, end) index pairs of its calls, or undefined when `text` is no such list. One pass over
 * the text.
 */
export function callListItems(text: string): [number, number][] | undefined {
  if (text.charCodeAt(0) !== 0x5b) return undefined;
  const items: [number, number][] = [];
  let i = 1;
  for (;;) {
    i = skipSeparators(text, i, isRegexSpace);
    if (items.length > 0 && text.charCodeAt(i) === 0x5d) return items;
    let nameEnd = wordEnd(text, i);
    while (nameEnd > i && text.charCodeAt(nameEnd) === 0x2e) nameEnd = wordEnd(text, nameEnd + 1);
    if (nameEnd === i || text.charCodeAt(nameEnd) !== 0x28) return undefined;
    const close = balancedEnd(text, nameEnd);
    if (close < 0) return undefined;
    items.push([i, close]);
    i = skipSeparators(text, close, isRegexSpace);
    if (text.charCodeAt(i) === 0x5d) return items.length > 1 ? items : undefined;
    if (text.charCodeAt(i) !== 0x2c) return undefined;
    i++;
  }
}

/** `key=value` pairs that stopped at a pair that could not be read: those before it, and where it starts. */
export interface PairsProblem {
  problem: string;
  args: ReadCall["args"];
  bare: string[] | undefined;
  stoppedAt: number;
}

function stopped(problem: string, args: ReadCall["args"], bare: string[] | undefined, stoppedAt: number): PairsProblem {
  return { problem, args, bare, stoppedAt };
}

/**
 * `key=value` pairs separated by the characters `isSeparator` takes.
 * Values: string literals, numbers, words, JSON objects and arrays, heredocs, or bare runs.
 */
export function readPairs(text: string, isSeparator: (code: number) => boolean): PairsProblem | { args: ReadCall["args"]; bare: string[] | undefined } {
  const args: ReadCall["args"] = [];
  let bare: string[] | undefined;
  let i = 0;
  for (;;) {
    i = skipSeparators(text, i, isSeparator);
    if (i >= text.length) return { args, bare };
    const pairStart = i;
    const nameEnd = keyEnd(text, i);
    const key = nameEnd > i ? text.slice(i, nameEnd) : undefined;
    if (key === undefined) return stopped(`expected a parameter name at "${text.slice(i, i + 20)}"`, args, bare, pairStart);
    i += key.length;
    while (text[i] === " " || text[i] === "\t") i++;
    if (text.startsWith("<<", i)) {
      const header = /<<([A-Za-z_][A-Za-z0-9_]*)[ \t]*\r?\n/y;
      header.lastIndex = i;
      const tag = header.exec(text);
      const close = tag ? new RegExp(`\\r?\\n${tag[1]}[ \\t]*(?:\\r?\\n|$)`, "g") : undefined;
      if (!tag || !close) return stopped(`the heredoc of ${key} is not closed`, args, bare, pairStart);
      close.lastIndex = header.lastIndex - 1;
      const found = close.exec(text);
      if (!found) return stopped(`the heredoc of ${key} is not closed`, args, bare, pairStart);
      args.push([key, text.slice(header.lastIndex, found.index)]);
      i = found.index + found[0].length;
      continue;
    }
    if (text[i] !== "=" && text[i] !== ":") return stopped(`expected = after ${key}`, args, bare, pairStart);
    i++;
    while (text[i] === " " || text[i] === "\t") i++;
    const first = text[i];
    let end: number;
    let value: unknown;
    if (first === '"' || first === "'") {
      end = stringEnd(text, i);
      if (end < 0) return stopped(`the quoted value of ${key} is not closed`, args, bare, pairStart);
      value = stringValue(text.slice(i, end));
    } else if (first === "{" || first === "[") {
      end = balancedEnd(text, i);
      value = end < 0 ? undefined : parseJson(text.slice(i, end));
      if (value === undefined) return stopped(`the value of ${key} is not valid JSON`, args, bare, pairStart);
    } else {
      end = bareEnd(text, i, isSeparator);
      if (end === i) return stopped(`${key} has no value`, args, bare, pairStart);
      const run = text.slice(i, end);
      value = Object.hasOwn(WORDS, run) ? WORDS[run] : run;
      if (typeof value === "string") (bare ??= []).push(key);
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
  const pairs = readPairs(text, isArgumentSeparator);
  if ("problem" in pairs) {
    const single = ONE_STRING.exec(text);
    // One argument without its name: the mapping makes it the action's first parameter, for the hint.
    if (single) return withAction({ name, args: [["", stringValue(single[1]!)]], positional: true }, action);
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
  let out: string | undefined;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xff02 || code > 0xff5c) continue;
    const ascii = FULLWIDTH[code - 0xff00];
    if (ascii === undefined) continue;
    out = (out ?? "") + text.slice(from, i) + ascii;
    from = i + 1;
  }
  return out === undefined ? text : out + text.slice(from);
}

/**
 * A near-miss of this language, `text` running from its `[` through its `]`: the name (a
 * protocol, maybe written with a space: `FILE OP`), an optional `.action`, then parameters
 * separated by `:`, `|`, `,` or whitespace, a JSON object, or a function call's parentheses.
 */
export function readNearMiss(text: string, vocabulary: CallVocabulary): ReadResult {
  const inner = normaliseFullwidth(text).slice(1, -1);
  // The name: white space, a word, and maybe a second word after spaces or tabs (`FILE OP`).
  const firstStart = skipSeparators(inner, 0, isRegexSpace);
  let firstEnd = wordEnd(inner, firstStart);
  if (firstEnd === firstStart) return undefined;
  // A name in a tool namespace (`[functions.read_file(…)]`) goes on past its `.`.
  if (inner.charCodeAt(firstEnd) === 0x2e && isNamespaceWord(inner, firstStart, firstEnd)) firstEnd = wordEnd(inner, firstEnd + 1);
  let name = inner.slice(firstStart, firstEnd);
  let rest: string | undefined;
  let secondStart = firstEnd;
  while (isSpaceOrTab(inner.charCodeAt(secondStart))) secondStart++;
  const secondEnd = secondStart > firstEnd ? wordEnd(inner, secondStart) : secondStart;
  if (secondEnd > secondStart) {
    const joined = `${name}_${inner.slice(secondStart, secondEnd)}`;
    if (vocabulary.resolve(joined)) {
      name = joined;
      rest = inner.slice(secondEnd);
    }
  }
  if (rest === undefined) {
    if (!vocabulary.resolve(name)) return undefined;
    rest = inner.slice(firstEnd);
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
  const pairs = readPairs(rest, isNearMissSeparator);
  if ("problem" in pairs) {
    // `[FILE_OP:action=read:"a.ts"]`: one value without its name after the action: the mapping makes it the action's first parameter, for the hint.
    const single = AFTER_SEPARATORS_ONE_STRING.exec(rest.slice(pairs.stoppedAt));
    const [only] = pairs.args;
    if (single && pairs.args.length === 1 && only![0].toLowerCase() === "action" && typeof only![1] === "string") {
      return { name, action: only![1], args: [["", stringValue(single[1]!)]], positional: true };
    }
    const partial = pairs.args.length === 0 ? undefined : withAction(pairs.bare === undefined ? { name, args: pairs.args } : { name, args: pairs.args, bare: pairs.bare }, action);
    return partial === undefined ? { problem: pairs.problem } : { problem: pairs.problem, partial, unread: rest.slice(pairs.stoppedAt) };
  }
  const call: ReadCall = { name, args: pairs.args };
  if (pairs.bare !== undefined) call.bare = pairs.bare;
  return withAction(call, action);
}
