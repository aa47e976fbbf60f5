import { readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import zlib from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodeIndex } from "../../tools/index/code-index.js";
import { searchIndex } from "../../tools/index/search.js";
import { CHUNK_ROW, decodePostingsInto } from "../../tools/index/segment.js";
import { checksumOf, crc32InScript } from "../../tools/index/segment-bytes.js";
import { SegmentSet } from "../../tools/index/segment-set.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: { path: string; remove(): Promise<void> };
const WORDS = ["parse", "token", "cache", "route", "queue", "retry", "socket", "render", "buffer", "stream"];
const FILES = 40;

beforeEach(async () => {
  folder = await temporaryFolder("clio-segments-");
  for (let index = 0; index < FILES; index++) {
    const word = WORDS[index % WORDS.length]!;
    const other = WORDS[(index * 7 + 3) % WORDS.length]!;
    await writeFile(
      path.join(folder.path, `${word}_${index}.py`),
      `def ${word}_${other}_${index}(value):\n    """Turns the ${other} into a ${word}."""\n    return ${other}(value)\n`,
    );
  }
});
afterEach(() => folder.remove());

const segmentsOf = async () => (JSON.parse(await readFile(path.join(folder.path, ".clio/index/manifest.json"), "utf8")) as { segments: string[] }).segments;
const ranking = async (index: CodeIndex, query: string) => (await searchIndex(index, query, { limit: 20 })).hits.map((hit) => [hit.path, hit.startLine, hit.score]);

