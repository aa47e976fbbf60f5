/**
 * MEMORY benchmark: 10,000 memories in one project store. In one run: store latency (each a
 * lock, a re-read check, a merge and an atomic rewrite of the whole file: the last written bytes
 * with the changed entry spliced in) against JSON.stringify plus an atomic rewrite of the same
 * file (a reference), search latency over 100 queries, and the cost of picking up another
 * process's write (a forced re-read).
 *
 *     node --import tsx bench/memory.bench.ts
 */
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { writeAtomically } from "../tools/atomic-file.js";
import { MEMORY_FORMAT_VERSION, type StoredMemory } from "../tools/memory/memory-file.js";
import { MemoryStore, relevantMemories } from "../tools/memory/store.js";
import { format, percentile, printTable, seededRandom } from "./support.js";

const ENTRIES = 10_000;
const WORDS =
  "build test deploy config database port server client cache token user session style naming lint format review branch release docs api schema migration queue worker retry timeout error log metric trace".split(
    " ",
  );

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), "clio-memory-bench-"));
  try {
    const next = seededRandom(7);
    const pick = () => WORDS[Math.floor(next() * WORDS.length)]!;
    const sentence = (words: number) => Array.from({ length: words }, pick).join(" ");
    // The first 9,900 memories are written as one file (storing them one by one would take minutes).
    const entries: Record<string, StoredMemory> = {};
    const createdAt = new Date().toISOString();
    for (let index = 0; index < ENTRIES - 100; index++) {
      const key = `${pick()}-${pick()}-${index}`;
      entries[key] = { key, value: sentence(12), tags: [pick(), pick()], metadata: {}, createdAt, updatedAt: createdAt };
    }
    await mkdir(path.join(root, ".clio"));
    await writeFile(path.join(root, ".clio", "memory.json"), JSON.stringify({ version: MEMORY_FORMAT_VERSION, entries }));
    const store = new MemoryStore({ workspaceRoot: root, home: path.join(root, "home") });
    await store.store({ key: "warm-up", value: sentence(12) });
    const storeTimes: number[] = [];
    for (let index = 0; index < 100; index++) {
      const start = performance.now();
      await store.store({ key: `timed-${index}`, value: sentence(12), tags: pick() });
      storeTimes.push(performance.now() - start);
    }
    const file = store.fileOf("project");
    const data = JSON.parse(await readFile(file, "utf8")) as unknown;
    const referenceTimes: number[] = [];
    let text = "";
    for (let index = 0; index < 20; index++) {
      const start = performance.now();
      text = JSON.stringify(data);
      await writeAtomically(`${file}.reference`, text);
      referenceTimes.push(performance.now() - start);
    }

    const searchTimes: number[] = [];
    await store.search("warm up");
    for (let index = 0; index < 100; index++) {
      const start = performance.now();
      await store.search(sentence(3));
      searchTimes.push(performance.now() - start);
    }
    const relevantTimes: number[] = [];
    for (let index = 0; index < 20; index++) {
      const start = performance.now();
      await relevantMemories(store, `How do I ${sentence(8)}?`, 500);
      relevantTimes.push(performance.now() - start);
    }
    // Another process's write: the file's mtime changes, so the next read re-reads and re-ranks.
    const rereadTimes: number[] = [];
    for (let index = 0; index < 5; index++) {
      await utimes(file, new Date(), new Date(Date.now() + (index + 1) * 1000));
      const start = performance.now();
      await store.search(sentence(3));
      rereadTimes.push(performance.now() - start);
    }

    console.log(`${ENTRIES.toLocaleString("en-US")} memories, file ${(text.length / 1e6).toFixed(2)} MB\n`);
    const p95Store = percentile(storeTimes, 95);
    const reference = percentile(referenceTimes, 50);
    printTable([
      ["store p50 / p95", `${format(percentile(storeTimes, 50))} / ${format(p95Store)} ms (target p95 ≤ 20 ms)`],
      ["JSON.stringify + atomic rewrite of the whole file (reference, p50)", `${format(reference)} ms; store p50 is ${format(percentile(storeTimes, 50) / reference, 2)}× this`],
      ["search p50 / p95 (100 queries)", `${format(percentile(searchTimes, 50), 2)} / ${format(percentile(searchTimes, 95), 2)} ms (target p95 ≤ 10 ms)`],
      ["relevantMemories p50 (500-token budget)", `${format(percentile(relevantTimes, 50), 2)} ms`],
      ["search after another process wrote (re-read + re-rank), p50", `${format(percentile(rereadTimes, 50))} ms`],
    ]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
