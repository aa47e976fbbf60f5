import { describe, expect, it } from "vitest";
import { loadOnce } from "../../protocols/contract/load-once.js";

describe("loadOnce", () => {
  it("loads once and shares the result with every caller", async () => {
    let loads = 0;
    const load = loadOnce(async () => ({ loaded: ++loads }));
    const [first, second] = await Promise.all([load(), load()]);
    expect(await load()).toBe(first);
    expect(second).toBe(first);
    expect(loads).toBe(1);
  });

  it("tries again after a failed load", async () => {
    let attempts = 0;
    const load = loadOnce(async () => {
      attempts++;
      if (attempts === 1) throw new Error("the disk was busy");
      return "ready";
    });
    await expect(load()).rejects.toThrow("the disk was busy");
    expect(await load()).toBe("ready");
    expect(attempts).toBe(2);
  });
});