describe("index segments", () => {
  it("merges the segments into one past eight when the first no longer outweighs the newer ones, leaving no other segment file, and ranks as a fresh build of the same files", async () => {
    const index = await CodeIndex.open(folder.path);
    await index.update();
    for (let round = 0; round < 7; round++) {
      // Each round rewrites five of the first segment's files: soon most of its chunks are dead.
      for (let file = round * 5; file < round * 5 + 5; file++)
        await writeFile(path.join(folder.path, `${WORDS[file % WORDS.length]}_${file}.py`), `def stream_round_${file}():\n    return "socket buffer ${round}"\n`);
      await index.update();
      expect(await segmentsOf()).toHaveLength(round + 2);
    }
    await writeFile(path.join(folder.path, "stream_last.py"), 'def stream_last():\n    return "socket buffer"\n');
    await index.update();
    const [merged] = await segmentsOf();
    expect(await segmentsOf()).toHaveLength(1);
    expect(await readdir(path.join(folder.path, ".clio/index/segments"))).toEqual([`${merged}.seg`]);
    const kept = await ranking(await CodeIndex.open(folder.path), "socket buffer");
    expect(kept).toEqual(await ranking(index, "socket buffer"));
    await rm(path.join(folder.path, ".clio"), { recursive: true, force: true });
    const fresh = await CodeIndex.open(folder.path);
    await fresh.update();
    expect(kept).toEqual(await ranking(fresh, "socket buffer"));
  });

  it("past eight, merges only the newer segments while the first outweighs them, carrying their removals and touches of its files", async () => {
    const index = await CodeIndex.open(folder.path);
    await index.update();
    const [first] = await segmentsOf();
    await writeFile(path.join(folder.path, "parse_0.py"), "def lighthouse_keeper():\n    return 'lamp'\n");
    await index.update();
    await rm(path.join(folder.path, "token_1.py"));
    await index.update();
    const touchedAt = new Date(Date.UTC(2024, 0, 2));
    await utimes(path.join(folder.path, "cache_2.py"), touchedAt, touchedAt);
    await index.update();
    for (let round = 0; round < 5; round++) {
      await writeFile(path.join(folder.path, `harbour_${round}.py`), `def harbour_round_${round}():\n    return "tide ${round}"\n`);
      await index.update();
    }
    const segments = await segmentsOf();
    expect(segments).toHaveLength(2);
    expect(segments[0]).toBe(first);
    expect((await readdir(path.join(folder.path, ".clio/index/segments"))).sort()).toEqual(segments.map((name) => `${name}.seg`).sort());

    const reopened = await CodeIndex.open(folder.path);
    const filesOf = (opened: CodeIndex) => [...opened.files.values()].map((file) => [file.path, file.size, file.mtimeMs, file.hash]).sort();
    expect(filesOf(reopened)).toEqual(filesOf(index));
    expect(reopened.files.has("token_1.py")).toBe(false);
    expect(reopened.files.get("cache_2.py")?.mtimeMs).toBe(touchedAt.getTime());
    expect(reopened.definitions("parse_route_0")).toEqual([]);
    expect(reopened.definitions("lighthouse_keeper")[0]?.path).toBe("parse_0.py");
    expect((await searchIndex(reopened, "tide", { limit: 50 })).hits.map((hit) => hit.path).sort()).toEqual([0, 1, 2, 3, 4].map((round) => `harbour_${round}.py`));
    for (const query of ["socket buffer", "lighthouse keeper", "tide harbour", "route"]) expect(await ranking(reopened, query)).toEqual(await ranking(index, query));
    // Nothing changed since: a fresh process's check finds nothing to do, not the touched or removed files again.
    expect(await reopened.update()).toMatchObject({ indexed: 0, removed: 0, files: FILES - 1 + 5 });

    await rm(path.join(folder.path, ".clio"), { recursive: true, force: true });
    const fresh = await CodeIndex.open(folder.path);
    await fresh.update();
    expect(filesOf(fresh).map(([file, size, _mtime, hash]) => [file, size, hash])).toEqual(filesOf(reopened).map(([file, size, _mtime, hash]) => [file, size, hash]));
  });

  it("adds a segment per update for changed and removed files, and a fresh process sees the newest version of each file", async () => {
    const index = await CodeIndex.open(folder.path);
    await index.update();
    await writeFile(path.join(folder.path, "parse_0.py"), "def lighthouse_keeper():\n    return 'lamp'\n");
    await rm(path.join(folder.path, "token_1.py"));
    const report = await index.update();
    expect(report).toMatchObject({ indexed: 1, removed: 1, files: FILES - 1 });
    expect(await segmentsOf()).toHaveLength(2);
    const fresh = await CodeIndex.open(folder.path);
    expect(fresh.files.has("token_1.py")).toBe(false);
    expect((await searchIndex(fresh, "lighthouse keeper")).hits[0]?.path).toBe("parse_0.py");
    expect(fresh.definitions("parse_route_0")).toEqual([]);
    expect(fresh.definitions("lighthouse_keeper")[0]?.path).toBe("parse_0.py");
    // The old version's words (not in its path) no longer find it.
    expect((await searchIndex(fresh, "route", { limit: 50 })).hits.map((hit) => hit.path)).not.toContain("parse_0.py");
    expect((await searchIndex(fresh, "route", { limit: 50 })).hits.map((hit) => hit.path)).toContain("parse_10.py");
  });

  it("merges this process's view into one segment when another process wrote the index since it was read", async () => {
    const first = await CodeIndex.open(folder.path);
    await first.update();
    const second = await CodeIndex.open(folder.path);
    await writeFile(path.join(folder.path, "queue_4.py"), "def harbour_pilot():\n    return 1\n");
    await second.update();
    await writeFile(path.join(folder.path, "retry_5.py"), "def tide_table():\n    return 2\n");
    await first.update();
    expect(await segmentsOf()).toHaveLength(1);
    const fresh = await CodeIndex.open(folder.path);
    expect((await searchIndex(fresh, "tide table")).hits[0]?.path).toBe("retry_5.py");
    expect((await searchIndex(fresh, "harbour pilot")).hits[0]?.path).toBe("queue_4.py");
  });
});

