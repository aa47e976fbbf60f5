/**
 * Retrieval quality against a set of queries with known answers: mean reciprocal rank of the
 * first relevant file in the top 10, and recall of the relevant files in the top 5. Used by the
 * retrieval test and the benchmark.
 */
import type { CodeIndex } from "./code-index.js";
import { searchIndex } from "./search.js";

export interface RetrievalQuery {
  query: string;
  /** Workspace-relative files that answer the query. */
  relevant: string[];
}

export interface RetrievalScore {
  /** Mean reciprocal rank at 10 (0..1). */
  mrrAt10: number;
  /** Mean share of relevant files found in the top 5 (0..1). */
  recallAt5: number;
  /** Queries whose first relevant file was not ranked first. */
  misses: Array<{ query: string; rank: number | undefined; top: string[] }>;
}

export async function evaluateRetrieval(index: CodeIndex, queries: RetrievalQuery[]): Promise<RetrievalScore> {
  let reciprocal = 0;
  let recall = 0;
  const misses: RetrievalScore["misses"] = [];
  for (const { query, relevant } of queries) {
    const { hits } = await searchIndex(index, query, { limit: 10 });
    const files = [...new Set(hits.map((hit) => hit.path))];
    const rank = files.findIndex((file) => relevant.includes(file));
    if (rank >= 0 && rank < 10) reciprocal += 1 / (rank + 1);
    const top = files.slice(0, 5);
    recall += relevant.filter((file) => top.includes(file)).length / relevant.length;
    if (rank !== 0) misses.push({ query, rank: rank < 0 ? undefined : rank + 1, top: files.slice(0, 3) });
  }
  return { mrrAt10: reciprocal / queries.length, recallAt5: recall / queries.length, misses };
}
