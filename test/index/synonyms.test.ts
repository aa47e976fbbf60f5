/**
 * synonymsOf stems a group's words only when a query word could be one of them (by its first
 * letter). It must give what stemming every word up front gave: the reference below builds that
 * table the plain way, and every stem of every group word, and words near them, are compared.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GROUPS, synonymsOf, type Bridge } from "../../tools/index/synonyms.js";
import { stem } from "../../tools/index/tokenize.js";

/** Stem → bridges, built as before: every group in order, each word stemmed at once. */
function referenceTable(): Map<string, Bridge[]> {
  const table = new Map<string, Bridge[]>();
  for (const { words, relation } of GROUPS) {
    const stems = [...new Set(words.map((word) => stem(word)))];
    for (const word of stems) {
      const bridges = table.get(word) ?? [];
      for (const other of stems) if (other !== word && !bridges.some((bridge) => bridge.stem === other)) bridges.push({ stem: other, ...relation });
      table.set(word, bridges);
    }
  }
  return table;
}

describe("synonymsOf", () => {
  const reference = referenceTable();

  it("gives every group word's stem the bridges of the table built up front, in the same order", () => {
    expect(reference.size).toBeGreaterThan(250);
    for (const [stemmed, bridges] of reference) expect(synonymsOf(stemmed), stemmed).toEqual(bridges);
  });

  it("gives nothing for stems no group holds, whatever their letters", () => {
    const words = GROUPS.flatMap((group) => group.words);
    const nearMisses = words.flatMap((word) => [`${word}x`, word.slice(1), `x${word}`, `${word}ies`, `${word}ing`].map((form) => stem(form)));
    for (const stemmed of nearMisses) expect(synonymsOf(stemmed), stemmed).toEqual(reference.get(stemmed) ?? []);
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (text) => {
        const stemmed = stem(text.toLowerCase());
        expect(synonymsOf(stemmed)).toEqual(reference.get(stemmed) ?? []);
      }),
      { numRuns: 2000 },
    );
  });

  it("bridges the words a question uses to the names code writes", () => {
    expect(synonymsOf(stem("remove")).map((bridge) => bridge.stem)).toEqual(expect.arrayContaining([stem("strip"), stem("delete")]));
    expect(synonymsOf(stem("arguments"))[0]).toMatchObject({ weight: 0.8 });
    expect(synonymsOf(stem("retries")).map((bridge) => bridge.stem)).toContain(stem("attempt"));
  });
});