describe("a chunk's path and the chunk at a line, read from the columns", () => {
  it("agree with the chunks' places, over files of several segments and every line", async () => {
    // Files with several chunks each (definitions far apart), then an update that puts some of them in a second segment.
    const longFile = (name: string, extra: string) =>
      Array.from({ length: 12 }, (_, at) => `def ${name}_${at}(value):\n${"    value = value + 1\n".repeat(20)}    return value\n`).join("\n") + extra;
    for (const name of ["alpha", "beta", "gamma"]) await writeFile(path.join(folder.path, `${name}.py`), longFile(name, ""));
    const index = await CodeIndex.open(folder.path);
    await index.update();
    await writeFile(path.join(folder.path, "beta.py"), longFile("beta", "# edited\n"));
    await index.update();
    expect(index.segmentReaders.length).toBe(2);
    for (const filePath of index.files.keys()) {
      const ids = index.chunkIdsOf(filePath);
      for (const id of ids) expect(index.chunkPath(id)).toBe(index.chunkPlace(id).path);
      const lines = index.files.get(filePath)!.lines;
      for (let line = 0; line <= lines + 1; line++) {
        const first = ids.find((id) => index.chunkPlace(id).startLine <= line && index.chunkPlace(id).endLine >= line);
        expect(index.chunkAtLine(filePath, line)).toBe(first);
      }
    }
    expect(index.chunkIdsOf("beta.py").length).toBeGreaterThan(3);
    expect(index.chunkAtLine("missing.py", 1)).toBeUndefined();
  });
});

describe("the segments' checksum", () => {
  it("is CRC-32 as zlib computes it, also where Node has no zlib.crc32", () => {
    expect(checksumOf(Buffer.from("123456789"))).toBe(0xcbf43926);
    expect(crc32InScript(Buffer.from("123456789"))).toBe(0xcbf43926);
    expect(crc32InScript(new Uint8Array(0))).toBe(0);
    let state = 11;
    const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (const length of [1, 7, 255, 4096, 100_003]) {
      const bytes = Uint8Array.from({ length }, () => Math.floor(random() * 256));
      expect(crc32InScript(bytes)).toBe(zlib.crc32(bytes));
      expect(checksumOf(bytes)).toBe(zlib.crc32(bytes));
    }
  });
});

describe("the live chunks' summed lengths (BM25's average length)", () => {
  /** The lengths of the chunks of the files the set holds live, counted chunk by chunk from the chunk tables. */
  const countedOf = (set: SegmentSet) => {
    let total = 0;
    for (const entry of set.files.values()) {
      const rows = entry.segment.chunkRows;
      const first = entry.segment.table.firstChunks[entry.fileIndex]!;
      for (let chunk = first; chunk < first + entry.chunkCount; chunk++) total += rows[CHUNK_ROW * chunk + 2]!;
    }
    return total;
  };

  it("are each segment's stored total less the chunks of replaced, removed and hidden files, as counted chunk by chunk", async () => {
    const index = await CodeIndex.open(folder.path);
    await index.update();
    for (let round = 0; round < 3; round++) {
      for (let file = round * 4; file < round * 4 + 4; file++)
        await writeFile(path.join(folder.path, `${WORDS[file % WORDS.length]}_${file}.py`), `def changed_${file}_${round}():\n    return ${round}\n`);
      await rm(path.join(folder.path, `${WORDS[(30 + round) % WORDS.length]}_${30 + round}.py`));
      await index.update();
    }
    expect(index.segmentReaders.length).toBe(4);
    for (const hidden of [undefined, (relative: string) => relative.startsWith("parse_") || relative === "socket_16.py"]) {
      const set = new SegmentSet(hidden);
      for (const reader of index.segmentReaders) set.add(reader);
      expect(set.files.size).toBe(hidden === undefined ? FILES - 3 : FILES - 3 - 3 - 1);
      expect(set.liveChunkLengths).toBe(countedOf(set));
      expect(set.liveChunkLengths).toBeGreaterThan(0);
    }
  });

  it("are counted from the chunk table for a segment whose footer stores no total (written before it was stored)", async () => {
    const index = await CodeIndex.open(folder.path);
    await index.update();
    const [name] = await segmentsOf();
    const file = path.join(folder.path, ".clio/index/segments", `${name}.seg`);
    const bytes = await readFile(file);
    const footerLength = bytes.readUInt32LE(bytes.length - 16);
    const footer = JSON.parse(bytes.subarray(bytes.length - 16 - footerLength, bytes.length - 16).toString("utf8")) as Record<string, unknown>;
    expect(typeof footer.chunkLengths).toBe("number");
    delete footer.chunkLengths;
    const older = Buffer.from(JSON.stringify(footer), "utf8");
    const trailer = Buffer.from(bytes.subarray(bytes.length - 16));
    trailer.writeUInt32LE(older.length, 0);
    trailer.writeUInt32LE(checksumOf(older), 4);
    await writeFile(file, Buffer.concat([bytes.subarray(0, bytes.length - 16 - footerLength), older, trailer]));
    const reopened = await CodeIndex.open(folder.path);
    const set = new SegmentSet();
    for (const reader of reopened.segmentReaders) set.add(reader);
    expect(set.liveChunkLengths).toBe(countedOf(set));
    expect((await searchIndex(reopened, "socket buffer")).hits.map((hit) => [hit.path, hit.score])).toEqual(
      (await searchIndex(index, "socket buffer")).hits.map((hit) => [hit.path, hit.score]),
    );
  });
});

