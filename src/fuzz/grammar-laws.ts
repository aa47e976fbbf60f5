/**
 * The grammar laws (shared contract §5 and the contract's edge cases) as properties over a
 * grammar under test — the real one, or a planted-bug copy a test hands in:
 * - parse never throws and never reports an internal failure, for any text;
 * - round trip: `parse(print(c))` gives back `c`;
 * - the escape table: a quoted value written with any JSON escapes reads as its text;
 * - heredoc terminators: a terminator line with trailing spaces and tabs still closes the body;
 * - chunking: the streaming scanner fed any chunking finds what one parse finds, for any text
 *   and for documents with syntax errors in them (so every error and recovery path is chunked);
 * - embedding: commands in prose are found, commands in fences and inline code are mentions;
 * - recognisers: the command machine and the Chevrotain parser take the same texts as one
 *   command and read them alike, over printed commands and near-misses.
 */
import fc from "fast-check";
import {
  commandShapedArbitrary,
  documentArbitrary,
  documentPiecesArbitrary,
  escapedTextArbitrary,
  nearMissArbitrary,
  printableCommandArbitrary,
  splitAt,
  trailingBlanksArbitrary,
  type GeneratedDocument,
} from "../../grammar/arbitraries.js";
import { print, type Command, type ParseResult, type PrintableCommand } from "../../grammar/index.js";
import type { CommandTextResult } from "../../grammar/parser.js";
import { compareRecognisers, type Verdict } from "./recognisers.js";
import { compactString, sideBySide } from "./show.js";

/** What the laws exercise: a parser, a printer and the streaming scanner. */
export interface GrammarUnderTest {
  parse(text: string): ParseResult;
  print(command: PrintableCommand): string;
  /** The streaming scanner fed these chunks, its events collected. */
  scan(chunks: readonly string[]): ParseResult;
  /** The Chevrotain lexer and parser reading a text as one command from its first character (default: clio's own). */
  readCommand?(text: string): CommandTextResult;
}

/** What a law's cases held, for the report. */
export interface LawStatistics {
  cases: number;
  commands: number;
  mentions: number;
  /** Syntax errors by code. */
  errors: Record<string, number>;
  /** Chunks the scanner was fed. */
  chunks: number;
}

/** A law that does not hold: what was expected and what came, shown side by side. */
export class LawViolation extends Error {
  constructor(
    message: string,
    readonly expected?: unknown,
    readonly actual?: unknown,
  ) {
    super(message);
  }
}

/** Thrown by a property once the run is interrupted: fast-check stops there (and its shrinking is immediate); no failure. */
export class FuzzInterrupted extends Error {
  constructor() {
    super("interrupted");
  }
}

export interface Law<Value> {
  name: string;
  arbitrary: fc.Arbitrary<Value>;
  /** Throws (a LawViolation, ideally) when the law does not hold for `value`. */
  check(value: Value, grammar: GrammarUnderTest, statistics: LawStatistics): void;
  /** The counterexample as text a person can paste. */
  show(value: Value): string;
  /** Smaller values to try after fast-check's shrinking: whole pieces and chunk boundaries dropped. */
  reduce?(value: Value): Iterable<Value>;
}

export function emptyStatistics(): LawStatistics {
  return { cases: 0, commands: 0, mentions: 0, errors: {}, chunks: 0 };
}

function count(result: ParseResult, statistics: LawStatistics): void {
  statistics.commands += result.commands.length;
  statistics.mentions += result.mentions.length;
  for (const error of result.errors) statistics.errors[error.code] = (statistics.errors[error.code] ?? 0) + 1;
}

function essence(command: Command): PrintableCommand {
  return { protocol: command.protocol, parameters: command.parameters.map(({ key, form, text }) => ({ key, form, text })) };
}

/** A parse result without what only positions say, for side-by-side display. */
function findings(result: ParseResult): unknown {
  return {
    commands: result.commands.map((command) => ({ at: command.span.start.offset, ...essence(command) })),
    mentions: result.mentions.map((mention) => ({ at: mention.span.start.offset, context: mention.context, text: mention.text })),
    errors: result.errors.map((error) => ({ at: error.span.start.offset, code: error.code })),
  };
}

const same = (left: unknown, right: unknown) => JSON.stringify(left) === JSON.stringify(right);

