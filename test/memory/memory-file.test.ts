import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeMemoryFile, MEMORY_FORMAT_VERSION, type MemoryFileData, type StoredMemory } from "../../tools/memory/memory-file.js";

const memory = (key: string, value: string, metadata: Record<string, unknown> = {}): StoredMemory => ({
  key,
  value,
  tags: ["t"],
  metadata,
  createdAt: "2026-11-22T00:00:00.000Z",
  updatedAt: "2026-11-22T00:00:00.000Z",
});

function dataOf(entries: Array<[string, StoredMemory]>): MemoryFileData {
  return { version: MEMORY_FORMAT_VERSION, entries: Object.assign(Object.create(null) as Record<string, StoredMemory>, Object.fromEntries(entries)) };
}

describe("encodeMemoryFile", () => {
  it("writes exactly the UTF-8 of JSON.stringify, whatever the keys and values", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), fc.string(), fc.jsonValue()), { maxLength: 12 }), (rows) => {
        const data = dataOf(rows.map(([key, value, extra]) => [key, memory(key, value, { extra })]));
        expect(encodeMemoryFile(data).toString("utf8")).toBe(JSON.stringify(data));
      }),
      { numRuns: 500 },
    );
  });

  it("stays exact when the same entry object moves to another key or is replaced", () => {
    const shared = memory("a", "first ✓");
    const data = dataOf([
      ["a", shared],
      ["__proto__", memory("__proto__", "odd key")],
    ]);
    expect(encodeMemoryFile(data).toString("utf8")).toBe(JSON.stringify(data));
    delete data.entries.a;
    data.entries.b = shared;
    // biome-ignore lint/suspicious/noProto: the test writes a "__proto__" key on purpose, as a hostile memory file would.
    data.entries.__proto__ = memory("__proto__", "replaced");
    expect(encodeMemoryFile(data).toString("utf8")).toBe(JSON.stringify(data));
    expect(encodeMemoryFile(dataOf([])).toString("utf8")).toBe(JSON.stringify(dataOf([])));
  });
});