describe("a term's posting list", () => {
  it("kept for a search is what postings visits, and what a merge's reading in dictionary order visits, in every segment, for every word", async () => {
    const index = await CodeIndex.open(folder.path);
    await index.update();
    await writeFile(path.join(folder.path, "extra.py"), `def ${WORDS.join("_")}():\n    return "${WORDS.join(" ")}"\n`);
    await index.update();
    expect(index.segmentReaders.length).toBe(2);
    let compared = 0;
    for (const reader of index.segmentReaders) {
      const inOrder = reader.postingsInOrder();
      const words = [...WORDS, "value", "def", "return", "turns", "into"].sort();
      for (const word of words) {
        const entry = reader.term(word);
        if (entry === undefined) continue;
        const visited: number[][] = [];
        reader.postings(entry, (chunk, count) => visited.push([chunk, count]));
        const { ids, counts } = reader.postingList(entry);
        expect([...ids].map((chunk, at) => [chunk, counts[at]])).toEqual(visited);
        const visitedInOrder: number[][] = [];
        inOrder(entry, (chunk, count) => visitedInOrder.push([chunk, count]));
        expect(visitedInOrder).toEqual(visited);
        compared += visited.length;
      }
    }
    expect(compared).toBeGreaterThan(FILES);
  });
});

describe("decodePostingsInto", () => {
  const decoded = (bytes: number[], frequency: number, chunkCount = 1000) => {
    const [ids, counts] = [new Uint32Array(frequency), new Uint32Array(frequency)];
    decodePostingsInto(Uint8Array.from(bytes), frequency, chunkCount, ids, counts);
    return [...ids].map((chunk, at) => [chunk, counts[at]]);
  };

  it("reads delta-coded chunk ids and counts as varints", () => {
    // Chunk 3 (count 1), chunk 3 + 300 = 303 (count 2), chunk 303 + 1 = 304 (count 130).
    expect(decoded([3, 1, 0xac, 0x02, 2, 1, 0x82, 0x01], 3)).toEqual([
      [3, 1],
      [303, 2],
      [304, 130],
    ]);
  });

  it("throws the damage a search or merge rebuilds on: cut short, a number too long, a chunk past the segment's", () => {
    expect(() => decoded([3, 1, 0xac], 2)).toThrow(/runs past its section/);
    expect(() => decoded([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 1], 1)).toThrow(/too long/);
    expect(() => decoded([5, 1, 5, 1], 2, 8)).toThrow(/does not hold/);
  });
});
