/**
 * The grammar laws (shared contract §5) as fast-check properties, over the grammar's own
 * arbitraries (grammar/arbitraries.ts):
 * - the parser never throws and never reports an internal failure, for any text;
 * - round trip: `parse(print(c))` gives back `c` (protocol, keys, forms, values);
 * - chunking: the streaming scanner fed any chunking finds exactly what one `parse` finds;
 * - embedding: commands placed in prose and markdown are found where live, and reported as
 *   mentions where inert (fences, inline code).
 */
import fc from "fast-check";
import { chunkingArbitrary, documentArbitrary, printableCommandArbitrary, type GeneratedDocument } from "../../grammar/arbitraries.js";
import { parse, print, StreamingScanner, type Command, type ParseResult, type PrintableCommand } from "../../grammar/index.js";
import { collectEvents } from "../../grammar/parse.js";
import type { FuzzFailure, FuzzOutcome } from "./protocol-fuzz.js";

export interface GrammarFuzzOptions {
  runs: number;
  seed: number;
}

interface Law<Value> {
  name: string;
  arbitrary: fc.Arbitrary<Value>;
  /** Throws when the law does not hold for `value`. */
  check(value: Value): void;
  /** The counterexample as text a person can paste. */
  show(value: Value): string;
}

const FRAGMENTS = [
  "[", "]", "FILE_OP", "X", ":", "action", "=", "read", "path", '"', '\\"', "<<", "EOF", "\n", "  ", "\t",
  "```", "~~~", "`", "\\[", "[x]", "[NOTE]", "[A:b=c]", "abc", "===", "\r", "é", "😀", "[RESULT:x=1]", "{", "}",
];

/** Random concatenations of command fragments: mostly broken commands, fences and code spans. */
const soupArbitrary = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 40 }).map((parts) => parts.join(""));

const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 120 }),
  soupArbitrary,
  documentArbitrary().map((document) => document.text),
);

function essence(command: Command): PrintableCommand {
  return { protocol: command.protocol, parameters: command.parameters.map(({ key, form, text }) => ({ key, form, text })) };
}

function parseChunks(chunks: string[]): ParseResult {
  const scanner = new StreamingScanner();
  const result: ParseResult = { commands: [], mentions: [], errors: [] };
  for (const chunk of chunks) collectEvents(scanner.push(chunk), result);
  return collectEvents(scanner.end(), result);
}

function same(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

// biome-ignore lint/suspicious/noExplicitAny: each law draws its own kind of value; the list holds them all.
const laws = (): Law<any>[] => [
  {
    name: "grammar: parse never throws",
    arbitrary: anyText,
    check(text: string) {
      const result = parse(text);
      const internal = result.errors.find((error) => error.message.startsWith("internal"));
      if (internal) throw new Error(internal.message);
      const spans = [...result.commands, ...result.mentions, ...result.errors].map((found) => found.span);
      if (spans.some((span) => span.start.offset < 0 || span.end.offset > text.length || span.end.offset < span.start.offset)) {
        throw new Error("a span lies outside the text");
      }
    },
    show: (text: string) => JSON.stringify(text),
  } satisfies Law<string>,
  {
    name: "grammar: parse(print(c)) equals c",
    arbitrary: printableCommandArbitrary(),
    check(command: PrintableCommand) {
      const result = parse(print(command));
      if (result.errors.length || !same(result.commands.map(essence), [command])) {
        throw new Error(`parsed as ${JSON.stringify(result.commands.map(essence))} with ${result.errors.length} error(s)`);
      }
    },
    show: (command: PrintableCommand) => print(command),
  } satisfies Law<PrintableCommand>,
  {
    name: "grammar: chunked scanning equals one parse",
    arbitrary: anyText.chain((text) => chunkingArbitrary(text)),
    check(chunks: string[]) {
      if (!same(parseChunks(chunks), parse(chunks.join("")))) throw new Error("the chunked scan found something else than one parse");
    },
    show: (chunks: string[]) => `chunks ${JSON.stringify(chunks)}`,
  } satisfies Law<string[]>,
  {
    name: "grammar: commands in prose are found, inert ones are mentions",
    arbitrary: documentArbitrary(),
    check({ text, expected }: GeneratedDocument) {
      const result = parse(text);
      const commands = result.commands.map((command) => ({ offset: command.span.start.offset, command: essence(command) }));
      const mentions = result.mentions.map((mention) => ({ offset: mention.span.start.offset, text: mention.text, context: mention.context }));
      if (result.errors.length) throw new Error(`unexpected syntax error: ${result.errors[0]!.message}`);
      if (!same(commands, expected.commands)) throw new Error(`commands ${JSON.stringify(commands)}, expected ${JSON.stringify(expected.commands)}`);
      if (!same(mentions, expected.mentions)) throw new Error(`mentions ${JSON.stringify(mentions)}, expected ${JSON.stringify(expected.mentions)}`);
    },
    show: (document: GeneratedDocument) => JSON.stringify(document.text),
  } satisfies Law<GeneratedDocument>,
];

/** Checks every grammar law; each outcome names its law. */
export async function fuzzGrammar(options: GrammarFuzzOptions): Promise<FuzzOutcome[]> {
  const outcomes: FuzzOutcome[] = [];
  for (const law of laws()) {
    const details = fc.check(fc.property(law.arbitrary, (value) => law.check(value)), { numRuns: options.runs, seed: options.seed });
    const outcome: FuzzOutcome = { target: law.name, runs: details.numRuns, counts: { handled: 0, gated: 0, rejected: 0 } };
    if (details.failed && details.counterexample) {
      const failure: FuzzFailure = {
        kind: "grammar",
        target: law.name,
        seed: details.seed,
        runs: options.runs,
        script: law.show(details.counterexample[0]),
        problem: details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance),
      };
      if (details.counterexamplePath) failure.path = details.counterexamplePath;
      outcome.failure = failure;
    }
    outcomes.push(outcome);
  }
  return outcomes;
}
