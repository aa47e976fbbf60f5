/**
 * GIT on a repository shaped like real work: 4,000 files, 400 commits of history packed by
 * `git gc`, a few changed and new files in the worktree. A script of mixed read commands (status,
 * log with and without a path, diffs between commits, against the index and the worktree, the
 * branch list) runs through clio's GIT handlers in one process and through the git CLI (one
 * process per command), side by side in one run. Target: the whole script ≤ 3× git in its first,
 * cold round (a real script runs once). A cold round is one sample per process, so it is taken
 * in COLD_ROUNDS fresh processes (the code loaded first, untimed), each followed by the git CLI
 * running the same commands, and the medians are compared; later rounds in one process and whole
 * processes (`clio replay`) are reported too.
 * Run: node --import tsx bench/git-history.bench.ts
 */
import { execFile, spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gitProtocol } from "../protocols/git.js";
import { Workspace } from "../tools/workspace.js";
import { format, median, printTable, seededRandom, time, gitBenchEnvironment } from "./support.js";

const run = promisify(execFile);
const FILES = 4000;
const COMMITS = 400;
const ROUNDS = 5;
/** Fresh processes each running the script once, cold. */
const COLD_ROUNDS = 7;

/**
 * A fast-import stream: one commit with every file, then commits that each edit a line or two
 * in a few files (the way real commits change code).
 */
function history(random: () => number): { stream: string; files: string[] } {
  const files = Array.from({ length: FILES }, (_, number) => `pkg${number % 20}/module${Math.floor(number / 20) % 10}/file${number}.ts`);
  const contents = new Map(files.map((file) => [file, Array.from({ length: 10 + (file.length % 30) }, (_, line) => `export const value${line} = ${Math.floor(random() * 1e6)};`)]));
  const parts: string[] = [];
  const blob = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  for (let commit = 0; commit < COMMITS; commit++) {
    const when = 1_700_000_000 + commit * 3600;
    const message = commit === 0 ? "Initial import" : `Change ${commit}: adjust values`;
    parts.push(`commit refs/heads/main\ncommitter Bench <bench@example.com> ${when} +0000\n${blob(message)}`);
    const touched = commit === 0 ? files : Array.from({ length: 3 + Math.floor(random() * 5) }, () => files[Math.floor(random() * files.length)]!);
    for (const file of new Set(touched)) {
      const lines = contents.get(file)!;
      if (commit > 0)
        for (let edit = 0; edit < 1 + Math.floor(random() * 2); edit++)
          lines[Math.floor(random() * lines.length)] = `export const edited${commit} = ${Math.floor(random() * 1e6)};`;
      parts.push(`M 100644 inline ${file}\n${blob(`${lines.join("\n")}\n`)}`);
    }
    parts.push("\n");
  }
  return { stream: parts.join(""), files };
}

async function buildRepository(root: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const random = seededRandom(42);
  const { stream, files } = history(random);
  const gitIn = (args: string[]) => run("git", args, { cwd: root, env, maxBuffer: 256 * 1024 * 1024 });
  await gitIn(["init", "-q", "-b", "main"]);
  const imported = spawnSync("git", ["fast-import", "--quiet"], { cwd: root, env, input: stream, maxBuffer: 256 * 1024 * 1024 });
  if (imported.status !== 0) throw new Error(`git fast-import failed: ${imported.stderr}`);
  await gitIn(["gc", "-q", "--prune=now"]);
  await gitIn(["checkout", "-q", "-f", "main"]);
  await new Promise((resolve) => setTimeout(resolve, 1100)); // let the index be older than the files' last second
  for (let number = 0; number < 6; number++) await fs.appendFile(path.join(root, files[number * 97]!), `// worktree change ${number}\n`);
  await gitIn(["add", files[0]!]);
  await fs.writeFile(path.join(root, "notes.txt"), "new file\n");
  return files;
}

type Step = [name: string, clio: () => unknown, git: () => Promise<unknown>];

