/**
 * File and process tool figures, measured side by side in one run (ratios matter; the machine is shared):
 *   node --import tsx bench/file-op.bench.ts
 * Data is generated with a fixed seed into os.tmpdir() and removed afterwards.
 */
import { execFile } from "node:child_process";
import { createWriteStream, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import fastGlob from "fast-glob";
import { runProcess } from "../tools/exec/index.js";
import { FileTools } from "../tools/files/index.js";
import { Workspace } from "../tools/workspace.js";
import { median, seededRandom, time } from "./support.js";

interface Row {
  task: string;
  ours: number;
  baseline: number;
  baselineName: string;
  note?: string;
}

/** Median milliseconds of `runs` calls. */
async function timeMedian(runs: number, work: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) samples.push(await time(work));
  return median(samples);
}

const random = seededRandom(42);
const word = () => Math.floor(random() * 36 ** 6).toString(36);

async function main(): Promise<void> {
  const base = await fs.mkdtemp(path.join(os.tmpdir(), "clio-bench-files-"));
  const root = path.join(base, "project");
  await fs.mkdir(root);
  const workspace = await Workspace.open(root);
  const files = new FileTools(workspace);
  const rows: Row[] = [];
  try {
    // A 50 MB log.
    const big = createWriteStream(path.join(root, "big.log"));
    for (let line = 0; line < 700_000; line++) big.write(`${line} ${word()} ${word()} ${word()} ${word()} ${word()} ${word()} ${word()} ${word()}\n`);
    await new Promise<void>((resolve) => big.end(() => resolve()));
    const heapBefore = process.memoryUsage().heapUsed;
    const windowed = await timeMedian(5, () => files.read("big.log"));
    const heapAfter = process.memoryUsage().heapUsed;
    const whole = await timeMedian(5, async () => (await fs.readFile(path.join(root, "big.log"), "utf8")).split("\n").length);
    rows.push({
      task: "read 50 MB log (first window + line count)",
      ours: windowed,
      baseline: whole,
      baselineName: "readFile+split",
      note: `heap growth ${((heapAfter - heapBefore) / 1e6).toFixed(1)} MB`,
    });
    const late = await timeMedian(5, () => files.read("big.log", { offset: 600_000, limit: 50 }));
    rows.push({ task: "read 50 lines at line 600,000", ours: late, baseline: whole, baselineName: "readFile+split" });

    // A source tree: 2,000 files, plus 10,000 ignored files in node_modules.
    await fs.writeFile(path.join(root, ".gitignore"), "node_modules/\n");
    for (let index = 0; index < 2000; index++) {
      const folder = path.join(root, "src", `m${index % 40}`);
      await fs.mkdir(folder, { recursive: true });
      await fs.writeFile(path.join(folder, `f${index}.ts`), Array.from({ length: 40 }, () => `const ${word()} = "${word()}"; // ${random() < 0.01 ? "TODO" : word()}`).join("\n"));
    }
    for (let index = 0; index < 10_000; index++) {
      const folder = path.join(root, "node_modules", `p${index % 200}`);
      await fs.mkdir(folder, { recursive: true });
      await fs.writeFile(path.join(folder, `i${index}.js`), "module.exports = 1;\n");
    }
    const glob = await timeMedian(5, () => files.search("*.ts"));
    const plainGlob = await timeMedian(5, () => fastGlob("**/*.ts", { cwd: root, dot: true }));
    rows.push({ task: "search *.ts (2k files, 10k ignored)", ours: glob, baseline: plainGlob, baselineName: "fast-glob, no ignore" });
    const content = await timeMedian(3, () => files.search("*.ts", { content: "TODO" }));
    const { stdout } = await promisify(execFile)("sh", ["-c", "command -v grep"]).catch(() => ({ stdout: "" }));
    const grep =
      stdout.trim() === "" ? Number.NaN : await timeMedian(3, () => promisify(execFile)("grep", ["-rn", "--include=*.ts", "TODO", "src"], { cwd: root }).catch(() => undefined));
    rows.push({ task: "search content TODO in 2k files", ours: content, baseline: grep, baselineName: "grep -rn" });
    const listing = await timeMedian(5, () => files.list(".", { recursive: true }));
    rows.push({ task: "list recursive (capped at 1,000)", ours: listing, baseline: plainGlob, baselineName: "fast-glob, no ignore" });

    // Writes: atomic (temp + datasync + rename) against a plain writeFile.
    const text = `${"x".repeat(100)}\n`;
    const atomic = await timeMedian(30, () => files.write("out/atomic.txt", text.repeat(100)));
    const plain = await timeMedian(30, () => fs.writeFile(path.join(root, "out", "plain.txt"), text.repeat(100)));
    rows.push({ task: "write 10 KB file", ours: atomic, baseline: plain, baselineName: "fs.writeFile" });

    // A missed replace on a 5,000-line file (the closest-lines search).
    await fs.writeFile(path.join(root, "long.ts"), Array.from({ length: 5000 }, (_, index) => `  const value${index} = compute(${index});`).join("\n"));
    const miss = await timeMedian(5, () => files.replace("long.ts", "  const value2500 = compute(2500 );\n  const value2501 = compute(2501);", "x").catch(() => undefined));
    const hit = await timeMedian(5, () => files.replace("long.ts", "compute(2500);", "compute(2500);"));
    rows.push({ task: "replace miss with closest lines (5k lines)", ours: miss, baseline: hit, baselineName: "replace hit" });

    // Process start: runProcess (group, capture, cleanup checks) against a bare execFile.
    const ours = await timeMedian(20, () => runProcess({ file: "/bin/sh", args: ["-c", "true"], cwd: root, env: process.env, timeoutMs: 10_000 }));
    const bare = await timeMedian(20, () => promisify(execFile)("/bin/sh", ["-c", "true"]));
    rows.push({ task: "run `true`", ours, baseline: bare, baselineName: "execFile" });
  } finally {
    await fs.rm(base, { recursive: true, force: true });
  }

  const pad = (text: string, width: number) => text.padEnd(width);
  console.log(`${pad("task", 46)}${pad("clio ms", 10)}${pad("baseline ms", 13)}${pad("ratio", 8)}baseline`);
  for (const row of rows) {
    const ratio = Number.isNaN(row.baseline) ? "-" : (row.ours / row.baseline).toFixed(2);
    console.log(`${pad(row.task, 46)}${pad(row.ours.toFixed(1), 10)}${pad(row.baseline.toFixed(1), 13)}${pad(ratio, 8)}${row.baselineName}${row.note ? `  (${row.note})` : ""}`);
  }
}

await main();
