/**
 * Replay as a test and fuzzing (issue 21): a script of 10,000 FILE_OP reads (with prose between
 * them) replayed in a fixed workspace, its results normalised and compared with recorded
 * expectations, against the floor of the same replay without any comparison; and the grammar
 * laws' runs per second, with a plain `parse` of the same generated inputs as the floor; and each
 * protocol's robustness property in runs per second, against the floor of making and removing
 * the same number of case sandboxes (what isolating a case costs before any command runs).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { documentArbitrary } from "../grammar/arbitraries.js";
import { parse } from "../grammar/index.js";
import { fuzzGrammar } from "../src/fuzz/grammar-fuzz.js";
import { fuzzProtocol } from "../src/fuzz/protocol-fuzz.js";
import { createFuzzSandbox } from "../src/fuzz/sandbox.js";
import { loadBuiltinProtocols } from "../src/registry.js";
import { buildExpectationFile } from "../src/replay/expectations.js";
import { replayScript } from "../src/replay/replay.js";
import { runScript } from "../src/replay/run-script.js";
import { createRuntime } from "../src/runtime.js";
import { format, median, printTable, time } from "./support.js";

const commands = 10_000;
const folder = mkdtempSync(path.join(os.tmpdir(), "clio-replay-fuzz-bench-"));
for (let index = 0; index < 100; index++) {
  mkdirSync(path.join(folder, "src"), { recursive: true });
  writeFileSync(path.join(folder, "src", `file${index}.ts`), `export const value${index} = ${index};\n`.repeat(20));
}
const script = Array.from({ length: commands }, (_, index) => `Step ${index}: read it.\n[FILE_OP:action=read:path="src/file${index % 100}.ts"]`).join("\n");

// Imported at run time so the bench also runs on the code before issue 21 (compareResults lived in expectations.ts).
const compare: (file: unknown, name: string, actual: unknown[]) => unknown[] = await import("../src/replay/compare.js")
  .then((module) => module.compareResults as never)
  .catch(async () => (await import("../src/replay/expectations.js" as string)).compareResults);

const floorTimes: number[] = [];
const testTimes: number[] = [];
const runtime = await createRuntime({ workspace: folder, permissionMode: "plan" });
const recorded = await runScript(script, { workspace: folder, permissionMode: "plan" });
const expectations = buildExpectationFile("bench.md", recorded.expected);
for (let round = 0; round < 4; round++) {
  floorTimes.push(await time(() => replayScript(script, runtime.manager)));
  testTimes.push(
    await time(async () => {
      const run = await runScript(script, { workspace: folder, permissionMode: "plan" });
      const differences = compare(expectations, "bench.md", run.expected);
      if (differences.length) throw new Error(`${differences.length} differences in the benchmark's own replay`);
    }),
  );
}
await runtime.manager.dispose();
rmSync(folder, { recursive: true, force: true });
const floor = median(floorTimes.slice(1));
const test = median(testTimes.slice(1));

const runs = 300;
const lawTimes: number[] = [];
let laws = 0;
const perLaw = new Map<string, number[]>();
for (let round = 0; round < 3; round++) {
  lawTimes.push(
    await time(async () => {
      const outcomes = await fuzzGrammar({ runs, seed: 42 });
      laws = outcomes.length;
      // Each law's own time, where the fuzzer reports it (after issue 21).
      for (const outcome of outcomes as { target: string; durationMs?: number }[]) {
        if (outcome.durationMs !== undefined) perLaw.set(outcome.target, [...(perLaw.get(outcome.target) ?? []), outcome.durationMs]);
      }
    }),
  );
}
const samples = fc.sample(documentArbitrary(), { numRuns: runs, seed: 42 });
const parseFloor = median(
  [0, 1, 2].map(() => {
    const start = performance.now();
    for (const sample of samples) parse(sample.text);
    return performance.now() - start;
  }),
);
const grammar = median(lawTimes);

// Protocol properties: a short run each (a case is a sandbox, a manager, 1–3 commands and the checks after them).
const protocolRuns = Number(process.env.CLIO_BENCH_PROTOCOL_RUNS ?? 20);
const protocolRows: [string, string][] = [];
const sandboxFloor = await time(async () => {
  for (let index = 0; index < protocolRuns; index++) await (await createFuzzSandbox()).remove();
});
for (const protocol of (await loadBuiltinProtocols()).all()) {
  const took = await time(() => fuzzProtocol(protocol, { runs: protocolRuns, seed: 42, strict: false }));
  protocolRows.push([`  ${protocol.name}`, `${format((protocolRuns * 1000) / took, 1)} runs/s  (${format(took / sandboxFloor, 1)}× the sandbox floor)`]);
}
printTable([
  ["replay of 10,000 reads, no comparison (floor)", `${format(floor)} ms  (${format((commands / floor) * 1000, 0)} commands/s)`],
  ["replay as a test: run, normalise, compare", `${format(test)} ms  (${format((commands / test) * 1000, 0)} commands/s, ${format(test / floor, 2)}× the floor)`],
  [
    `grammar laws (${laws}), ${runs} runs each`,
    `${format(grammar)} ms  (${format((laws * runs * 1000) / grammar, 0)} runs/s over all laws, ${format((runs * 1000) / (grammar / laws), 0)} runs/s per law on average)`,
  ],
  [`plain parse of ${runs} generated documents (floor)`, `${format(parseFloor)} ms  (${format((runs / parseFloor) * 1000, 0)} parses/s)`],
  ...[...perLaw].map(([law, times]): [string, string] => [`  ${law}`, `${format((runs * 1000) / median(times), 0)} runs/s`]),
  [
    `protocol properties, ${protocolRuns} runs each; floor: ${protocolRuns} case sandboxes made and removed`,
    `${format(sandboxFloor)} ms  (${format((protocolRuns * 1000) / sandboxFloor, 1)} sandboxes/s)`,
  ],
  ...protocolRows,
]);
