import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isArrayIndex, MemoryFileBytes } from "../../tools/memory/file-bytes.js";
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

const emptyData = (): MemoryFileData => dataOf([]);

/** Keys that exercise the object's key order: array indexes and near misses, odd names, any text. */
const keyArbitrary = fc.oneof(
  fc.constantFrom("0", "1", "2", "9", "10", "17", "4294967294", "4294967295", "4294967296", "01", "-1", "1.5", "1e3", " 1", "__proto__", "constructor", "", "é", "😀"),
  fc.nat({ max: 40 }).map(String),
  fc.constantFrom("alpha", "beta", "gamma", "delta"),
  fc.string({ maxLength: 6 }),
);

type Operation = { kind: "set"; key: string; value: string; extra: unknown } | { kind: "delete"; key: string };

const operationArbitrary: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("set" as const), key: keyArbitrary, value: fc.string({ maxLength: 8 }), extra: fc.jsonValue({ maxDepth: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), key: keyArbitrary }) },
);

function apply(data: MemoryFileData, operation: Operation): void {
  if (operation.kind === "set") data.entries[operation.key] = memory(operation.key, operation.value, { extra: operation.extra });
  else delete data.entries[operation.key];
}

describe("MemoryFileBytes", () => {
  it("splices changes into bytes identical to a whole JSON.stringify, over random operation sequences", () => {
    fc.assert(
      fc.property(
        // A change touches each of its keys once (a key deleted and set again in one change moves to the end, which only a whole encode sees).
        fc.array(fc.uniqueArray(operationArbitrary, { minLength: 1, maxLength: 3, selector: (operation) => operation.key }), { maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        (changes, wholeEncodes) => {
          const data = emptyData();
          const bytes = new MemoryFileBytes();
          expect(bytes.encode(data).toString("utf8")).toBe(JSON.stringify(data));
          changes.forEach((operations, index) => {
            for (const operation of operations) apply(data, operation);
            const keys = wholeEncodes[index] ? undefined : operations.map((operation) => operation.key);
            expect(bytes.encode(data, keys).toString("utf8")).toBe(JSON.stringify(data));
          });
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("splices into a file of many entries, large values and multi-byte text", () => {
    const data = emptyData();
    for (let index = 0; index < 300; index++) data.entries[`key-${index}`] = memory(`key-${index}`, "ü€😀".repeat(index));
    const bytes = new MemoryFileBytes();
    bytes.encode(data);
    const steps: Array<[string, StoredMemory | undefined]> = [
      ["key-150", memory("key-150", "x".repeat(100_000))],
      ["7", memory("7", "index key")],
      ["3", memory("3", "smaller index key")],
      ["key-0", undefined],
      ["key-299", undefined],
      ["new", memory("new", "at the end")],
      ["7", undefined],
      ["key-150", memory("key-150", "short again")],
    ];
    for (const [key, entry] of steps) {
      if (entry === undefined) delete data.entries[key];
      else data.entries[key] = entry;
      expect(bytes.encode(data, [key]).toString("utf8")).toBe(JSON.stringify(data));
    }
  });

  it("encodes whole when the data is another object or of another version", () => {
    const bytes = new MemoryFileBytes();
    const first = emptyData();
    first.entries.a = memory("a", "one");
    bytes.encode(first);
    const second = emptyData();
    second.entries.b = memory("b", "two");
    expect(bytes.encode(second, ["b"]).toString("utf8")).toBe(JSON.stringify(second));
    second.version = 2;
    second.entries.c = memory("c", "three");
    expect(bytes.encode(second, ["c"]).toString("utf8")).toBe(JSON.stringify(second));
    bytes.reset();
    second.entries.d = memory("d", "four");
    expect(bytes.encode(second, ["d"]).toString("utf8")).toBe(JSON.stringify(second));
  });

  it("knows which keys an object orders first", () => {
    for (const key of ["0", "7", "10", "4294967294"]) expect(isArrayIndex(key)).toBe(true);
    for (const key of ["", "01", "-1", "1.0", "1e3", "4294967295", "99999999999", " 1", "a"]) expect(isArrayIndex(key)).toBe(false);
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 11 }), fc.nat().map(String), fc.constantFrom("4294967294", "4294967295")), (key) => {
        const object = Object.create(null) as Record<string, number>;
        object.z = 1;
        object[key] = 2;
        expect(Object.keys(object)[0] === key && key !== "z").toBe(isArrayIndex(key));
      }),
      { numRuns: 2000 },
    );
  });
});
