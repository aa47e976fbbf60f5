/**
 * RAG benchmark on a real tree: copies the project's node_modules (over 10,000 files) into a
 * temporary folder as `vendor/` (a folder named node_modules is never indexed), then in one run
 * measures, side by side with ripgrep on the same tree:
 * - a full build in a fresh process (`clio replay` of `[RAG:action=index]`): wall time, CPU and
 *   peak RSS, against one ripgrep pass over the tree;
 * - a one-off search in a fresh process (`clio replay` of one `[RAG:action=search]`, which also
 *   checks the tree for changes first, as any first search of a process does), against `rg` for
 *   the same words, and beside a replay of one FILE_OP read (the cost of any one-off command);
 * - a re-index after changing 10 files, in a fresh process (five times from the index as built),
 *   and eight more rounds of that (an index kept up to date passes eight segments, where an
 *   update merges the newer ones);
 * - search latency over 100 queries once the index is open, and retrieval quality (MRR@10,
 *   recall@5) on the fixture repository.
 * Child CPU comes from /proc/self/stat (the CPU of waited-for children), peak RSS from a preload
 * that reports the process's own high-water mark as it exits.
 *
 *     npm run bench -- rag          (after `node scripts/build.mjs`)
 *     node --import tsx bench/rag.bench.ts [--source DIR] [--searches 8] [--reindexes 5]
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { appendFile, cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CodeIndex } from "../tools/index/code-index.js";
import { evaluateRetrieval, type RetrievalQuery } from "../tools/index/evaluate.js";
import { searchIndex } from "../tools/index/search.js";
import { walkFiles } from "../tools/index/walk.js";
import { format, median, percentile, printTable, seededRandom } from "./support.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const flag = (name: string) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const SOURCE = flag("--source") ?? path.join(here, "../node_modules");
const SEARCHES = Number(flag("--searches") ?? 8);
/** Re-indexes of the same 10 changed files, each from the index as the build left it. */
const REINDEXES = Number(flag("--reindexes") ?? 5);
/** The clio to run in fresh processes (another build, e.g. of main, with --clio). */
const CLIO = flag("--clio") ?? path.join(here, "../dist/clio.cjs");

/** One-off searches: words a person looks for in a dependency tree. */
const QUERIES = [
  "parse config file",
  "source map mappings",
  "retry backoff delay",
  "tokenize string literal",
  "resolve module path",
  "compile regular expression",
  "walk directory tree",
  "deep merge objects",
  "http request headers",
  "json schema validation",
];

/** CPU time (ms) of the waited-for children of this process so far (Linux). */
function childrenCpu(): number {
  const fields = readFileSync("/proc/self/stat", "utf8")
    .replace(/^.*\) /, "")
    .split(" ");
  // After the name: fields 16 and 17 (cutime, cstime) are at 13 and 14, in clock ticks of 10 ms.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

interface Run {
  ms: number;
  cpu: number;
  peakMb?: number;
}

/** Runs a command to its end in `cwd`: wall time, CPU, and (for node with the preload) peak RSS. */
function run(command: string, args: string[], cwd: string, rssFile?: string): Run {
  const cpu = childrenCpu();
  const start = performance.now();
  const result = spawnSync(command, args, { cwd, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, CLIO_BENCH_RSS: rssFile ?? "" } });
  const ms = performance.now() - start;
  if (result.status !== 0 && !(command === "rg" && result.status === 1)) throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  const measured: Run = { ms, cpu: childrenCpu() - cpu };
  if (rssFile !== undefined) measured.peakMb = Number(readFileSync(rssFile, "utf8")) / 1024;
  return measured;
}