/** The mixed script: each step through clio's GIT handlers in this process, and as a git CLI process. */
async function scriptOf(root: string, env: NodeJS.ProcessEnv, someFile: string): Promise<Step[]> {
  const environment = { workspace: await Workspace.open(root), config: {}, env, now: Date.now, userAgent: "clio-bench" };
  const signal = new AbortController().signal;
  const clio = (action: string, args: Record<string, unknown>) => () => gitProtocol.actions[action]!.handler(args, { state: undefined, environment, signal });
  const cli = (args: string[]) => () => run("git", args, { cwd: root, env, maxBuffer: 256 * 1024 * 1024 });
  return [
    ["status", clio("status", {}), cli(["status", "--porcelain"])],
    ["log (10)", clio("log", {}), cli(["log", "-10"])],
    ["log (100)", clio("log", { count: 100 }), cli(["log", "-100"])],
    ["log of one file", clio("log", { path: someFile, count: 10 }), cli(["log", "-10", "--", someFile])],
    ["diff HEAD~50 HEAD", clio("diff", { from: "HEAD~50", to: "HEAD" }), cli(["diff", "HEAD~50", "HEAD"])],
    ["diff HEAD~1 HEAD", clio("diff", { from: "HEAD~1", to: "HEAD" }), cli(["diff", "HEAD~1", "HEAD"])],
    ["diff (worktree vs index)", clio("diff", {}), cli(["diff"])],
    ["diff staged", clio("diff", { staged: true }), cli(["diff", "--cached"])],
    ["diff HEAD~5 vs worktree", clio("diff", { from: "HEAD~5" }), cli(["diff", "HEAD~5"])],
    ["branch list", clio("branch", {}), cli(["branch"])],
  ];
}

/** In a fresh process (`--cold-round BASE FILE`): loads the code, then runs clio's side of the script once and prints each step's time. */
async function coldRound(base: string, someFile: string): Promise<void> {
  await import("../tools/git/api.js");
  const script = await scriptOf(path.join(base, "repo"), gitBenchEnvironment(base), someFile);
  const times: number[] = [];
  for (const [, clioRun] of script) times.push(await time(clioRun));
  process.stdout.write(JSON.stringify(times));
}

