/**
 * Retrieval quality against a set of queries with known answers: mean reciprocal rank of the
 * first relevant file in the top 10, and recall of the relevant files in the top 5. Used by the
 * retrieval tests and the benchmarks, for clio and for the baselines it is compared with.
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

/** Ranks files for one query, best first (duplicates are ignored after their first place). */
export type FileRanker = (query: string) => Promise<string[]> | string[];

/** Scores any ranker: clio's search, a ripgrep count, a full-text library. */
export async function scoreRankings(queries: RetrievalQuery[], rank: FileRanker): Promise<RetrievalScore> {
  let reciprocal = 0;
  let recall = 0;
  const misses: RetrievalScore["misses"] = [];
  for (const { query, relevant } of queries) {
    const files = [...new Set(await rank(query))];
    const position = files.findIndex((file) => relevant.includes(file));
    if (position >= 0 && position < 10) reciprocal += 1 / (position + 1);
    const top = files.slice(0, 5);
    recall += relevant.filter((file) => top.includes(file)).length / relevant.length;
    if (position !== 0) misses.push({ query, rank: position < 0 || position >= 10 ? undefined : position + 1, top: files.slice(0, 3) });
  }
  const count = Math.max(1, queries.length);
  return { mrrAt10: reciprocal / count, recallAt5: recall / count, misses };
}

/** The files of clio's top 10 hits, in order. */
export function clioRanker(index: CodeIndex): FileRanker {
  return async (query) => (await searchIndex(index, query, { limit: 10 })).hits.map((hit) => hit.path);
}

export async function evaluateRetrieval(index: CodeIndex, queries: RetrievalQuery[]): Promise<RetrievalScore> {
  return scoreRankings(queries, clioRanker(index));
}
