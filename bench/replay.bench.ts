/**
 * Replay overhead: a script of 10,000 FILE_OP reads of small files through the whole interpreter
 * (parse, check, permission, handler, result) against the fastest plain way to read the same
 * files, a readFileSync loop, interleaved in one run. Target: ≤ 3× the readFileSync loop. The
 * slower fs.readFile loops (one and four at a time) are shown beside it. On a loaded machine
 * wall times swing with the other processes, so the CPU time each side used is shown as well.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { replayScript } from "../src/replay/replay.js";
import { createRuntime } from "../src/runtime.js";
import { format, median, printTable, seededRandom, time } from "./support.js";

const files = 1000;
const commands = 10_000;
const folder = mkdtempSync(path.join(os.tmpdir(), "clio-replay-bench-"));
const random = seededRandom(7);
const paths: string[] = [];
for (let index = 0; index < files; index++) {
  const relative = `src/module${index % 20}/file${index}.ts`;
  mkdirSync(path.join(folder, path.dirname(relative)), { recursive: true });
  const lines = Array.from({ length: 20 + Math.floor(random() * 40) }, (_, line) => `export const value${line} = ${Math.floor(random() * 1e6)};`);
  writeFileSync(path.join(folder, relative), `${lines.join("\n")}\n`);
  paths.push(relative);
}
const order = Array.from({ length: commands }, (_, index) => paths[index % files]!);
const script = order.map((relative) => `[FILE_OP:action=read:path=${Buffer.from(relative).toString("base64")}]`).join("\n");

const runtime = await createRuntime({ workspace: folder, permissionMode: "plan" });
const replayTimes: number[] = [];
const plainTimes: number[] = [];
const syncTimes: number[] = [];
const parallelTimes: number[] = [];
const syncCpu: number[] = [];
const replayCpu: number[] = [];
let failures = 0;
/** Milliseconds of CPU (user and system) this process used so far. */
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
for (let round = 0; round < 4; round++) {
  let before = cpu();
  syncTimes.push(
    await time(() => {
      for (const relative of order) readFileSync(path.join(folder, relative), "utf8");
    }),
  );
  syncCpu.push(cpu() - before);
  plainTimes.push(
    await time(async () => {
      for (const relative of order) await readFile(path.join(folder, relative), "utf8");
    }),
  );
  parallelTimes.push(
    await time(async () => {
      // The same overlap replay allows read-only commands: four at a time.
      let next = 0;
      const worker = async () => {
        while (next < order.length) await readFile(path.join(folder, order[next++]!), "utf8");
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
    }),
  );
  before = cpu();
  replayTimes.push(
    await time(async () => {
      // As `clio replay SCRIPT` runs without --expect, --json or --junit: each result streams, only counts stay.
      const outcome = await replayScript(script, runtime.manager, { keepResults: false, onResult: () => undefined });
      failures += outcome.failed;
    }),
  );
  replayCpu.push(cpu() - before);
}
await runtime.manager.dispose();
rmSync(folder, { recursive: true, force: true });
if (failures) throw new Error(`${failures} reads failed during the benchmark`);
const replay = median(replayTimes.slice(1));
const plain = median(plainTimes.slice(1));
const sync = median(syncTimes.slice(1));
const parallel = median(parallelTimes.slice(1));
const syncUsed = median(syncCpu.slice(1));
const replayUsed = median(replayCpu.slice(1));
printTable([
  ["plain readFileSync loop, 10,000 reads (the floor)", `${format(sync)} ms  (${format((commands / sync) * 1000, 0)} reads/s)`],
  ["plain fs.readFile loop, 10,000 reads", `${format(plain)} ms  (${format((commands / plain) * 1000, 0)} reads/s)`],
  ["clio replay, 10,000 FILE_OP reads", `${format(replay)} ms  (${format((commands / replay) * 1000, 0)} commands/s)`],
  ["plain fs.readFile, 4 at a time", `${format(parallel)} ms  (${format((commands / parallel) * 1000, 0)} reads/s)`],
  ["overhead vs the readFileSync floor", `${format(replay / sync, 2)}× (target ≤ 3×)`],
  ["CPU time: readFileSync loop / replay", `${format(syncUsed)} / ${format(replayUsed)} ms: ${format(replayUsed / syncUsed, 2)}×`],
  ["overhead vs the plain readFile loop", `${format(replay / plain, 2)}×`],
  ["overhead vs the plain loop, 4 at a time", `${format(replay / parallel, 2)}× (the same overlap replay allows reads)`],
]);