/** COLD_ROUNDS pairs: a fresh process's cold round of clio, then the git CLI running the same commands. */
async function coldPairs(base: string, script: Step[], someFile: string): Promise<{ clio: number[][]; git: number[][] }> {
  const clio: number[][] = [];
  const git: number[][] = [];
  for (let round = 0; round < COLD_ROUNDS; round++) {
    const child = await run(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--cold-round", base, someFile], { maxBuffer: 1024 * 1024 });
    clio.push(JSON.parse(child.stdout) as number[]);
    const cliTimes: number[] = [];
    for (const [, , cliRun] of script) cliTimes.push(await time(cliRun));
    git.push(cliTimes);
  }
  return { clio, git };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

async function main(): Promise<void> {
  const keep = process.env.CLIO_BENCH_KEEP; // a folder to build into once and keep, for profiling
  const base = keep ?? (await fs.mkdtemp(path.join(os.tmpdir(), "clio-git-history-bench-")));
  const root = path.join(base, "repo");
  await fs.mkdir(root, { recursive: true });
  const env = gitBenchEnvironment(base);
  try {
    const reuse =
      keep !== undefined &&
      (await fs.stat(path.join(root, ".git")).then(
        () => true,
        () => false,
      ));
    const built = reuse ? 0 : await time(() => buildRepository(root, env));
    const files = (await run("git", ["ls-files"], { cwd: root, env, maxBuffer: 64 * 1024 * 1024 })).stdout.split("\n");
    const someFile = files[1234]!;
    const script = await scriptOf(root, env, someFile);
    const cold = await coldPairs(base, script, someFile);
    // In this process: the code loaded (timed on its own), then ROUNDS rounds, the first one cold.
    const codeLoad = await time(() => import("../tools/git/api.js"));
    const clioTimes = script.map((): number[] => []);
    const cliTimes = script.map((): number[] => []);
    const clioWhole: number[] = [];
    const cliWhole: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let clioSum = 0;
      let cliSum = 0;
      for (const [index, [, clioRun, cliRun]] of script.entries()) {
        const clioTime = await time(clioRun);
        const cliTime = await time(cliRun);
        clioTimes[index]!.push(clioTime);
        cliTimes[index]!.push(cliTime);
        clioSum += clioTime;
        cliSum += cliTime;
      }
      clioWhole.push(clioSum);
      cliWhole.push(cliSum);
    }
    // Whole processes: the read commands as one `clio replay` against the same commands as git processes.
    const cliScript = path.join(base, "script.sh");
    const gitCommands = [
      "status --porcelain",
      "log -10",
      "log -100",
      `log -10 -- ${someFile}`,
      "diff HEAD~50 HEAD",
      "diff HEAD~1 HEAD",
      "diff",
      "diff --cached",
      "diff HEAD~5",
      "branch",
    ];
    await fs.writeFile(cliScript, `${gitCommands.map((command) => `git ${command} > /dev/null`).join("\n")}\n`);
    const clioScript = path.join(base, "script.md");
    const clioCommands = [
      "status",
      "log",
      "log:count=100",
      `log:count=10:path="${someFile}"`,
      'diff:from="HEAD~50":to="HEAD"',
      'diff:from="HEAD~1":to="HEAD"',
      "diff",
      "diff:staged=true",
      'diff:from="HEAD~5"',
      "branch",
    ];
    await fs.writeFile(clioScript, `${clioCommands.map((command) => `[GIT:action=${command}]`).join("\n")}\n`);
    const clioBinary = fileURLToPath(new URL("../dist/clio.cjs", import.meta.url));
    const processRows: number[][] = [[], []];
    for (let round = 0; round < 4; round++) {
      processRows[0]!.push(await time(() => run("sh", [cliScript], { cwd: root, env, maxBuffer: 256 * 1024 * 1024 })));
      processRows[1]!.push(
        await time(() => run(process.execPath, [clioBinary, "replay", clioScript, "-w", root, "--permission-mode", "plan"], { cwd: root, env, maxBuffer: 256 * 1024 * 1024 })),
      );
    }
    const rows: [string, string][] = script.map(([name], index) => {
      const ours = median(clioTimes[index]!.slice(1));
      const theirs = median(cliTimes[index]!.slice(1));
      const [coldOurs, coldTheirs] = [median(cold.clio.map((times) => times[index]!)), median(cold.git.map((times) => times[index]!))];
      return [
        name,
        `cold: clio ${format(coldOurs, 1)} ms, git ${format(coldTheirs, 1)} ms, ${format(coldOurs / coldTheirs, 2)}×; later: clio ${format(ours, 1)} ms, git ${format(theirs, 1)} ms, ${format(ours / theirs, 2)}×`,
      ];
    });
    const coldOurs = median(cold.clio.map(sum));
    const coldTheirs = median(cold.git.map(sum));
    const pairRatios = cold.clio.map((times, round) => sum(times) / sum(cold.git[round]!)).sort((left, right) => left - right);
    rows.push([
      `whole script, cold (median of ${COLD_ROUNDS} fresh processes)`,
      `clio ${format(coldOurs, 1)} ms, git ${format(coldTheirs, 1)} ms, ${format(coldOurs / coldTheirs, 2)}× (target ≤ 3×); pairs ${pairRatios.map((ratio) => format(ratio, 2)).join(", ")}`,
    ]);
    rows.push([
      "  first round in this process, with loading the GIT code",
      `clio ${format(clioWhole[0]!, 1)} + ${format(codeLoad, 1)} ms, git ${format(cliWhole[0]!, 1)} ms, ${format((clioWhole[0]! + codeLoad) / cliWhole[0]!, 2)}×`,
    ]);
    const ours = median(clioWhole.slice(1));
    const theirs = median(cliWhole.slice(1));
    rows.push(["whole script, later rounds", `clio ${format(ours, 1)} ms, git ${format(theirs, 1)} ms, ${format(ours / theirs, 2)}×`]);
    const gitProcess = median(processRows[0]!.slice(1));
    const clioProcess = median(processRows[1]!.slice(1));
    rows.push(["as processes: clio replay vs git CLI", `clio ${format(clioProcess, 1)} ms, git ${format(gitProcess, 1)} ms, ${format(clioProcess / gitProcess, 2)}×`]);
    console.log(
      `GIT on ${FILES.toLocaleString("en")} files, ${COMMITS} packed commits (built in ${format(built / 1000, 1)} s), later rounds: median of ${ROUNDS - 1} in one process`,
    );
    printTable(rows);
  } finally {
    if (keep === undefined) await fs.rm(base, { recursive: true, force: true });
  }
}

const coldAt = process.argv.indexOf("--cold-round");
if (coldAt === -1) await main();
else await coldRound(process.argv[coldAt + 1]!, process.argv[coldAt + 2]!);
