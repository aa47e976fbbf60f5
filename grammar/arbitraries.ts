/**
 * fast-check arbitraries for the protocol language, exported for anyone fuzzing their own
 * protocols (`clio/fuzz`; it pulls in fast-check, so the rest of the grammar does not import it).
 * Each is a function named `…Arbitrary` that takes at most one option bag.
 */
import fc from "fast-check";
import type { Mention, ValueForm } from "./ast.js";
import { encodeBase64 } from "./base64.js";
import { print, type PrintableCommand } from "./printer.js";

/** How long a generated name or run may be. */
export interface LengthOptions {
  /** Most characters (default 10). */
  maxLength?: number;
}

function lengthOf(options: LengthOptions): number {
  return Math.max(1, Math.floor(options.maxLength ?? 10));
}

/** A protocol NAME as a model might write it: `[A-Za-z][A-Za-z0-9_]*`, any case. */
export function protocolNameArbitrary(options: LengthOptions = {}): fc.Arbitrary<string> {
  return fc.stringMatching(new RegExp(`^[A-Za-z][A-Za-z0-9_]{0,${lengthOf(options) - 1}}$`));
}

/** A parameter KEY: `[A-Za-z_][A-Za-z0-9_-]*`. */
export function keyArbitrary(options: LengthOptions = {}): fc.Arbitrary<string> {
  return fc.stringMatching(new RegExp(`^[A-Za-z_][A-Za-z0-9_-]{0,${lengthOf(options) - 1}}$`));
}

const TRICKY_PIECES = [
  "]",
  "[",
  ":",
  "=",
  "<<",
  '"',
  "'",
  "\\",
  "\\n",
  "\n",
  "\r\n",
  "\t",
  " ",
  "`",
  "```",
  "~~~",
  "EOF",
  "EOF1",
  "[FILE_OP:action=read:path=eA==]",
  "[A:k=1]",
  "[docs](http://x)",
  "é",
  "日本",
  "😀",
  "\u2028",
  "\u0000",
];

export interface ValueTextOptions {
  /** Most pieces (tricky characters, short random strings) joined into one text (default 8). */
  maxPieces?: number;
}

/**
 * Value text that stresses quoting: `]`, `:`, quotes, backslashes, line breaks, backticks,
 * fence lines, heredoc tags, command-shaped text, and any Unicode (lone surrogates included).
 */
export function valueTextArbitrary(options: ValueTextOptions = {}): fc.Arbitrary<string> {
  return fc
    .array(fc.oneof(fc.constantFrom(...TRICKY_PIECES), fc.string({ maxLength: 6 }), fc.string({ unit: "binary", maxLength: 4 })), { maxLength: options.maxPieces ?? 8 })
    .map((pieces) => pieces.join(""));
}

/** Text that is safe to write bare: base64 of some text, or a run of bare characters. */
export function bareTextArbitrary(): fc.Arbitrary<string> {
  return fc.oneof(
    valueTextArbitrary()
      .filter((text) => text.length > 0)
      .map((text) => encodeBase64(text)),
    fc.stringMatching(/^[A-Za-z0-9+/_.,@%~-]{1,16}(?:={1,2})?$/),
  );
}

export interface PrintableCommandOptions {
  /** Forms to use (default: all three). */
  forms?: ValueForm[];
  /** Most parameters per command (default 4). */
  maxParameters?: number;
}

const textsByForm: Partial<Record<ValueForm, fc.Arbitrary<string>>> = {};

/**
 * The text arbitrary of a form, built once, when first drawn: building fast-check's string
 * arbitraries costs far more than drawing from them, and an arbitrary holds no state, so sharing
 * one draws the same values.
 */
function textArbitraryOf(form: ValueForm): fc.Arbitrary<string> {
  textsByForm[form] ??=
    form === "bare"
      ? bareTextArbitrary()
      : form === "quoted"
        ? valueTextArbitrary()
        : // A heredoc body that ends in a carriage return cannot be written as a heredoc.
          valueTextArbitrary().filter((value) => !value.endsWith("\r"));
  return textsByForm[form];
}

function parameterArbitrary(key: string, forms: ValueForm[]): fc.Arbitrary<PrintableCommand["parameters"][number]> {
  return fc.constantFrom(...forms).chain((form) => textArbitraryOf(form).map((text) => ({ key, form, text })));
}

