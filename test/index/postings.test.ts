import { describe, expect, it } from "vitest";
import { Postings } from "../../tools/index/postings.js";
import { CHUNK_HEADER, type StoredChunk } from "../../tools/index/store.js";

/** A file whose chunks hold the given term ids with counts, laid out as the store keeps them. */
function file(path: string, chunkTerms: Array<Array<[number, number]>>) {
  const numbers: number[] = [];
  const chunks: StoredChunk[] = chunkTerms.map((terms, index) => {
    const length = terms.reduce((sum, [, count]) => sum + count, 0);
    const header = [index + 1, index + 1, length, terms.length];
    expect(header).toHaveLength(CHUNK_HEADER);
    numbers.push(...header);
    const termsAt = numbers.length;
    numbers.push(...terms.map(([term]) => term), ...terms.map(([, count]) => count));
    return { startLine: index + 1, endLine: index + 1, length, termsAt, distinct: terms.length };
  });
  return { path, chunks, numbers: Uint32Array.from(numbers) };
}

const chunkPaths = (postings: Postings, term: number) => postings.chunksWith(term).map((id) => `${postings.ref(id).path}#${postings.ref(id).index}`);

describe("postings", () => {
  it("lay out a bulk load, take later files beside it, and forget removed ones", () => {
    const postings = new Postings();
    postings.addAll(
      [
        file("a.ts", [
          [
            [0, 2],
            [1, 1],
          ],
          [[1, 3]],
        ]),
        file("b.ts", [[[2, 1]]]),
      ],
      3,
    );
    postings.add(
      file("c.ts", [
        [
          [1, 1],
          [2, 4],
        ],
      ]),
    );
    expect(chunkPaths(postings, 1)).toEqual(["a.ts#0", "a.ts#1", "c.ts#0"]);
    expect(chunkPaths(postings, 2)).toEqual(["b.ts#0", "c.ts#0"]);
    const board = postings.score(new Map([[2, 1]]));
    expect(board.best(2).map(([id]) => postings.ref(id).path)).toEqual(["c.ts", "b.ts"]);
    board.release();
    postings.remove("c.ts");
    expect(chunkPaths(postings, 2)).toEqual(["b.ts#0"]);
    expect(postings.chunkCount).toBe(3);
  });

  it("stage files one at a time and lay them out together; once laid out, later files are added at once", () => {
    const postings = new Postings();
    postings.stage(file("a.ts", [[[0, 1]]]));
    postings.stage(
      file("b.ts", [
        [
          [0, 2],
          [1, 1],
        ],
      ]),
    );
    expect(postings.chunkCount).toBe(2);
    postings.finishStaging(2);
    expect(chunkPaths(postings, 0)).toEqual(["a.ts#0", "b.ts#0"]);
    postings.stage(file("c.ts", [[[1, 3]]]));
    expect(chunkPaths(postings, 1)).toEqual(["b.ts#0", "c.ts#0"]);
  });

  it("lay out what is staged before a file is added or removed one by one", () => {
    const postings = new Postings();
    postings.stage(file("a.ts", [[[0, 1]]]));
    postings.stage(file("b.ts", [[[0, 2]]]));
    postings.remove("a.ts");
    expect(chunkPaths(postings, 0)).toEqual(["b.ts#0"]);
    postings.stage(file("c.ts", [[[1, 1]]]));
    postings.add(file("d.ts", [[[1, 2]]]));
    postings.finishStaging(2);
    expect(chunkPaths(postings, 1)).toEqual(["c.ts#0", "d.ts#0"]);
    expect(postings.chunkCount).toBe(3);
  });

  it("refuse a bulk load whose term ids reach past the dictionary", () => {
    expect(() => new Postings().addAll([file("a.ts", [[[5, 1]]])], 3)).toThrow(RangeError);
  });

  it("lay everything out again once removed chunks outnumber live ones, keeping what is live", () => {
    const postings = new Postings();
    const many = Array.from({ length: 10_050 }, (_, index) => file(`gone/${index}.ts`, [[[index % 7, 1]]]));
    postings.addAll(
      [
        file("kept.ts", [
          [
            [3, 2],
            [8, 1],
          ],
          [],
        ]),
        ...many,
      ],
      9,
    );
    postings.add(file("late.ts", [[[8, 5]]]));
    const idfBefore = postings.idf(8);
    for (const gone of many) postings.remove(gone.path);
    expect(postings.chunkCount).toBe(3);
    expect(chunkPaths(postings, 8)).toEqual(["kept.ts#0", "late.ts#0"]);
    expect(chunkPaths(postings, 3)).toEqual(["kept.ts#0"]);
    expect(postings.idsOf("kept.ts")).toHaveLength(2);
    expect(postings.idf(8)).toBeLessThan(idfBefore);
    const board = postings.score(new Map([[8, 1]]));
    expect(board.best(5).map(([id]) => postings.ref(id).path)).toEqual(["late.ts", "kept.ts"]);
  });
});