const FRAGMENTS = [
  "[",
  "]",
  "FILE_OP",
  "X",
  ":",
  "action",
  "=",
  "read",
  "path",
  '"',
  '\\"',
  "<<",
  "EOF",
  "\n",
  "  ",
  "\t",
  "```",
  "~~~",
  "`",
  "\\[",
  "[x]",
  "[NOTE]",
  "[A:b=c]",
  "abc",
  "===",
  "\r",
  "é",
  "😀",
  "[RESULT:x=1]",
  "{",
  "}",
];

/** Text as pieces (so shrinking drops whole pieces): random strings, a soup of command fragments, or a document. */
const anyPieces: fc.Arbitrary<string[]> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 120 }).map((text) => [text]),
  fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 40 }),
  documentPiecesArbitrary(),
);

/** Pieces of text and where to cut their join into chunks (fractions of its length, so both shrink on their own). */
export interface ChunkedText {
  pieces: string[];
  cuts: number[];
  /** Feed one character at a time instead. */
  everyCharacter: boolean;
}

export function chunksOf(value: ChunkedText): string[] {
  const text = value.pieces.join("");
  if (value.everyCharacter) return [...Array(text.length).keys()].map((index) => text[index]!);
  return splitAt(
    text,
    value.cuts.map((cut) => Math.floor(cut * text.length)),
  );
}

function chunkedArbitrary(pieces: fc.Arbitrary<string[]>): fc.Arbitrary<ChunkedText> {
  return fc.record({
    pieces,
    cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { maxLength: 20 }),
    everyCharacter: fc.oneof({ weight: 1, arbitrary: fc.constant(true) }, { weight: 5, arbitrary: fc.constant(false) }),
  });
}

function* withoutOne<T>(items: readonly T[]): Generator<T[]> {
  for (let index = 0; index < items.length; index++) yield [...items.slice(0, index), ...items.slice(index + 1)];
}

function* reduceChunked(value: ChunkedText): Generator<ChunkedText> {
  if (value.everyCharacter)
    yield { ...value, everyCharacter: false, cuts: [...Array(Math.min(20, value.pieces.join("").length)).keys()].map((index, _, all) => index / all.length) };
  for (const pieces of withoutOne(value.pieces)) yield { ...value, pieces };
  for (const cuts of withoutOne(value.cuts)) yield { ...value, cuts };
}

