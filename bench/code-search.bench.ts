/**
 * Code search on real code nobody here wrote: three codebases (TypeScript, Go, Python) read from
 * their installed packages, 109 questions whose answers were found by reading the code
 * (test/fixtures/code-search). In one run, file-level MRR@10 and recall@5 for clio, a ripgrep
 * baseline and MiniSearch indexing whole files, split by corpus, by kind of question and into
 * the questions used while tuning the ranking and those held out; and search latency.
 *
 *     node --import tsx bench/code-search.bench.ts [--misses] [--misses-all] [--hybrid]
 *
 * `--misses` lists clio's misses among the tuning questions (`--misses-all` also the held-out ones).
 * `--hybrid` also measures, separately, clio's optional hybrid ranking against an embeddings
 * server on 127.0.0.1 that embeds hashed bags of words: what embedding costs (index build,
 * search latency) and that a poor embedder does not spoil the ranking — not semantic quality,
 * which needs a real embedding model.
 */
import { CodeIndex, type Embedder } from "../tools/index/code-index.js";
import { tokenize } from "../tools/index/tokenize.js";
import { createHttpEmbedder } from "../tools/index/embeddings.js";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { scoreRankings, type FileRanker, type RetrievalScore } from "../tools/index/evaluate.js";
import { searchIndex } from "../tools/index/search.js";
import { codeSearchQuestions, corpusSpecs, missingCorpora, prepareCorpus, type CodeSearchQuestion } from "../test/support/code-search.js";
import { miniSearchRanker, ripgrepRanker } from "../test/support/code-search-baselines.js";
import { percentile, printTable } from "./support.js";

type System = "clio" | "ripgrep" | "MiniSearch";
const SYSTEMS: System[] = ["clio", "ripgrep", "MiniSearch"];

/** Each system's ranking of each question, and how long each took. */
interface Run {
  rankings: Map<CodeSearchQuestion, Record<System, string[]>>;
  latencies: Record<System, number[]>;
  /** CPU time of each query in this process (clio, MiniSearch; ripgrep's runs in a child process): less moved by a busy machine than wall time. */
  cpu: Record<System, number[]>;
  files: number;
  buildMs: number;
}

async function timed(rank: FileRanker, query: string, latencies: number[], cpu: number[]): Promise<string[]> {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const files = await rank(query);
  latencies.push(performance.now() - start);
  const used = process.cpuUsage(cpuStart);
  cpu.push((used.user + used.system) / 1000);
  return files;
}

async function runAll(questions: CodeSearchQuestion[]): Promise<Run> {
  const run: Run = { rankings: new Map(), latencies: { clio: [], ripgrep: [], MiniSearch: [] }, cpu: { clio: [], ripgrep: [], MiniSearch: [] }, files: 0, buildMs: 0 };
  for (const spec of corpusSpecs()) {
    const corpus = await prepareCorpus(spec);
    try {
      const index = await CodeIndex.open(corpus.root);
      const start = performance.now();
      const report = await index.update();
      run.buildMs += performance.now() - start;
      run.files += report.files;
      const rankers: Record<System, FileRanker> = {
        clio: async (query) => (await searchIndex(index, query, { limit: 10 })).hits.map((hit) => hit.path),
        ripgrep: ripgrepRanker(corpus.root),
        MiniSearch: await miniSearchRanker(corpus.root),
      };
      // One warm-up query so the first timed one does not pay for loading code.
      await rankers.clio("warm up");
      for (const question of questions.filter((entry) => entry.corpus === spec.name)) {
        const ranked = {} as Record<System, string[]>;
        for (const system of SYSTEMS) ranked[system] = await timed(rankers[system], question.query, run.latencies[system], run.cpu[system]);
        run.rankings.set(question, ranked);
      }
    } finally {
      await corpus.remove();
    }
  }
  return run;
}

async function scores(run: Run, questions: CodeSearchQuestion[]): Promise<Record<System, RetrievalScore>> {
  const result = {} as Record<System, RetrievalScore>;
  for (const system of SYSTEMS) result[system] = await scoreRankings(questions, (query) => run.rankings.get(questions.find((entry) => entry.query === query)!)![system]);
  return result;
}

const cell = (score: RetrievalScore) => `${score.mrrAt10.toFixed(3)} / ${score.recallAt5.toFixed(3)}`;

