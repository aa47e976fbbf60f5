/**
 * Deep nesting stays linear: 10,000 open list items (or a quote around them) followed by blank
 * lines, which keep every item with content open, so a tracker that walks its containers per
 * line does 10,000 steps for each 1-character line. Measured at n and 2n lines in CPU time,
 * beside commonmark.js (the reference implementation, which does walk them) on the same text.
 *
 *     node --import tsx bench/grammar-nesting.bench.ts
 *
 * Target: twice the lines, at most about twice the time (≤ 2.2).
 */
import { Parser } from "commonmark";
import { parse } from "../grammar/index.js";
import { cpuBestMs as cpuMs } from "./support.js";

const DEPTH = 10_000;

const INPUTS: Record<string, (lines: number) => string> = {
  "10,000 list items, then blank lines": (lines) => `${"- ".repeat(DEPTH)}a\n${"\n".repeat(lines)}[A:k=1]`,
  "a quote around 10,000 list items, then > lines": (lines) => `> ${"- ".repeat(DEPTH)}a\n${">\n".repeat(lines)}> [A:k=1]`,
};

const reader = new Parser();
console.log("input                                            lines   clio ms  2n/n   commonmark.js ms  2n/n");
for (const [name, build] of Object.entries(INPUTS)) {
  const [small, large] = [build(5_000), build(10_000)];
  const clio = [cpuMs(() => parse(small), 7), cpuMs(() => parse(large), 7)];
  const reference = [cpuMs(() => reader.parse(small), 1), cpuMs(() => reader.parse(large), 1)];
  console.log(
    `${name.padEnd(48)} 5k/10k  ${clio[0]!.toFixed(1).padStart(5)}/${clio[1]!.toFixed(1).padEnd(6)} ${(clio[1]! / clio[0]!).toFixed(2)}   ${reference[0]!.toFixed(0).padStart(6)}/${reference[1]!.toFixed(0).padEnd(7)}  ${(reference[1]! / reference[0]!).toFixed(2)}`,
  );
}
