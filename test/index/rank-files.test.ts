import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planQuery, type Vocabulary } from "../../tools/index/query-plan.js";
import { nameScore, type RankingView, rankFiles } from "../../tools/index/rank-files.js";
import { encodeFileMeta, FileMeta, type SymbolNames } from "../../tools/index/symbol-table.js";
import type { SymbolDefinition } from "../../tools/index/symbols.js";

/** A vocabulary that knows every word, all equally rare. */
const everyWord: Vocabulary = (() => {
  const ids = new Map<string, number>();
  return {
    lookup: (term) => {
      if (!ids.has(term)) ids.set(term, ids.size);
      return ids.get(term);
    },
    idf: () => 2,
  };
})();

/** A view over files of one chunk each: chunk i belongs to `paths[i]` and scores `scores[i]`. */
function viewOf(paths: string[], scores: number[], names: Map<string, SymbolNames> = new Map()): RankingView {
  return {
    bestChunks: () => paths.map((_, id) => id),
    scoreOf: (id) => scores[id]!,
    maskOf: () => 1,
    pathOf: (id) => paths[id]!,
    linesOf: () => ({ startLine: 1, endLine: 1 }),
    namesOf: (filePath) => names.get(filePath),
    accepts: () => true,
  };
}

describe("file ranking", () => {
  it("keeps the first files of the whole order: score first, then the path in code-unit order (the same on every machine), for every limit", () => {
    const plan = planQuery(everyWord, "zebra");
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.stringMatching(/^[a-cA-C][a-cA-C_/.-]{0,3}$/), fc.integer({ min: 1, max: 4 })), { minLength: 1, maxLength: 60 }),
        fc.nat(70),
        (files, limit) => {
          const unique = [...new Map(files).entries()];
          const paths = unique.map(([filePath]) => filePath);
          const whole = rankFiles(
            viewOf(
              paths,
              unique.map(([, score]) => score),
            ),
            plan,
            paths.length,
          );
          for (let at = 1; at < whole.length; at++) {
            const [before, after] = [whole[at - 1]!, whole[at]!];
            expect(before.score > after.score || (before.score === after.score && before.path < after.path)).toBe(true);
          }
          const first = rankFiles(
            viewOf(
              paths,
              unique.map(([, score]) => score),
            ),
            plan,
            limit,
          );
          expect(first.map((file) => file.path)).toEqual(whole.slice(0, limit).map((file) => file.path));
        },
      ),
    );
  });

  it("finds the definition whose name reads best as the query also among names with no parts and many that do not match", () => {
    const symbols: SymbolDefinition[] = [
      ...Array.from({ length: 300 }, (_, at): SymbolDefinition => ({ name: `helper${at}`, kind: "function", line: at + 1, endLine: at + 1 })),
      { name: "of", kind: "constant", line: 301, endLine: 301 },
      { name: "retryLater", kind: "function", line: 302, endLine: 310 },
      { name: "retryBackoffDelay", kind: "function", line: 311, endLine: 320 },
      { name: "the", kind: "constant", line: 321, endLine: 321 },
      { name: "backoff", kind: "function", line: 322, endLine: 330 },
    ];
    const names = new Map([["src/retry.ts", FileMeta.read(encodeFileMeta(symbols, [], [])).names]]);
    const plan = planQuery(everyWord, "retry backoff delay");
    const [file] = rankFiles(viewOf(["src/retry.ts"], [1], names), plan, 1);
    expect(file!.name).toEqual({ text: "retryBackoffDelay", line: 311, score: nameScore(plan, "retryBackoffDelay") });
  });
});
