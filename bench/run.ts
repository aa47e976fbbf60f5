/**
 * `npm run bench`: runs every bench/*.bench.ts (or the ones named: `npm run bench -- grammar git`)
 * one after another, each in its own process so one's garbage does not slow the next. Words from
 * the first one starting with `--` on are handed to each bench (`npm run bench -- rag --clio X`).
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const folder = path.dirname(fileURLToPath(import.meta.url));
const words = process.argv.slice(2);
const firstFlag = words.findIndex((word) => word.startsWith("--"));
const wanted = firstFlag < 0 ? words : words.slice(0, firstFlag);
const passed = firstFlag < 0 ? [] : words.slice(firstFlag);
const files = readdirSync(folder)
  .filter((name) => name.endsWith(".bench.ts"))
  .filter((name) => wanted.length === 0 || wanted.some((word) => name.startsWith(word)))
  .sort();
let failures = 0;
for (const name of files) {
  process.stdout.write(`\n=== ${name}\n`);
  const run = spawnSync(process.execPath, ["--import", "tsx", path.join(folder, name), ...passed], { stdio: "inherit" });
  if (run.status !== 0) failures++;
}
process.stdout.write(`\n${files.length - failures} of ${files.length} benchmarks ran${failures ? `, ${failures} failed` : ""}.\n`);
process.exitCode = failures ? 1 : 0;
