/**
 * Vocabulary bridging for code search: words a question uses for what code names otherwise
 * ("define a token" for `createToken`, "remove flags" for `stripFlags`, "autocomplete" for
 * "content assist"). A query word also looks for its group's other words, with a lower weight
 * than the word itself, so the words a question really uses still count most: abbreviations and
 * other spellings of one word (`args`, `arguments`, `argv`) nearly as much as the word, words for
 * related things (`remove`, `strip`, `delete`) about a third.
 *
 * To extend: add a word to a group, or a new group — to ABBREVIATIONS for spellings of one
 * word, to RELATED for words a programmer would use for the same thing, to PHRASES for two
 * words that code writes as one. Keep groups small and specific — a word that means many things in code (`get`,
 * `value`, `data`) makes noise. Words are compared after stemming, so write plain forms
 * (`delete`, not `deleted`). A word may sit in several groups.
 */
import { stem, stemHead } from "./tokenize.js";

/** How a word's group relates to it: another spelling of the same word, or a word for a related thing. */
export interface Bridge {
  stem: string;
  /** Share of the word's weight in ranking. */
  weight: number;
  /** Share of the word it stands for when a name or chunk is checked for the query's words. */
  credit: number;
}

/** Abbreviations and other spellings of one word: nearly as good as the word. */
const SAME_WORD = { weight: 0.8, credit: 0.9 };
/** Words for related things: found, but worth much less than the word. */
const RELATED_WORD = { weight: 0.35, credit: 0.5 };

/**
 * Two-word phrases of questions and the one word code writes for them (`regular expression` →
 * regexp): the phrase's words found one after the other in a query also look for these.
 */
const PHRASES: Readonly<Record<string, string>> = {
  "regular expression": "regexp regex re",
  "command line": "cli cmdline argv",
  "user agent": "useragent ua",
  "syntax tree": "ast cst",
  "time out": "timeout",
  "file name": "filename",
  "key value": "kv",
  "standard output": "stdout",
  "standard error": "stderr",
  "standard input": "stdin",
  "look ahead": "lookahead",
  "call back": "callback",
  "data base": "database db",
  "host name": "hostname",
  "user name": "username",
  "end point": "endpoint",
};

const ABBREVIATIONS: readonly string[] = [
  "args arguments argument argv arg",
  "params parameters parameter param",
  "config configuration conf cfg",
  "dir directory",
  "str string",
  "len length",
  "err error",
  "msg message",
  "cmd command",
  "fn func function",
  "req request",
  "resp response res",
  "conn connection",
  "cert certificate",
  "auth authentication authorization",
  "desc description",
  "ver version",
  "tmp temp temporary",
  "idx index",
  "prev previous",
  "num number",
  "init initialize initialise",
  "ctx context",
  "regex regexp",
  "attr attribute",
  "val value",
  "var variable",
  "impl implementation",
  "lang language",
  "lib library",
  "pkg package",
  "src source",
  "dst dest destination",
  "pos position",
  "ref reference",
  "util utility utilities utils",
  "max maximum",
  "min minimum",
  "alt alternative alternation",
  "addr address",
  "db database",
  "exe executable",
  "sep separator",
  "char character",
  "col column",
  "opt option",
  "obj object",
  "repo repository",
  "sync synchronize",
  "async asynchronous",
];