/** A command ready for `print`: an upper-case protocol name and unique keys, each with a form and text. */
export function printableCommandArbitrary(options: PrintableCommandOptions = {}): fc.Arbitrary<PrintableCommand> {
  const forms = options.forms ?? ["bare", "quoted", "heredoc"];
  const keys = fc.uniqueArray(keyArbitrary(), { minLength: 1, maxLength: options.maxParameters ?? 4 });
  return fc
    .record({ protocol: protocolNameArbitrary().map((name) => name.toUpperCase()), keys })
    .chain(({ protocol, keys }) => fc.tuple(...keys.map((key) => parameterArbitrary(key, forms))).map((parameters) => ({ protocol, parameters })));
}

/** What a generated document must parse to. Offsets are where each `[` is. */
export interface ExpectedFindings {
  commands: { offset: number; command: PrintableCommand }[];
  mentions: { offset: number; text: string; context: Mention["context"] }[];
}

export interface GeneratedDocument {
  text: string;
  expected: ExpectedFindings;
}

export interface DocumentOptions {
  /** Most pieces (prose, markdown, commands) in the document (default 12). */
  maxPieces?: number;
  /** Fewest pieces (default 1: an empty document is one case, not one in ten). */
  minPieces?: number;
}

/** Prose and markdown that hold no command: brackets that are text, links, escapes, headings. */
const PROSE = [
  "I'll look at the config first. ",
  "Done.\n",
  "# Plan\n",
  "- [ ] ship it\n",
  "- [x] tests\n",
  "> a quote\n\n",
  "See [docs](http://x) for more. ",
  "[x] ",
  "[NOTE] ",
  "[WARNING: be careful] ",
  "a: b = c ",
  "x<<y ",
  "\\[A:k=1] ",
  "**bold** and _italic_ ",
  "\n\n",
  "1. first\n",
  "[link]: http://example.com\n",
  "éè 日本語 😀 ",
  "| a | b |\n",
  "key=value ",
  "[a]: ",
  "[Note:] ",
  "[A:]",
  "[A: k]",
  "[A:k]",
  "\r\n",
];

type Piece = { kind: "prose"; text: string } | { kind: "live" | "fence" | "inline" | "tilde"; command: PrintableCommand };

function longestRun(text: string, character: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === character ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

const pieceArbitrary: fc.Arbitrary<Piece> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PROSE).map((text): Piece => ({ kind: "prose", text })) },
  { weight: 2, arbitrary: printableCommandArbitrary().map((command): Piece => ({ kind: "live", command })) },
  { weight: 1, arbitrary: printableCommandArbitrary().map((command): Piece => ({ kind: "fence", command })) },
  { weight: 1, arbitrary: printableCommandArbitrary().map((command): Piece => ({ kind: "tilde", command })) },
  { weight: 1, arbitrary: printableCommandArbitrary({ forms: ["bare", "quoted"] }).map((command): Piece => ({ kind: "inline", command })) },
);

/**
 * A model-like reply: prose and markdown with commands placed live (found as commands) and
 * inert inside fences and inline code (found as mentions), with what parsing it must give.
 */
export function documentArbitrary(options: DocumentOptions = {}): fc.Arbitrary<GeneratedDocument> {
  return fc.array(pieceArbitrary, { minLength: options.minPieces ?? 1, maxLength: options.maxPieces ?? 12 }).map((pieces) => {
    let text = "";
    const expected: ExpectedFindings = { commands: [], mentions: [] };
    const startLine = () => {
      if (text.length > 0 && !text.endsWith("\n")) text += "\n";
    };
    for (const piece of pieces) {
      if (piece.kind === "prose") {
        text += piece.text;
        continue;
      }
      const printed = print(piece.command);
      if (piece.kind === "live") {
        expected.commands.push({ offset: text.length, command: piece.command });
        text += `${printed} `;
      } else if (piece.kind === "inline" && !printed.includes("\n")) {
        const ticks = "`".repeat(longestRun(printed, "`") + 1);
        text += `${ticks} `;
        expected.mentions.push({ offset: text.length, text: printed, context: "inline-code" });
        text += `${printed} ${ticks} `;
      } else if (piece.kind !== "inline") {
        const character = piece.kind === "fence" ? "`" : "~";
        const fence = character.repeat(Math.max(3, longestRun(printed, character) + 1));
        startLine();
        text += `${fence}\n`;
        expected.mentions.push({ offset: text.length, text: printed, context: "fence" });
        text += `${printed}\n${fence}\n`;
      }
    }
    return { text, expected };
  });
}

