/**
 * The index on disk, under `<workspace>/.clio/index/`: `manifest.json`, the term dictionary
 * `terms.txt` (one term a line, in id order), and 64 binary shard files of per-file records
 * (`shards/NN.bin`), each written atomically (a temporary file renamed over the old one), all
 * under a lock file. A re-index rewrites only the shards whose files changed. The index is a
 * cache: a missing, foreign-version or unreadable store is rebuilt, never trusted.
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeAtomically } from "../atomic-file.js";
import { makeFolder } from "../clio-folder.js";
import { ToolError } from "../errors.js";
import { withFileLock } from "../lock-file.js";
import type { SymbolDefinition } from "./symbols.js";
import type { SkippedFile } from "./walk.js";

/** 5: comment and docstring lines count twice in chunk terms. */
export const INDEX_FORMAT_VERSION = 5;
export const SHARD_COUNT = 64;

/**
 * Terms interned as numbers. Ids only grow (a term keeps its id for the life of the stored
 * index), so shards store ids and the dictionary is stored once, in id order, as `terms.txt`.
 */
export class TermDictionary {
  private readonly ids = new Map<string, number>();
  readonly terms: string[] = [];
  /** How many terms the stored `terms.txt` holds. */
  savedSize = 0;

  /** Loads stored terms into an empty dictionary. */
  loadAll(terms: string[]): void {
    for (const term of terms) this.intern(term);
    this.savedSize = this.terms.length;
  }

  intern(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.ids.set(term, id);
      this.terms.push(term);
    }
    return id;
  }

  lookup(term: string): number | undefined {
    return this.ids.get(term);
  }

  get size(): number {
    return this.terms.length;
  }
}

/**
 * A file's chunks are stored as one run of 32-bit numbers, a record per chunk: startLine,
 * endLine, length, the number n of distinct terms, then n term ids and their n counts.
 */
export const CHUNK_HEADER = 4;

export interface StoredChunk {
  startLine: number;
  endLine: number;
  symbol?: string;
  /** Where its distinct term ids (of the index's dictionary) start in the file's `numbers`; their weighted counts follow them. */
  termsAt: number;
  /** How many distinct terms it holds. */
  distinct: number;
  /** Sum of counts: the chunk's length for BM25. */
  length: number;
}

export interface IndexedFile {
  path: string;
  size: number;
  mtimeMs: number;
  /** sha1 of the bytes. */
  hash: string;
  language: string;
  lines: number;
  symbols: SymbolDefinition[];
  imports: string[];
  chunks: StoredChunk[];
  /** The chunks' records as stored (see `CHUNK_HEADER`). */
  numbers: Uint32Array;
  /** Why the file looks like a program's entry point (`func main`, `__main__`), if it does. */
  entry?: string;
  /** The bytes were not valid UTF-8; they were read with replacement characters. */
  invalidUtf8?: boolean;
  /** Its fields that follow from its content (all but path, size and mtimeMs) as shard JSON, made where it was analysed and kept for the next save. */
  contentJson?: string;
}

/** A file as a shard's JSON header holds it: each chunk's symbol ("" for none); the rest of the chunks live in the binary part. */
type FileHeader = Omit<IndexedFile, "chunks" | "numbers" | "contentJson"> & { chunkSymbols: string[] };

/** The JSON of a file's header fields that follow from its content, from `hash` on. */
export function contentJsonOf(file: IndexedFile): string {
  const fields: Omit<FileHeader, "path" | "size" | "mtimeMs"> = {
    hash: file.hash,
    language: file.language,
    lines: file.lines,
    symbols: file.symbols,
    imports: file.imports,
    chunkSymbols: file.chunks.map((chunk) => chunk.symbol ?? ""),
  };
  if (file.entry !== undefined) fields.entry = file.entry;
  if (file.invalidUtf8 !== undefined) fields.invalidUtf8 = file.invalidUtf8;
  return JSON.stringify(fields);
}

export interface IndexManifest {
  version: number;
  updatedAt: number;
  files: number;
  /** The files skipped by the last full walk, and why. */
  skipped: SkippedFile[];
  /**
   * Names the term dictionary the shards' ids refer to. Each process extends its own
   * dictionary, so a process that finds another's generation on disk rewrites everything.
   */
  generation?: string;
}

export interface VectorRecord {
  hash: string;
  vectors: number[][];
}

/** FNV-1a, so a path always lands in the same shard. */
export function shardOf(filePath: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < filePath.length; index++) {
    hash ^= filePath.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % SHARD_COUNT;
}

/**
 * A shard file: a 4-byte header length, the JSON header (its files without their chunks), then
 * each file's chunk records (see `CHUNK_HEADER`), little-endian 32-bit.
 */
