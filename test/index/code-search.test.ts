/**
 * Code search on three real codebases this project did not write (chevrotain in TypeScript,
 * cobra in Go, requests in Python), read from their installed packages: 109 questions whose
 * answers were found by reading the code. bench/code-search.bench.ts compares the same figures
 * with ripgrep and MiniSearch.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeIndex } from "../../tools/index/code-index.js";
import { scoreRankings, type RetrievalScore } from "../../tools/index/evaluate.js";
import { searchIndex } from "../../tools/index/search.js";
import { codeSearchQuestions, corpusSpecs, missingCorpora, prepareCorpus, type CodeSearchQuestion } from "../support/code-search.js";

const questions = codeSearchQuestions();
const rankings = new Map<CodeSearchQuestion, string[]>();

beforeAll(async () => {
  const missing = missingCorpora();
  if (missing.length > 0) throw new Error(`The code-search corpora are not installed:\n${missing.join("\n")}`);
  for (const spec of corpusSpecs()) {
    const corpus = await prepareCorpus(spec);
    try {
      const index = await CodeIndex.open(corpus.root);
      await index.update();
      for (const question of questions.filter((entry) => entry.corpus === spec.name)) {
        rankings.set(question, (await searchIndex(index, question.query, { limit: 10 })).hits.map((hit) => hit.path));
      }
    } finally {
      await corpus.remove();
    }
  }
}, 60_000);
afterAll(() => rankings.clear());

function score(group: CodeSearchQuestion[]): Promise<RetrievalScore> {
  return scoreRankings(group, (query) => rankings.get(group.find((entry) => entry.query === query)!) ?? []);
}

describe("code search on real code nobody here wrote", () => {
  it("has at least 90 questions on three corpora in three languages, mostly in plain words", () => {
    expect(questions.length).toBeGreaterThanOrEqual(90);
    expect(new Set(corpusSpecs().map((spec) => spec.language)).size).toBeGreaterThanOrEqual(3);
    expect(questions.filter((question) => question.kind === "words").length / questions.length).toBeGreaterThan(0.75);
    expect(rankings.size).toBe(questions.length);
  });

  it("keeps file-level MRR@10 and recall@5 at the level reached, on all questions and on the held-out third", async () => {
    const all = await score(questions);
    const heldOut = await score(questions.filter((question) => question.heldOut));
    expect(all.mrrAt10, JSON.stringify(all.misses, null, 1)).toBeGreaterThanOrEqual(0.75);
    expect(all.recallAt5, JSON.stringify(all.misses, null, 1)).toBeGreaterThanOrEqual(0.9);
    expect(heldOut.mrrAt10, JSON.stringify(heldOut.misses, null, 1)).toBeGreaterThanOrEqual(0.8);
  });
});