const ripgrep = (words: string[], cwd: string) => run("rg", ["-c", "-i", ...words.flatMap((word) => ["-e", word]), "."], cwd);

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), "clio-rag-bench-"));
  const tree = path.join(work, "tree");
  try {
    await cp(SOURCE, path.join(tree, "vendor"), { recursive: true, verbatimSymlinks: true });
    const preload = path.join(work, "rss.cjs");
    await writeFile(
      preload,
      'process.on("exit", () => { if (process.env.CLIO_BENCH_RSS) require("node:fs").writeFileSync(process.env.CLIO_BENCH_RSS, String(process.resourceUsage().maxRSS)); });\n',
    );
    const rss = path.join(work, "rss.txt");
    const script = async (name: string, text: string) => {
      await writeFile(path.join(work, name), `${text}\n`);
      return path.join(work, name);
    };
    const clio = (scriptFile: string) => run(process.execPath, ["--require", preload, CLIO, "replay", scriptFile], tree, rss);
    const indexScript = await script("index.clio", "[RAG:action=index]");
    const { files } = await walkFiles(tree, tree);
    console.log(`Tree: ${files.length} files to index (${(files.reduce((sum, file) => sum + file.size, 0) / 1e6).toFixed(0)} MB) copied from ${SOURCE}\n`);

    // Warm the page cache for both sides, then a full build in a fresh process beside one ripgrep pass.
    ripgrep(["warm"], tree);
    const startup = run(process.execPath, [CLIO, "--version"], tree);
    const passes = [ripgrep(["function"], tree)];
    const build = clio(indexScript);
    passes.push(ripgrep(["function"], tree));
    const pass = median(passes.map((entry) => entry.ms));
    const passCpu = median(passes.map((entry) => entry.cpu));

    // One-off searches in fresh processes, each beside ripgrep on the same words and a replay of one file read (what any one-off command costs).
    const searches: Run[] = [];
    const floors: Run[] = [];
    const reads: Run[] = [];
    const readScript = await script("read.clio", `[FILE_OP:action=read:path="${path.relative(tree, files[0]!.absolute)}"]`);
    for (const query of QUERIES.slice(0, SEARCHES)) {
      floors.push(ripgrep(query.split(" "), tree));
      searches.push(clio(await script("search.clio", `[RAG:action=search:query="${query}"]`)));
      reads.push(clio(readScript));
    }

    // Ten files change; a fresh process re-indexes. Timed several times, as the searches are: the
    // index's folder is put back as the build left it between runs (the workspace's own folders,
    // whose mtimes the check reads, are not touched) and the ten files change again.
    const changed = files.filter((_, position) => position % Math.floor(files.length / 10) === 0).slice(0, 10);
    const indexFolder = path.join(tree, ".clio", "index");
    const built = path.join(work, "index-as-built");
    await cp(indexFolder, built, { recursive: true });
    const reindexes: Run[] = [];
    for (let repeat = 0; repeat < REINDEXES; repeat++) {
      if (repeat > 0) {
        await rm(indexFolder, { recursive: true, force: true });
        await cp(built, indexFolder, { recursive: true });
      }
      for (const file of changed) await appendFile(file.absolute, `\n// changed for the benchmark (${repeat + 1})\n`);
      reindexes.push(clio(indexScript));
    }
    const reindex = { ms: median(reindexes.map((entry) => entry.ms)), cpu: median(reindexes.map((entry) => entry.cpu)) };
    const nothing = clio(indexScript);

    // Once open: 100 queries of words and identifiers from the tree.
    const opened = performance.now();
    const index = await CodeIndex.open(tree);
    const openMs = performance.now() - opened;
    const next = seededRandom(7);
    const words = QUERIES.flatMap((query) => query.split(" "));
    const queries = Array.from({ length: 100 }, () => `${words[Math.floor(next() * words.length)]} ${words[Math.floor(next() * words.length)]}`);
    // Wall and CPU time per query; then the same queries again: what the caches of decoded dictionary blocks, postings and snippet files save.
    const timeQueries = async () => {
      const times = { wall: [] as number[], cpu: [] as number[] };
      for (const query of queries) {
        const cpuStart = process.cpuUsage();
        const start = performance.now();
        await searchIndex(index, query, { limit: 10 });
        times.wall.push(performance.now() - start);
        const used = process.cpuUsage(cpuStart);
        times.cpu.push((used.user + used.system) / 1000);
      }
      return times;
    };
    const first = await timeQueries();
    const again = await timeQueries();

    // An index kept up to date: eight more rounds of 10 changed files, each re-indexed by a fresh process (past eight segments, an update merges the newer ones).
    const rounds: Run[] = [];
    for (let round = 1; round <= 8; round++) {
      const step = Math.floor(files.length / 10);
      for (const file of files.filter((_, position) => position % step === round).slice(0, 10)) await appendFile(file.absolute, `\n// round ${round}\n`);
      rounds.push(clio(indexScript));
    }

    const fixture = path.join(here, "../test/fixtures/retrieval");
    const fixtureRoot = await mkdtemp(path.join(os.tmpdir(), "clio-rag-fixture-"));
    await cp(path.join(fixture, "repo"), fixtureRoot, { recursive: true });
    const retrievalQueries = JSON.parse(await readFile(path.join(fixture, "queries.json"), "utf8")) as RetrievalQuery[];
    const fixtureIndex = await CodeIndex.open(fixtureRoot);
    await fixtureIndex.update();
    const quality = await evaluateRetrieval(fixtureIndex, retrievalQueries);
    await rm(fixtureRoot, { recursive: true, force: true });

    const search = median(searches.map((entry) => entry.ms));
    const floor = median(floors.map((entry) => entry.ms));
    const ms = (value: number) => (value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${format(value)} ms`);
    const rows: Array<[string, string]> = [
      ["clio --version (node start, for reference)", `${ms(startup.ms)}  CPU ${ms(startup.cpu)}`],
      ["one ripgrep pass (rg -c -i function)", `${ms(pass)}  CPU ${ms(passCpu)}`],
      ["full build, fresh process", `${ms(build.ms)}  ${(build.ms / pass).toFixed(2)}× one rg pass (target ≤ 15×); CPU ${ms(build.cpu)}`],
      ["full build, peak RSS", `${build.peakMb!.toFixed(0)} MB (target ≤ 200 MB)`],
      [
        `one-off search, fresh process (median of ${searches.length})`,
        `${ms(search)}  CPU ${ms(median(searches.map((entry) => entry.cpu)))}; peak RSS ${Math.max(...searches.map((entry) => entry.peakMb!)).toFixed(0)} MB`,
      ],
      ["rg for the same words (median)", `${ms(floor)}  CPU ${ms(median(floors.map((entry) => entry.cpu)))}`],
      [
        "replay of one FILE_OP read, fresh process (median)",
        `${ms(median(reads.map((entry) => entry.ms)))}  CPU ${ms(median(reads.map((entry) => entry.cpu)))}; ${(median(reads.map((entry) => entry.ms)) / floor).toFixed(2)}× rg`,
      ],
      ["one-off search / rg, per query (median)", `${median(searches.map((entry, at) => entry.ms / floors[at]!.ms)).toFixed(2)}× (target ≤ 2×)`],
      [
        `re-index after changing 10 files, fresh process (median of ${reindexes.length})`,
        `${ms(reindex.ms)}  CPU ${ms(reindex.cpu)} (target ≤ 0.5 s); runs ${reindexes.map((entry) => (entry.ms / 1000).toFixed(2)).join(", ")} s`,
      ],
      ["re-index with nothing changed, fresh process", `${ms(nothing.ms)}  CPU ${ms(nothing.cpu)}`],
      [
        "8 more rounds of 10 changed files, each re-indexed: median / worst",
        `${ms(median(rounds.map((entry) => entry.ms)))} / ${ms(Math.max(...rounds.map((entry) => entry.ms)))}; rounds ${rounds.map((entry) => (entry.ms / 1000).toFixed(2)).join(", ")} s`,
      ],
      ["open the index in this process", ms(openMs)],
      [
        "search p50 / p95 once open (100 queries)",
        `${ms(percentile(first.wall, 50))} / ${ms(percentile(first.wall, 95))}  target p95 ≤ 20 ms; CPU ${ms(percentile(first.cpu, 50))} / ${ms(percentile(first.cpu, 95))}`,
      ],
      [
        "the same 100 queries again, p50 / p95",
        `${ms(percentile(again.wall, 50))} / ${ms(percentile(again.wall, 95))}; CPU ${ms(percentile(again.cpu, 50))} / ${ms(percentile(again.cpu, 95))}`,
      ],
      ["fixture MRR@10 / recall@5", `${quality.mrrAt10.toFixed(3)} / ${quality.recallAt5.toFixed(3)}  ${retrievalQueries.length} queries`],
    ];
    console.log(`index: ${index.files.size} files, ${index.chunkCount} chunks; ${os.availableParallelism()} CPUs, load ${os.loadavg()[0]!.toFixed(1)}\n`);
    printTable(rows);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
