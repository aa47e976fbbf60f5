import { cp, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeIndex, type Embedder } from "../../tools/index/code-index.js";
import { evaluateRetrieval, type RetrievalQuery } from "../../tools/index/evaluate.js";
import { searchIndex } from "../../tools/index/search.js";
import { tokenize } from "../../tools/index/tokenize.js";
import { temporaryFolder } from "../support/workspace.js";

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/retrieval");
let folder: { path: string; remove(): Promise<void> };
let queries: RetrievalQuery[];
let index: CodeIndex;

beforeAll(async () => {
  folder = await temporaryFolder("clio-retrieval-");
  await cp(path.join(fixture, "repo"), folder.path, { recursive: true });
  queries = JSON.parse(await readFile(path.join(fixture, "queries.json"), "utf8")) as RetrievalQuery[];
  index = await CodeIndex.open(folder.path);
  await index.update();
});
afterAll(() => folder.remove());

describe("retrieval quality on the fixture repository", () => {
  it("has at least 30 queries, each naming files that exist", () => {
    expect(queries.length).toBeGreaterThanOrEqual(30);
    for (const query of queries) for (const file of query.relevant) expect(index.files.has(file), file).toBe(true);
  });

  it("keeps MRR@10 and recall@5 at the level reached (MRR 1.00, recall 1.00)", async () => {
    const score = await evaluateRetrieval(index, queries);
    expect(score.mrrAt10, JSON.stringify(score.misses, null, 1)).toBeGreaterThanOrEqual(0.99);
    expect(score.recallAt5, JSON.stringify(score.misses, null, 1)).toBeGreaterThanOrEqual(0.99);
  });

  it("ranks the definition of an exact symbol name first", async () => {
    for (const [name, file, line] of [
      ["RateLimiter", "services/api/src/middleware/rateLimit.ts", 16],
      ["ring_push", "native/src/ringbuffer.c", 16],
      ["might_contain", "libs/textsearch/src/bloom.rs", 38],
      ["CircuitBreaker.Allow", "services/gateway/proxy/circuit_breaker.go", 33],
    ] as const) {
      const { hits } = await searchIndex(index, name);
      expect(hits[0], name).toMatchObject({ path: file });
      expect(hits[0]!.startLine, name).toBeLessThanOrEqual(line);
      expect(hits[0]!.endLine, name).toBeGreaterThanOrEqual(line);
    }
  });

  it("filters by path glob and language, and shows the matching symbol and a snippet", async () => {
    const { hits } = await searchIndex(index, "tokenizer", { language: "rust", limit: 3 });
    expect(hits.every((hit) => hit.language === "rust")).toBe(true);
    const go = await searchIndex(index, "failures", { path: "**/*.go", contextLines: 4 });
    expect(go.hits.every((hit) => hit.path.endsWith(".go"))).toBe(true);
    expect(go.hits[0]).toMatchObject({ path: "services/gateway/proxy/circuit_breaker.go", symbol: "CircuitBreaker.RecordFailure" });
    expect(go.hits[0]!.snippet.split("\n")).toHaveLength(4);
    expect(go.hits[0]!.snippet).toContain("failures");
  });
});

describe("hybrid ranking seam", () => {
  /** A deterministic fake embedder: a bag of hashed tokens, so texts sharing words point the same way. */
  const calls: number[] = [];
  const embed: Embedder = async (texts) => {
    calls.push(texts.length);
    return texts.map((text) => {
      const vector = new Array<number>(64).fill(0);
      for (const token of tokenize(text)) vector[[...token].reduce((hash, character) => (hash * 31 + character.charCodeAt(0)) % 64, 7)]! += 1;
      return vector;
    });
  };

  it("stores vectors beside the index, embeds only what changed, and blends them into the ranking", async () => {
    const hybrid = await CodeIndex.open(folder.path, { embed, semanticWeight: 0.5 });
    await hybrid.update();
    const embedded = calls.reduce((sum, count) => sum + count, 0);
    expect(embedded).toBe([...hybrid.files.values()].reduce((sum, file) => sum + file.chunkCount, 0));
    await expect(readFile(path.join(folder.path, ".clio/index/vectors.json"), "utf8")).resolves.toContain('"hash"');
    calls.length = 0;
    await hybrid.update();
    expect(calls).toEqual([]);
    const { hits } = await searchIndex(hybrid, "circular buffer push and pop");
    expect(hits[0]?.path).toMatch(/ringbuffer\.[ch]$/);
    const score = await evaluateRetrieval(hybrid, queries);
    expect(score.mrrAt10).toBeGreaterThan(0.8);
  });
});