function encodeShard(files: IndexedFile[]): Buffer {
  let total = 0;
  const headers: string[] = [];
  for (const file of files) {
    total += file.numbers.length;
    const content = file.contentJson ?? contentJsonOf(file);
    // Used once: holding every file's JSON between saves would cost more memory than it saves time.
    file.contentJson = undefined;
    headers.push(`{"path":${JSON.stringify(file.path)},"size":${JSON.stringify(file.size)},"mtimeMs":${JSON.stringify(file.mtimeMs)},${content.slice(1)}`);
  }
  const json = `[${headers.join(",")}]`;
  const jsonBytes = Buffer.byteLength(json, "utf8");
  // Blanks after the JSON put the numbers on a 4-byte boundary, so a reader can view them in place.
  const headerLength = jsonBytes + ((4 - ((4 + jsonBytes) % 4)) % 4);
  const bytes = Buffer.allocUnsafeSlow(4 + headerLength + 4 * total);
  bytes.writeUInt32LE(headerLength, 0);
  bytes.write(json, 4, "utf8");
  bytes.fill(0x20, 4 + jsonBytes, 4 + headerLength);
  let position = 4 + headerLength;
  for (const file of files) {
    if (littleEndian) new Uint32Array(bytes.buffer, bytes.byteOffset + position, file.numbers.length).set(file.numbers);
    else file.numbers.forEach((value, index) => bytes.writeUInt32LE(value, position + 4 * index));
    position += 4 * file.numbers.length;
  }
  return bytes;
}

const littleEndian = os.endianness() === "LE";

/** The numbers from `start` on: a view of the bytes where they are aligned, else a copy. */
function fromLittleEndian(bytes: Buffer, start: number): Uint32Array {
  const count = (bytes.length - start) >> 2;
  if (littleEndian && (bytes.byteOffset + start) % 4 === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset + start, count);
  const numbers = new Uint32Array(count);
  for (let index = 0; index < count; index++) numbers[index] = bytes.readUInt32LE(start + index * 4);
  return numbers;
}

/**
 * A file as a worker sends it: the JSON of its content fields and its chunk records, from which
 * `fileFromParts` rebuilds the record (cheaper to pass between threads than the record itself).
 */
export interface FileParts {
  path: string;
  size: number;
  mtimeMs: number;
  contentJson: string;
  numbers: Uint32Array;
}

export function partsOf(file: IndexedFile): FileParts {
  return { path: file.path, size: file.size, mtimeMs: file.mtimeMs, contentJson: file.contentJson ?? contentJsonOf(file), numbers: file.numbers };
}

/** The record `parts` describe (its term ids are whatever dictionary's the numbers use). */
export function fileFromParts(parts: FileParts): IndexedFile {
  const { chunkSymbols, ...content } = JSON.parse(parts.contentJson) as Omit<FileHeader, "path" | "size" | "mtimeMs">;
  const { chunks, end } = readChunks(chunkSymbols, parts.numbers, 0, Number.POSITIVE_INFINITY);
  if (end !== parts.numbers.length) throw new Error(`the chunk records of ${parts.path} do not match its chunks`);
  return { path: parts.path, size: parts.size, mtimeMs: parts.mtimeMs, ...content, chunks, numbers: parts.numbers, contentJson: parts.contentJson };
}

/**
 * The chunks named by `chunkSymbols`, read from the records in `numbers` from `first` on (their
 * `termsAt` counted from `first`), and where those records end. Throws when they are cut short
 * or name a term id of `dictionarySize` or more.
 */
function readChunks(chunkSymbols: string[], numbers: Uint32Array, first: number, dictionarySize: number): { chunks: StoredChunk[]; end: number } {
  let position = first;
  const chunks = chunkSymbols.map((symbol) => {
    const count = numbers[position + CHUNK_HEADER - 1];
    if (count === undefined || position + CHUNK_HEADER + 2 * count > numbers.length) throw new Error("a shard is damaged: its chunk records are cut short");
    const termsAt = position + CHUNK_HEADER;
    const chunk: StoredChunk = { startLine: numbers[position]!, endLine: numbers[position + 1]!, length: numbers[position + 2]!, termsAt: termsAt - first, distinct: count };
    if (symbol !== "") chunk.symbol = symbol;
    for (let term = termsAt; term < termsAt + count; term++) if (numbers[term]! >= dictionarySize) throw new Error("a shard names a term the dictionary does not hold");
    position = termsAt + 2 * count;
    return chunk;
  });
  return { chunks, end: position };
}