function chunkingLaw(name: string, pieces: fc.Arbitrary<string[]>): Law<ChunkedText> {
  return {
    name,
    arbitrary: chunkedArbitrary(pieces),
    check(value, grammar, statistics) {
      const chunks = chunksOf(value);
      statistics.chunks += chunks.length;
      const whole = grammar.parse(chunks.join(""));
      count(whole, statistics);
      const chunked = grammar.scan(chunks);
      if (!same(findings(chunked), findings(whole))) throw new LawViolation("the chunked scan found something else than one parse", findings(whole), findings(chunked));
    },
    show: (value) => `chunks ${chunksOf(value).map(compactString).join(" | ")}`,
    reduce: reduceChunked,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: each law draws its own kind of value; the list holds them all.
export function grammarLaws(): Law<any>[] {
  return [
    {
      name: "grammar: parse never throws",
      arbitrary: anyPieces.map((pieces) => pieces.join("")),
      check(text: string, grammar, statistics) {
        const result = grammar.parse(text);
        count(result, statistics);
        const internal = result.errors.find((error) => error.message.startsWith("internal"));
        if (internal) throw new LawViolation(internal.message);
        const spans = [...result.commands, ...result.mentions, ...result.errors].map((found) => found.span);
        if (spans.some((span) => span.start.offset < 0 || span.end.offset > text.length || span.end.offset < span.start.offset))
          throw new LawViolation("a span lies outside the text");
      },
      show: (text: string) => compactString(text),
    } satisfies Law<string>,
    {
      name: "grammar: parse(print(c)) equals c",
      arbitrary: printableCommandArbitrary(),
      check(command: PrintableCommand, grammar, statistics) {
        const result = grammar.parse(grammar.print(command));
        count(result, statistics);
        if (result.errors.length || !same(result.commands.map(essence), [command])) {
          throw new LawViolation(`parsed with ${result.errors.length} error(s)`, [command], result.commands.map(essence));
        }
      },
      show: (command: PrintableCommand) => compactString(print(command)),
    } satisfies Law<PrintableCommand>,
    {
      name: "grammar: every JSON escape reads as its character",
      arbitrary: escapedTextArbitrary(),
      check({ text, literal }, grammar, statistics) {
        const result = grammar.parse(`[A:k=${literal}]`);
        count(result, statistics);
        const read = result.commands[0]?.parameters[0]?.text;
        if (result.errors.length || read !== text)
          throw new LawViolation(`the quoted value ${literal} did not read as its text`, text, read ?? result.errors.map((error) => error.message));
      },
      show: ({ literal }) => `[A:k=${literal}]`,
    } satisfies Law<{ text: string; literal: string }>,
    {
      name: "grammar: a heredoc terminator with trailing blanks closes it",
      arbitrary: fc.record({ command: printableCommandArbitrary({ forms: ["heredoc"], maxParameters: 2 }), blanks: trailingBlanksArbitrary() }),
      check({ command, blanks }, grammar, statistics) {
        const text = withTrailingBlanks(grammar.print(command), blanks);
        const result = grammar.parse(text);
        count(result, statistics);
        if (result.errors.length || !same(result.commands.map(essence), [command])) {
          throw new LawViolation(`terminator lines ending in ${JSON.stringify(blanks)} did not close the heredoc`, [command], result.commands.map(essence));
        }
      },
      show: ({ command, blanks }) => compactString(withTrailingBlanks(print(command), blanks)),
    } satisfies Law<{ command: PrintableCommand; blanks: string }>,
    chunkingLaw("grammar: chunked scanning equals one parse", anyPieces),
    chunkingLaw("grammar: documents with syntax errors scan the same in any chunking", documentPiecesArbitrary({ withErrors: true })),
    {
      name: "grammar: commands in prose are found, inert ones are mentions",
      arbitrary: documentArbitrary(),
      check({ text, expected }: GeneratedDocument, grammar, statistics) {
        const result = grammar.parse(text);
        count(result, statistics);
        const commands = result.commands.map((command) => ({ offset: command.span.start.offset, command: essence(command) }));
        const mentions = result.mentions.map((mention) => ({ offset: mention.span.start.offset, text: mention.text, context: mention.context }));
        if (result.errors.length) throw new LawViolation(`unexpected syntax error: ${result.errors[0]!.message}`);
        if (!same(commands, expected.commands)) throw new LawViolation("other commands were found", expected.commands, commands);
        if (!same(mentions, expected.mentions)) throw new LawViolation("other mentions were found", expected.mentions, mentions);
      },
      show: (document: GeneratedDocument) => compactString(document.text),
    } satisfies Law<GeneratedDocument>,
    {
      name: "grammar: the command machine and Chevrotain read commands alike",
      arbitrary: fc.oneof(
        printableCommandArbitrary().map((command) => print(command)),
        nearMissArbitrary(),
        commandShapedArbitrary(),
      ),
      check(text: string, grammar, statistics) {
        const agreement = compareRecognisers(text, grammar);
        count(agreement.parsed, statistics);
        if (agreement.kind === "disagree") throw new LawViolation(agreement.problem, verdictFindings(agreement.chevrotain), verdictFindings(agreement.machine));
      },
      show: (text: string) => compactString(text),
    } satisfies Law<string>,
  ];
}

/** A recogniser's verdict for side-by-side display: whole or not, and what it read. */
function verdictFindings(verdict: Verdict): unknown {
  if (!verdict.whole) return { whole: false };
  const { command } = verdict;
  return { whole: true, end: command.span.end.offset, ...essence(command), raw: command.parameters.map((parameter) => parameter.raw) };
}

/** Puts `blanks` after every heredoc terminator line of a printed command. */
export function withTrailingBlanks(printed: string, blanks: string): string {
  let open: string | undefined;
  return printed
    .split("\n")
    .map((line) => {
      if (open === undefined) {
        open = /<<([A-Za-z_][A-Za-z0-9_]*)$/.exec(line)?.[1];
        return line;
      }
      if (line !== open) return line;
      open = undefined;
      return `${line}${blanks}`;
    })
    .join("\n");
}

/** How a violation reads: its message, and expected and actual side by side when it has them. */
export function describeViolation(error: unknown): string {
  if (error instanceof LawViolation && error.expected !== undefined) return `${error.message}\n${sideBySide(error.expected, error.actual)}`;
  return error instanceof Error ? error.message : String(error);
}