const RELATED: readonly string[] = [
  // making and removing
  "create define make new build construct init initialize",
  "remove strip delete drop erase discard trim",
  "add append insert push register",
  "clear reset flush",
  "copy clone duplicate",
  // arguments, options, settings
  "config settings options preferences prefs",
  "flag option switch",
  // completion and suggestions
  "autocomplete completion complete suggest suggestion assist",
  "hint tip help",
  // errors
  "error exception failure fault",
  "raise throw",
  "warn warning",
  "recover recovery resync",
  "validate validation check verify",
  // text and parsing
  "parse parser parsing",
  "lexer tokenizer scanner lex tokenize",
  "token lexeme terminal",
  "grammar syntax",
  "regex regexp pattern",
  "string text",
  "whitespace space blank",
  "serialize marshal encode dump",
  "deserialize unmarshal decode load",
  "escape quote",
  // structure
  "dict dictionary map hash mapping",
  "list array slice sequence vector",
  "count length size",
  "index position offset",
  "key name id identifier",
  "visitor walker walk traverse",
  "tree ast cst",
  "node element",
  "parent ancestor",
  "child children subcommand descendant",
  "directory dir folder",
  "file filename path",
  // control and time
  "start begin init",
  "stop end finish close terminate",
  "run execute exec invoke call",
  "timeout deadline",
  "retry retries attempt",
  "measure trace timer profile perf performance",
  "sort order",
  "compare equal eq",
  "similar distance closest",
  "before pre prior",
  "after post",
  // networking
  "authentication credentials login",
  "password passwd pwd secret",
  "url uri link address",
  "header headers",
  "connection socket",
  "certificate tls ssl",
  "redirect redirection location",
  "cookie cookies",
  "proxy proxies",
  // documentation and output
  "man manual",
  "print write output display show",
  "message notice",
  "test tests testing spec",
];

/** Every group, abbreviations first: a word in both kinds of group keeps the stronger bridge. */
export const GROUPS: readonly { words: readonly string[]; relation: { weight: number; credit: number } }[] = [
  ...ABBREVIATIONS.map((group) => ({ words: group.split(" "), relation: SAME_WORD })),
  ...RELATED.map((group) => ({ words: group.split(" "), relation: RELATED_WORD })),
];

/**
 * A word's first letter → the groups holding a word with it, in order. A stem is the start of its
 * word (but for the y that `ies` becomes: `stemHead`), so only those groups can hold a word with a
 * given stem, and only their words are stemmed: stemming all of them up front cost a one-off
 * search in a fresh process about 2 ms.
 */
let groupsByLetter: Map<string, number[]> | undefined;
function groupsStartingWith(letter: string): readonly number[] {
  if (groupsByLetter === undefined) {
    groupsByLetter = new Map();
    GROUPS.forEach(({ words }, index) => {
      for (const word of words) {
        const groups = groupsByLetter!.get(word[0]!) ?? [];
        if (groups[groups.length - 1] !== index) groups.push(index);
        groupsByLetter!.set(word[0]!, groups);
      }
    });
  }
  return groupsByLetter.get(letter) ?? [];
}

/**
 * The stems a (stemmed) query word also looks for, abbreviations and other spellings first: the
 * other stems of every group holding a word whose stem is `stemmed`, each once, in the groups' order.
 */
export function synonymsOf(stemmed: string): readonly Bridge[] {
  let bridges = BRIDGES.get(stemmed);
  if (bridges === undefined) {
    if (BRIDGES.size >= REMEMBERED_STEMS) BRIDGES.clear();
    BRIDGES.set(stemmed, (bridges = bridgesOf(stemmed)));
  }
  return bridges;
}

/** Each stem's bridges once found (a session's searches ask for the same words again), up to `REMEMBERED_STEMS` stems. */
const BRIDGES = new Map<string, readonly Bridge[]>();
const REMEMBERED_STEMS = 4096;

function bridgesOf(stemmed: string): readonly Bridge[] {
  const bridges: Bridge[] = [];
  for (const index of groupsStartingWith(stemHead(stemmed).charAt(0))) {
    const { words, relation } = GROUPS[index]!;
    const stems = [...new Set(words.map((word) => stem(word)))];
    if (!stems.includes(stemmed)) continue;
    for (const other of stems) if (other !== stemmed && !bridges.some((bridge) => bridge.stem === other)) bridges.push({ stem: other, ...relation });
  }
  return bridges;
}

/** The stems a two-word phrase of a query also looks for, as abbreviations of it. */
export function phraseBridges(first: string, second: string): readonly Bridge[] {
  const words = PHRASES[`${first} ${second}`];
  return words === undefined ? [] : words.split(" ").map((word) => ({ stem: stem(word), ...SAME_WORD }));
}