/** Throws on any shard that is not exactly what `encodeShard` wrote (cut short, padded, garbled). */
function decodeShard(bytes: Buffer, dictionarySize: number): IndexedFile[] {
  const damaged = (why: string) => new Error(`a shard is damaged: ${why}`);
  const headerLength = bytes.readUInt32LE(0);
  if (4 + headerLength > bytes.length || (bytes.length - 4 - headerLength) % 4 !== 0) throw damaged("its length does not match its header");
  const headers = JSON.parse(bytes.toString("utf8", 4, 4 + headerLength)) as FileHeader[];
  const numbers = fromLittleEndian(bytes, 4 + headerLength);
  let position = 0;
  const files = headers.map(({ chunkSymbols, ...rest }): IndexedFile => {
    const first = position;
    const { chunks, end } = readChunks(chunkSymbols, numbers, first, dictionarySize);
    position = end;
    return { ...rest, chunks, numbers: numbers.subarray(first, end) };
  });
  if (position !== numbers.length) throw damaged("it holds more chunk records than its header names");
  return files;
}

export class IndexStore {
  constructor(readonly directory: string) {}

  private shardFile(shard: number): string {
    return path.join(this.directory, "shards", `${String(shard).padStart(2, "0")}.bin`);
  }

  /** The generation this process last loaded or wrote. */
  private generation: string | undefined;

  private async readManifest(): Promise<IndexManifest | undefined> {
    try {
      return JSON.parse(await fs.readFile(path.join(this.directory, "manifest.json"), "utf8")) as IndexManifest;
    } catch {
      return undefined;
    }
  }

  /**
   * The stored files, or undefined when there is no usable index (missing, other version,
   * damaged). Reads under the index lock, so a save by another process is never half seen.
   */
  async load(dictionary: TermDictionary): Promise<{ manifest: IndexManifest; files: IndexedFile[] } | undefined> {
    if ((await this.readManifest()) === undefined) return undefined;
    return withFileLock(path.join(this.directory, "lock"), async () => {
      const manifest = await this.readManifest();
      if (manifest?.version !== INDEX_FORMAT_VERSION) return undefined;
      const files: IndexedFile[] = [];
      try {
        const terms = await fs.readFile(path.join(this.directory, "terms.txt"), "utf8");
        dictionary.loadAll(terms === "" ? [] : terms.split("\n"));
        const shards = await Promise.all(
          Array.from({ length: SHARD_COUNT }, (_, shard) =>
            fs.readFile(this.shardFile(shard)).catch((error: NodeJS.ErrnoException) => {
              if (error.code === "ENOENT") return undefined;
              throw error;
            }),
          ),
        );
        for (const shard of shards) if (shard !== undefined) files.push(...decodeShard(shard, dictionary.size));
      } catch {
        return undefined;
      }
      this.generation = manifest.generation;
      return { manifest, files };
    });
  }

  /**
   * Rewrites the shards listed in `dirty` (all of them when another process wrote the index
   * since), the dictionary if it grew, then the manifest — last, so a crash leaves the old one.
   */
  async save(files: ReadonlyMap<string, IndexedFile>, dirty: ReadonlySet<number>, manifest: IndexManifest, dictionary: TermDictionary): Promise<void> {
    await makeFolder(path.join(this.directory, "shards")).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOTDIR" && error.code !== "EEXIST") throw error;
      throw new ToolError(
        "corrupt_file",
        `The code index cannot be saved: something that is not a folder stands in the way of ${this.directory} (${error.code}).`,
        `Move away the file at ${this.directory} or at ${path.dirname(this.directory)} (the index is a cache and is rebuilt), then index again.`,
      );
    });
    await withFileLock(path.join(this.directory, "lock"), async () => {
      const onDisk = await this.readManifest();
      const shards = new Set(dirty);
      if (this.generation === undefined || onDisk?.generation !== this.generation) {
        dictionary.savedSize = -1;
        for (let shard = 0; shard < SHARD_COUNT; shard++) shards.add(shard);
      }
      // Every save is a new generation: a process may only add to what it wrote or read itself.
      this.generation = randomBytes(8).toString("hex");
      const byShard = new Map<number, IndexedFile[]>();
      for (const shard of shards) byShard.set(shard, []);
      for (const file of files.values()) byShard.get(shardOf(file.path))?.push(file);
      if (dictionary.size !== dictionary.savedSize) {
        await writeAtomically(path.join(this.directory, "terms.txt"), dictionary.terms.join("\n"));
        dictionary.savedSize = dictionary.size;
      }
      await Promise.all([...byShard].map(([shard, records]) => writeAtomically(this.shardFile(shard), encodeShard(records))));
      await writeAtomically(path.join(this.directory, "manifest.json"), JSON.stringify({ ...manifest, generation: this.generation }));
    });
  }

  async loadVectors(): Promise<Map<string, VectorRecord>> {
    try {
      const entries = JSON.parse(await fs.readFile(path.join(this.directory, "vectors.json"), "utf8")) as Record<string, VectorRecord>;
      return new Map(Object.entries(entries));
    } catch {
      return new Map();
    }
  }

  async saveVectors(vectors: ReadonlyMap<string, VectorRecord>): Promise<void> {
    await makeFolder(this.directory);
    await writeAtomically(path.join(this.directory, "vectors.json"), JSON.stringify(Object.fromEntries(vectors)));
  }
}
