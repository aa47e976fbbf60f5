/**
 * What the second recogniser costs: the command machine finds each command's span, then the
 * Chevrotain lexer and parser read the span again (grammar/parser.ts). Measured side by side
 * on a seeded model-like reply (prose with a command every ~2 KB) and on a command-dense
 * script (commands only, as in replay): one-shot parse, the Chevrotain re-read of the same
 * spans alone, and the share of the parse time it takes.
 *
 *     node --import tsx bench/recognisers.bench.ts
 */
import fc from "fast-check";
import { printableCommandArbitrary } from "../grammar/arbitraries.js";
import { parse, print } from "../grammar/index.js";
import { parseCommandText } from "../grammar/parser.js";

const MB = 1024 * 1024;
const PROSE =
  "I will read the configuration first and then run the tests, checking each result before the next step. " +
  "The parser keeps its state between chunks, so nothing is read twice. See [docs](http://x) and `run()`.\n\n";

const commands = fc.sample(printableCommandArbitrary({ forms: ["bare", "quoted", "heredoc"] }), { numRuns: 2_000, seed: 19 }).map(print);

function document(bytes: number, proseBetween: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let index = 0; length < bytes; index++) {
    const part = `${PROSE.repeat(proseBetween)}${commands[index % commands.length]}\n`;
    parts.push(part);
    length += part.length;
  }
  return parts.join("");
}

function best(rounds: number, run: () => void): number {
  let fastest = Infinity;
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    run();
    fastest = Math.min(fastest, performance.now() - start);
  }
  return fastest;
}

function measure(label: string, text: string): string[] {
  const found = parse(text);
  const spans = found.commands.map((command) => ({ text: text.slice(command.span.start.offset, command.span.end.offset), start: command.span.start }));
  for (let warm = 0; warm < 2; warm++) parse(text);
  const whole = best(7, () => parse(text));
  const reread = best(7, () => {
    for (const span of spans) parseCommandText(span.text, span.start);
  });
  const rate = (ms: number) => `${(text.length / MB / (ms / 1000)).toFixed(1)} MB/s`;
  const perCommand = (ms: number) => `${((ms * 1000) / spans.length).toFixed(1)} µs per command`;
  return [
    `${label}: ${(text.length / MB).toFixed(1)} MB, ${spans.length} commands, ${found.errors.length} errors`,
    `  one-shot parse                 ${whole.toFixed(1).padStart(8)} ms  ${rate(whole).padStart(11)}  ${perCommand(whole)}  1.00`,
    `  Chevrotain re-read, alone      ${reread.toFixed(1).padStart(8)} ms  ${rate(reread).padStart(11)}  ${perCommand(reread)}  ${(reread / whole).toFixed(2)} × the parse`,
  ];
}

const lines = [...measure("command-dense script", document(2 * MB, 0)), "", ...measure("model-like reply (a command every ~2 KB)", document(4 * MB, 6))];
console.log(lines.join("\n"));
