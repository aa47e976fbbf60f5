/**
 * The grammar laws (docs/protocol.md, shared contract §5) as fast-check properties:
 * - the parser never throws and never reports an internal failure, for any text;
 * - round trip: `parse(print(c))` gives back `c` (protocol, keys, forms, values);
 * - chunking: the streaming scanner fed any chunking finds exactly what one `parse` finds;
 * - embedding: a printed command inside prose without brackets is found, alone and intact.
 */
import fc from "fast-check";
import { parse, print, StreamingScanner, type Command, type ParseResult, type PrintableCommand } from "../../grammar/index.js";
import { collectEvents } from "../../grammar/parse.js";
import type { FuzzFailure, FuzzOutcome } from "./protocol-fuzz.js";
import { commandArbitrary, proseArbitrary, soupArbitrary } from "./grammar-arbitraries.js";

export interface GrammarFuzzOptions {
  runs: number;
  seed: number;
}

function sameFindings(left: ParseResult, right: ParseResult): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

function parseInChunks(text: string, cuts: number[]): ParseResult {
  const scanner = new StreamingScanner();
  const result: ParseResult = { commands: [], mentions: [], errors: [] };
  let from = 0;
  for (const cut of [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((left, right) => left - right)) {
    collectEvents(scanner.push(text.slice(from, cut)), result);
    from = Math.max(from, cut);
  }
  collectEvents(scanner.push(text.slice(from)), result);
  collectEvents(scanner.end(), result);
  return result;
}

function essence(command: Command): PrintableCommand {
  return { protocol: command.protocol, parameters: command.parameters.map(({ key, form, text }) => ({ key, form, text })) };
}

/** What `print` is expected to keep: a bare value that cannot stay bare is written quoted. */
function expectedAfterPrint(command: PrintableCommand, printed: Command): boolean {
  const found = essence(printed);
  if (found.protocol !== command.protocol.toUpperCase() || found.parameters.length !== command.parameters.length) return false;
  return command.parameters.every((parameter, index) => {
    const back = found.parameters[index]!;
    return back.key === parameter.key && back.text === parameter.text;
  });
}

interface Law {
  name: string;
  property: fc.IAsyncPropertyWithHooks<[string]> | fc.IPropertyWithHooks<[string]>;
}

function laws(): Law[] {
  const text = fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: "grapheme", maxLength: 60 }), soupArbitrary());
  return [
    {
      name: "grammar: parse never throws",
      property: fc.property(text, (input) => {
        const result = parse(input);
        const internal = result.errors.find((error) => error.message.startsWith("internal:"));
        if (internal) throw new Error(internal.message);
        const offsets = [...result.commands.map((command) => command.span), ...result.errors.map((error) => error.span)];
        if (offsets.some((span) => span.start.offset < 0 || span.end.offset > input.length || span.end.offset < span.start.offset)) {
          throw new Error("a span lies outside the text");
        }
      }),
    },
    {
      name: "grammar: parse(print(c)) equals c",
      property: fc.property(commandArbitrary().map((command) => JSON.stringify(command)), (encoded) => {
        const command = JSON.parse(encoded) as PrintableCommand;
        const printed = print(command);
        const result = parse(printed);
        if (result.errors.length || result.commands.length !== 1 || !expectedAfterPrint(command, result.commands[0]!)) {
          throw new Error(`${printed} parsed as ${JSON.stringify(result.commands.map(essence))} with ${result.errors.length} error(s)`);
        }
      }),
    },
    {
      name: "grammar: chunked scanning equals one parse",
      property: fc.property(
        fc.tuple(text, fc.array(fc.nat({ max: 400 }), { maxLength: 8 })).map(([input, cuts]) => JSON.stringify([input, cuts])),
        (encoded) => {
          const [input, cuts] = JSON.parse(encoded) as [string, number[]];
          if (!sameFindings(parse(input), parseInChunks(input, cuts))) throw new Error("the chunked scan found something else");
        },
      ),
    },
    {
      name: "grammar: a command embedded in prose is found intact",
      property: fc.property(
        fc.tuple(proseArbitrary(), commandArbitrary(), proseArbitrary()).map(([before, command, after]) => JSON.stringify([before, command, after])),
        (encoded) => {
          const [before, command, after] = JSON.parse(encoded) as [string, PrintableCommand, string];
          const result = parse(`${before}${print(command)}${after}`);
          if (result.commands.length !== 1 || result.errors.length || !expectedAfterPrint(command, result.commands[0]!)) {
            throw new Error(`expected exactly ${print(command)}, found ${JSON.stringify(result.commands.map(essence))} and ${result.errors.length} error(s)`);
          }
        },
      ),
    },
  ];
}

/** Checks every grammar law; each outcome names its law. */
export async function fuzzGrammar(options: GrammarFuzzOptions): Promise<FuzzOutcome[]> {
  const outcomes: FuzzOutcome[] = [];
  for (const law of laws()) {
    const details = await fc.check(law.property as fc.IProperty<[string]>, { numRuns: options.runs, seed: options.seed });
    const outcome: FuzzOutcome = { target: law.name, runs: details.numRuns, counts: { handled: 0, gated: 0, rejected: 0 } };
    if (details.failed && details.counterexample) {
      const failure: FuzzFailure = {
        kind: "grammar",
        target: law.name,
        seed: details.seed,
        runs: options.runs,
        script: details.counterexample[0],
        problem: details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance),
      };
      if (details.counterexamplePath) failure.path = details.counterexamplePath;
      outcome.failure = failure;
    }
    outcomes.push(outcome);
  }
  return outcomes;
}
