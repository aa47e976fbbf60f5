/**
 * Start-up cost of the bundled CLI against a bare `node -e 0`, measured interleaved in one run.
 * Targets: `clio --version` ≤ 1.5×, `clio parse` of a small file ≤ 2×. Also reported: `clio replay`
 * of a script holding one FILE_OP read (the start-up every fresh-process command pays).
 */
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { format, median, printTable, timeProcess } from "./support.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cli = path.join(root, "dist", "clio.cjs");
const folder = mkdtempSync(path.join(os.tmpdir(), "clio-startup-"));
const sample = path.join(folder, "reply.md");
writeFileSync(sample, 'Let me read it.\n[FILE_OP:action=read:path=c3JjL21haW4uYw==]\n`[EXEC:action=run:command="ls"]`\n');
const readScript = path.join(folder, "read.clio");
writeFileSync(readScript, '[FILE_OP:action=read:path="reply.md"]\n');

const rounds = 30;
const bare: number[] = [];
const versionRuns: number[] = [];
const parseRuns: number[] = [];
const replayRuns: number[] = [];
for (let round = 0; round < rounds + 3; round++) {
  const timings = [
    timeProcess(process.execPath, ["-e", "0"]),
    timeProcess(process.execPath, [cli, "--version"]),
    timeProcess(process.execPath, [cli, "parse", sample]),
    timeProcess(process.execPath, [cli, "replay", "--workspace", folder, readScript]),
  ];
  if (round < 3) continue; // warm the file cache first
  bare.push(timings[0]!);
  versionRuns.push(timings[1]!);
  parseRuns.push(timings[2]!);
  replayRuns.push(timings[3]!);
}
rmSync(folder, { recursive: true, force: true });
const base = median(bare);
printTable([
  ["node -e 0 (median of 30)", `${format(base)} ms`],
  ["clio --version", `${format(median(versionRuns))} ms  = ${format(median(versionRuns) / base, 2)}× node (target ≤ 1.5×)`],
  ["clio parse small.md", `${format(median(parseRuns))} ms  = ${format(median(parseRuns) / base, 2)}× node (target ≤ 2×)`],
  ["clio replay of one FILE_OP read", `${format(median(replayRuns))} ms  = ${format(median(replayRuns) / base, 2)}× node`],
]);