/** `text` cut at these offsets (in any order; repeated ones and those at the ends are ignored). */
export function splitAt(text: string, offsets: readonly number[]): string[] {
  const points = [...new Set(offsets.filter((offset) => offset > 0 && offset < text.length))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const point of points) {
    chunks.push(text.slice(from, point));
    from = point;
  }
  chunks.push(text.slice(from));
  return chunks;
}

export interface ChunkingOptions {
  /** The text to cut. */
  text: string;
}

/**
 * Ways to cut `text` into chunks: single characters, or random split points, sometimes with
 * empty chunks between them (streams send empty deltas). Joined, the chunks are always `text`.
 */
export function chunkingArbitrary({ text }: ChunkingOptions): fc.Arbitrary<string[]> {
  const singles = fc.constant([...Array(text.length).keys()].map((i) => text[i]!));
  if (text.length < 2) return fc.constant(text.length === 0 ? [] : [text]);
  const cuts = fc.uniqueArray(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: Math.min(20, text.length - 1) }).map((points) => splitAt(text, points));
  const withEmpty = cuts.map((chunks) => chunks.flatMap((chunk) => ["", chunk]));
  return fc.oneof(singles, cuts, withEmpty);
}

/**
 * Commands as a model breaks them: cut short anywhere, an unterminated quote, a bad escape, a
 * missing `]`, a key without a value, a heredoc never closed. Each is live text (not in code).
 */
export function brokenCommandArbitrary(): fc.Arbitrary<string> {
  const printed = printableCommandArbitrary().map((command) => print(command));
  return fc.oneof(
    printed.chain((text) => fc.integer({ min: 1, max: Math.max(1, text.length - 1) }).map((cut) => text.slice(0, cut))),
    printed.map((text) => `${text.slice(0, -1)} trailing words]`),
    fc.constantFrom(
      '[FILE_OP:action=read:path="unterminated]\n',
      '[FILE_OP:action=read:path="bad \\x escape"]',
      '[FILE_OP:action=read:path="\\u12"]',
      "[FILE_OP:action=read:path=]",
      "[FILE_OP:action=read:path",
      "[FILE_OP:action=write:content<<EOF\nnever closed\n",
      "[FILE_OP:action=read::path=x]",
      "[FILE_OP:action=read:action=write]",
      "[FILE_OP:=x]",
      "[FILE_OP:action=read path=x]",
    ),
  );
}

export interface DocumentPiecesOptions extends DocumentOptions {
  /** Mix in broken commands (cut short, unterminated, …) among the pieces (default false). */
  withErrors?: boolean;
}

/**
 * A document as its pieces (prose, live, fenced and inline commands, and with `withErrors`
 * broken commands), for properties that shrink by dropping whole pieces. Joined, they are the text.
 */
export function documentPiecesArbitrary(options: DocumentPiecesOptions = {}): fc.Arbitrary<string[]> {
  const rendered = pieceArbitrary.map((piece): string => {
    if (piece.kind === "prose") return piece.text;
    const printed = print(piece.command);
    if (piece.kind === "live") return `${printed} `;
    if (piece.kind === "inline" && !printed.includes("\n")) {
      const ticks = "`".repeat(longestRun(printed, "`") + 1);
      return `${ticks} ${printed} ${ticks} `;
    }
    const character = piece.kind === "tilde" ? "~" : "`";
    const fence = character.repeat(Math.max(3, longestRun(printed, character) + 1));
    return `\n${fence}\n${printed}\n${fence}\n`;
  });
  const piece = options.withErrors ? fc.oneof({ weight: 3, arbitrary: rendered }, { weight: 1, arbitrary: brokenCommandArbitrary() }) : rendered;
  return fc.array(piece, { minLength: options.minPieces ?? 1, maxLength: options.maxPieces ?? 12 });
}

/** A heredoc terminator line's trailing spaces and tabs (the contract allows them): one to `maxLength` (default 4). */
export function trailingBlanksArbitrary(options: LengthOptions = {}): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(" ", "\t"), { minLength: 1, maxLength: options.maxLength ?? 4 }).map((blanks) => blanks.join(""));
}

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * A text and a JSON string literal for it that uses the whole escape table: short escapes
 * (`\\n`, `\\/`, `\\"` …), `\\uXXXX` in either case (surrogate pairs included), and characters
 * written as themselves where JSON allows.
 */
