/**
 * The workspace snapshots that let /undo take back what a shell command changed: taken just
 * before and just after every exec-class command. Measured side by side in one run on a
 * workspace of 5,000 text files (20 MB) with a node_modules folder the snapshot skips:
 * - the first snapshot of a session (reads every file) against the floor of reading the same
 *   files with a plain readFileSync loop;
 * - every later snapshot (only stats, files unchanged) against a plain lstatSync loop;
 * - a later snapshot after a command changed 10 files.
 */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { WorkspaceSnapshots } from "../src/agent/workspace-snapshot.js";
import { format, median, printTable, time } from "./support.js";

const root = mkdtempSync(path.join(os.tmpdir(), "clio-snapshot-bench-"));
const files: string[] = [];
const line = `${"const value = compute(input, options); ".repeat(2)}\n`;
for (let folder = 0; folder < 50; folder++) {
  mkdirSync(path.join(root, `src/part${folder}`), { recursive: true });
  for (let index = 0; index < 100; index++) {
    const file = path.join(root, `src/part${folder}/file${index}.ts`);
    writeFileSync(file, line.repeat(50));
    files.push(file);
  }
}
mkdirSync(path.join(root, "node_modules/dep"), { recursive: true });
for (let index = 0; index < 2000; index++) writeFileSync(path.join(root, `node_modules/dep/m${index}.js`), line);
writeFileSync(path.join(root, ".gitignore"), "node_modules/\n");
const bytes = files.reduce((sum, file) => sum + lstatSync(file).size, 0);

const rounds = 5;
const first: number[] = [];
const readFloor: number[] = [];
const again: number[] = [];
const statFloor: number[] = [];
const afterChange: number[] = [];
for (let round = 0; round < rounds; round++) {
  const snapshots = new WorkspaceSnapshots(root);
  first.push(await time(() => snapshots.take()));
  readFloor.push(await time(() => files.map((file) => readFileSync(file, "utf8").length)));
  again.push(await time(() => snapshots.take()));
  statFloor.push(await time(() => files.map((file) => lstatSync(file).size)));
  for (let index = 0; index < 10; index++) writeFileSync(files[index * 97]!, `${line.repeat(50)}// round ${round}\n`);
  afterChange.push(await time(() => snapshots.take()));
}

console.log(`${files.length.toLocaleString("en-US")} files, ${(bytes / 1024 / 1024).toFixed(1)} MiB, plus 2,000 ignored; median of ${rounds} rounds`);
printTable([
  ["first snapshot (reads all)", `${format(median(first))} ms`],
  ["floor: readFileSync loop", `${format(median(readFloor))} ms`],
  ["ratio", `${format(median(first) / median(readFloor), 2)}×`],
  ["later snapshot (stats only)", `${format(median(again))} ms`],
  ["floor: lstatSync loop", `${format(median(statFloor))} ms`],
  ["ratio", `${format(median(again) / median(statFloor), 2)}×`],
  ["later snapshot, 10 files changed", `${format(median(afterChange))} ms`],
]);
rmSync(root, { recursive: true, force: true });
