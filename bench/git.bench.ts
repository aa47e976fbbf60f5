/**
 * GIT.status against `git status --porcelain` on the same 5,000-file repository with 10
 * modified files, measured side by side in one run (median of several repetitions), plus
 * isomorphic-git's statusMatrix for reference. Run: node --import tsx bench/git.bench.ts
 */
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import git from "isomorphic-git";
import * as nodeFs from "node:fs";
import { gitProtocol } from "../protocols/git.js";
import { Workspace } from "../tools/workspace.js";
import { median, seededRandom, time, gitBenchEnvironment } from "./support.js";

const run = promisify(execFile);
const FILES = 5000;
const MODIFIED = 10;
const REPETITIONS = 21;

async function buildRepository(root: string, env: NodeJS.ProcessEnv): Promise<void> {
  const random = seededRandom(42);
  const files: string[] = [];
  for (let number = 0; number < FILES; number++) {
    const folder = `pkg${number % 25}/module${Math.floor(number / 25) % 8}`;
    files.push(`${folder}/file${number}.ts`);
  }
  await Promise.all(
    files.map(async (file) => {
      await fs.mkdir(path.join(root, path.dirname(file)), { recursive: true });
      const lines = Array.from({ length: 5 + Math.floor(random() * 40) }, (_unused, line) => `export const value${line} = ${Math.floor(random() * 1e6)};`);
      await fs.writeFile(path.join(root, file), `${lines.join("\n")}\n`);
    }),
  );
  await fs.writeFile(path.join(root, ".gitignore"), "*.log\nbuild/\n");
  const gitIn = (args: string[]) => run("git", args, { cwd: root, env, maxBuffer: 256 * 1024 * 1024 });
  await gitIn(["init", "-q", "-b", "main"]);
  await gitIn(["add", "-A"]);
  await gitIn(["commit", "-q", "-m", "5,000 files"]);
  // In normal use the index is older than the files' last second. Right after a commit it is
  // not: every entry is "racily clean" and both tools would hash all 5,000 files.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  for (let number = 0; number < MODIFIED; number++) {
    const file = files[Math.floor(random() * files.length)]!;
    await fs.appendFile(path.join(root, file), `// modified ${number}\n`);
  }
  await fs.writeFile(path.join(root, "untracked.txt"), "new\n");
}

async function main(): Promise<void> {
  const base = await fs.mkdtemp(path.join(os.tmpdir(), "clio-git-bench-"));
  const root = path.join(base, "repo");
  await fs.mkdir(root);
  const env = gitBenchEnvironment(base);
  try {
    const built = await time(() => buildRepository(root, env));
    const environment = { workspace: await Workspace.open(root), config: {}, env, now: Date.now, userAgent: "clio-bench" };
    const clioStatus = () => gitProtocol.actions.status!.handler({}, { state: undefined, environment, signal: new AbortController().signal });
    const gitStatus = () => run("git", ["status", "--porcelain"], { cwd: root, env, maxBuffer: 64 * 1024 * 1024 });

    // Same answer first: the numbers mean nothing otherwise.
    const clioLines = ((await clioStatus()).data as { entries: unknown[] }).entries.length;
    const gitLines = (await gitStatus()).stdout.trim().split("\n").length;
    if (clioLines !== gitLines) throw new Error(`clio reports ${clioLines} entries, git ${gitLines}`);

    const clioTimes: number[] = [];
    const gitTimes: number[] = [];
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      clioTimes.push(await time(clioStatus));
      gitTimes.push(await time(gitStatus));
    }
    const matrixTimes: number[] = [];
    for (let repetition = 0; repetition < 2; repetition++) {
      matrixTimes.push(await time(() => git.statusMatrix({ fs: nodeFs, dir: root, cache: {} })));
    }

    const gitMedian = median(gitTimes);
    const gitBest = Math.min(...gitTimes);
    const row = (name: string, times: number[], note: string) => {
      const middle = median(times);
      const best = Math.min(...times);
      const cells = [middle, middle / gitMedian, best, best / gitBest].map((value, column) => (column % 2 ? `${value.toFixed(2)}×` : `${value.toFixed(1)} ms`).padStart(11));
      return `${name.padEnd(34)}${cells.join("")}  ${note}`;
    };
    console.log(`GIT status on ${FILES.toLocaleString("en")} files, ${MODIFIED} modified, 1 untracked (repo built in ${(built / 1000).toFixed(1)} s)`);
    console.log(`${"".padEnd(34)}${"median".padStart(11)}${"vs git".padStart(11)}${"best".padStart(11)}${"vs git".padStart(11)}`);
    console.log(row("git status --porcelain (process)", gitTimes, `${REPETITIONS} runs`));
    console.log(row("clio GIT.status (in process)", clioTimes, `${REPETITIONS} runs, target ≤ 3×`));
    console.log(row("isomorphic-git statusMatrix", matrixTimes, "2 runs, for reference"));
    console.log("The machine is shared and noisy: the best-of-N ratio is the steadier figure.");
  } finally {
    await fs.rm(base, { recursive: true, force: true });
  }
}

await main();