async function main(): Promise<void> {
  const missing = missingCorpora();
  if (missing.length > 0) {
    console.error(`The code-search corpora are not installed:\n${missing.join("\n")}`);
    process.exitCode = 1;
    return;
  }
  const questions = codeSearchQuestions();
  const run = await runAll(questions);
  const groups: Array<[string, CodeSearchQuestion[]]> = [
    ["all", questions],
    ["tuning (2 of 3)", questions.filter((question) => !question.heldOut)],
    ["held out (1 of 3)", questions.filter((question) => question.heldOut)],
    ...corpusSpecs().map((spec): [string, CodeSearchQuestion[]] => [`${spec.name} (${spec.language})`, questions.filter((question) => question.corpus === spec.name)]),
    ...(["words", "identifier", "symbol"] as const).map((kind): [string, CodeSearchQuestion[]] => [`kind: ${kind}`, questions.filter((question) => question.kind === kind)]),
  ];
  console.log(`${run.files} files in 3 corpora, ${questions.length} questions; clio index build ${run.buildMs.toFixed(0)} ms in all\n`);
  console.log("MRR@10 / recall@5");
  const rows: Array<[string, string]> = [["questions", `${SYSTEMS.map((system) => system.padEnd(15)).join("  ")}clio ÷ ripgrep (MRR)`]];
  for (const [label, group] of groups) {
    const score = await scores(run, group);
    rows.push([
      `${label}, ${group.length}`,
      `${SYSTEMS.map((system) => cell(score[system]).padEnd(15)).join("  ")}${(score.clio.mrrAt10 / Math.max(score.ripgrep.mrrAt10, 1e-9)).toFixed(2)}×`,
    ]);
  }
  printTable(rows);
  console.log("\nsearch latency per query, p50 / p95 (wall; CPU of this process)");
  printTable(
    SYSTEMS.map((system) => [
      system,
      `${percentile(run.latencies[system], 50).toFixed(2)} / ${percentile(run.latencies[system], 95).toFixed(2)} ms; CPU ${percentile(run.cpu[system], 50).toFixed(2)} / ${percentile(run.cpu[system], 95).toFixed(2)} ms${system === "ripgrep" ? " (rg runs in a child process)" : ""}`,
    ]),
  );
  const showAll = process.argv.includes("--misses-all");
  if (process.argv.includes("--misses") || showAll) {
    const shown = questions.filter((question) => showAll || !question.heldOut);
    const clio = await scoreRankings(shown, (query) => run.rankings.get(shown.find((entry) => entry.query === query)!)!.clio);
    console.log(`\nclio's misses (${showAll ? "all questions" : "tuning questions only"}):`);
    for (const miss of clio.misses) console.log(`  rank ${miss.rank ?? "-"}: ${miss.query}  →  ${miss.top.join(", ")}`);
  }
}

/** An embeddings server on 127.0.0.1: each text as a 256-dimension hashed bag of its tokens. */
async function startHashingServer(): Promise<{ url: string; texts: () => number; close(): Promise<void> }> {
  let texts = 0;
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const { input } = JSON.parse(body) as { input: string[] };
      texts += input.length;
      const data = input.map((text, index) => {
        const embedding = new Array<number>(256).fill(0);
        for (const token of tokenize(text)) embedding[[...token].reduce((hash, character) => (hash * 31 + character.charCodeAt(0)) % 256, 7)]! += 1;
        return { index, embedding };
      });
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, texts: () => texts, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function hybrid(questions: CodeSearchQuestion[]): Promise<void> {
  const server = await startHashingServer();
  const embed: Embedder = createHttpEmbedder({ url: server.url, model: "hashing" }, { fetch, env: {} });
  const rankings = new Map<CodeSearchQuestion, string[]>();
  const latencies: number[] = [];
  let buildMs = 0;
  try {
    for (const spec of corpusSpecs()) {
      const corpus = await prepareCorpus(spec);
      try {
        const index = await CodeIndex.open(corpus.root, { embed });
        const start = performance.now();
        await index.update();
        buildMs += performance.now() - start;
        for (const question of questions.filter((entry) => entry.corpus === spec.name)) {
          rankings.set(question, await timed(async (query) => (await searchIndex(index, query, { limit: 10 })).hits.map((hit) => hit.path), question.query, latencies, []));
        }
      } finally {
        await corpus.remove();
      }
    }
  } finally {
    await server.close();
  }
  const score = await scoreRankings(questions, (query) => rankings.get(questions.find((entry) => entry.query === query)!)!);
  console.log("\nhybrid ranking (optional, off by default) with a local hashing embeddings server — cost, not semantic quality");
  printTable([
    ["MRR@10 / recall@5", cell(score)],
    ["index build with embedding", `${buildMs.toFixed(0)} ms in all, ${server.texts()} texts embedded`],
    ["search p50 / p95 (one query embedding each)", `${percentile(latencies, 50).toFixed(2)} / ${percentile(latencies, 95).toFixed(2)} ms`],
  ]);
}

await main();
if (process.argv.includes("--hybrid") && missingCorpora().length === 0) await hybrid(codeSearchQuestions());