export function escapedTextArbitrary(): fc.Arbitrary<{ text: string; literal: string }> {
  const unit = fc.oneof(fc.constantFrom(...Object.keys(SHORT_ESCAPES), "a", "é", "😀", "]", ":", "\u0000", "\u001f", "\u2028"), fc.string({ unit: "binary", maxLength: 2 }));
  return fc.array(fc.tuple(unit, fc.constantFrom("raw", "short", "upper", "lower")), { maxLength: 12 }).map((units) => {
    let text = "";
    let literal = "";
    for (const [piece, style] of units) {
      text += piece;
      for (const character of piece) {
        const code = character.codePointAt(0)!;
        const mustEscape = code < 0x20 || character === '"' || character === "\\";
        const hex = (value: number) => `\\u${value.toString(16).padStart(4, "0")}`;
        const escaped = [...character].length && character.length === 2 ? [...Array(2).keys()].map((index) => hex(character.charCodeAt(index))).join("") : hex(code);
        if (style === "short" && SHORT_ESCAPES[character]) literal += SHORT_ESCAPES[character];
        else if (style === "upper") literal += escaped.toUpperCase().replace(/\\U/g, "\\u");
        else if (style === "lower" || mustEscape) literal += escaped;
        else literal += character;
      }
    }
    return { text, literal: `"${literal}"` };
  });
}

/** Characters that change how a command reads: delimiters, quotes, escapes, line breaks, tags. */
const SHARP = ["[", "]", ":", "=", "<", "<<", '"', "\\", "\n", "\r", " ", "\t", "'", "`", "E", "O", "F", "-", "_", "+", "/", "a", "0", "é", "😀", "\u0000"];

type Edit = { kind: "delete" | "insert" | "replace"; at: number; piece: string } | { kind: "cut"; at: number };

const editArbitrary: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constantFrom("delete" as const, "insert" as const, "replace" as const), at: fc.nat(), piece: fc.constantFrom(...SHARP) }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
);

function applyEdit(text: string, edit: Edit): string {
  const at = text.length === 0 ? 0 : edit.at % text.length;
  if (edit.kind === "cut") return text.slice(0, at);
  if (edit.kind === "delete") return text.slice(0, at) + text.slice(at + 1);
  if (edit.kind === "insert") return text.slice(0, at) + edit.piece + text.slice(at);
  return text.slice(0, at) + edit.piece + text.slice(at + 1);
}

export interface NearMissOptions {
  /** Most edits made to the printed command (default 3; at least one is made). */
  maxEdits?: number;
}

/**
 * A printed command with characters deleted, inserted, replaced (by delimiters, quotes, escapes,
 * line breaks, tag letters) or cut off; the `[` at the start stays, so a reader starts there.
 */
export function nearMissArbitrary(options: NearMissOptions = {}): fc.Arbitrary<string> {
  const edits = fc.array(editArbitrary, { minLength: 1, maxLength: Math.max(1, options.maxEdits ?? 3) });
  return fc.tuple(printableCommandArbitrary(), edits).map(([command, chosen]) => chosen.reduce((text, edit) => `[${applyEdit(text.slice(1), edit)}`, print(command)));
}

/** A parameter from right and (less often) slightly wrong parts: key, assignment, value. */
const parameterShapedArbitrary = fc
  .tuple(
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom("k", "k-1", "_x", "K9") }, fc.constantFrom("1k", "", " k", "k k")),
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom("=", "<<EOF\n") }, fc.constantFrom(" =", "= ", "==", "<<EOF \n", "<<EOF", "<<\n", "")),
    fc.constantFrom("x", "Zm9v", "Zm9v==", "a b", "a\nb", '"x"', '"x]"', '"x\\"', '"x', 'x"', "body\nEOF\n", "body\nEOF", "\nEOF\n", "x]", "é", ""),
  )
  .map((parts) => parts.join(""));

/** Short command-shaped texts built from right and (less often) slightly wrong names, separators, parameters and ends. */
export function commandShapedArbitrary(): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.oneof({ weight: 4, arbitrary: fc.constantFrom("A", "FILE_OP", "a1") }, fc.constantFrom("_A", "1A", " A", "A-B", "")),
      fc.oneof({ weight: 4, arbitrary: fc.constant(":") }, fc.constantFrom(" :", ": ", "")),
      fc.array(parameterShapedArbitrary, { minLength: 1, maxLength: 3 }),
      fc.oneof({ weight: 4, arbitrary: fc.constant(":") }, fc.constantFrom("::", ": ", "\n:")),
      fc.oneof({ weight: 4, arbitrary: fc.constant("]") }, fc.constantFrom(" ]", "\n]", "", "]]", "] x")),
    )
    .map(([name, open, parameters, separator, close]) => `[${name}${open}${parameters.join(separator)}${close}`);
}
