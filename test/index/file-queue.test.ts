/** FileQueue.holdsAny: an update loads the analysis only when the check queued a file. */
import { describe, expect, it } from "vitest";
import { FileQueue } from "../../tools/index/file-queue.js";

const file = (name: string) => ({ path: name, absolute: `/w/${name}`, size: 10, mtimeMs: 1 });

describe("FileQueue.holdsAny", () => {
  it("answers false for a queue that ends empty, at once or later", async () => {
    expect(await FileQueue.of([]).holdsAny()).toBe(false);
    const later = new FileQueue();
    const answer = later.holdsAny();
    setTimeout(() => later.end(), 5);
    expect(await answer).toBe(false);
  });

  it("answers true as soon as a file arrives, before the queue ends", async () => {
    const queue = new FileQueue();
    const answer = queue.holdsAny();
    setTimeout(() => queue.push(file("a.ts")), 5);
    expect(await answer).toBe(true);
    expect(queue.ended).toBe(false);
    expect(await FileQueue.of([file("b.ts")]).holdsAny()).toBe(true);
  });
});
