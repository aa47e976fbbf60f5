/**
 * The index on disk: `<workspace>/.clio/index/manifest.json` and 64 shard files of per-file
 * records, each written atomically (a temporary file renamed over the old one). A re-index
 * rewrites only the shards whose files changed. The index is a cache: a missing, foreign-version
 * or unreadable store is rebuilt, never trusted.
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { SymbolDefinition } from "./symbols.js";
import type { SkippedFile } from "./walk.js";

export const INDEX_FORMAT_VERSION = 1;
export const SHARD_COUNT = 64;

export interface StoredChunk {
  startLine: number;
  endLine: number;
  symbol?: string;
  /** Distinct terms and their weighted counts, in parallel arrays (compact and fast to parse). */
  terms: string[];
  counts: number[];
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
  /** Why the file looks like a program's entry point (`func main`, `__main__`), if it does. */
  entry?: string;
  /** The bytes were not valid UTF-8; they were read with replacement characters. */
  invalidUtf8?: boolean;
}

export interface IndexManifest {
  version: number;
  updatedAt: number;
  files: number;
  /** The files skipped by the last full walk, and why. */
  skipped: SkippedFile[];
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

/** Writes `text` to `file` atomically: a unique temporary file in the same folder, then rename. */
export async function writeAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    await fs.writeFile(temporary, text, "utf8");
    await fs.rename(temporary, file);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}

export class IndexStore {
  constructor(readonly directory: string) {}

  private shardFile(shard: number): string {
    return path.join(this.directory, "shards", `${String(shard).padStart(2, "0")}.json`);
  }

  /** The stored files, or undefined when there is no usable index (missing, other version, damaged). */
  async load(): Promise<{ manifest: IndexManifest; files: Map<string, IndexedFile> } | undefined> {
    let manifest: IndexManifest;
    try {
      manifest = JSON.parse(await fs.readFile(path.join(this.directory, "manifest.json"), "utf8")) as IndexManifest;
    } catch {
      return undefined;
    }
    if (manifest.version !== INDEX_FORMAT_VERSION) return undefined;
    const files = new Map<string, IndexedFile>();
    try {
      const shards = await Promise.all(
        Array.from({ length: SHARD_COUNT }, (_, shard) =>
          fs.readFile(this.shardFile(shard), "utf8").then(
            (text) => JSON.parse(text) as IndexedFile[],
            (error: NodeJS.ErrnoException) => {
              if (error.code === "ENOENT") return [];
              throw error;
            },
          ),
        ),
      );
      for (const shard of shards) for (const file of shard) files.set(file.path, file);
    } catch {
      return undefined;
    }
    return { manifest, files };
  }

  /** Rewrites the shards listed in `dirty`, then the manifest (last, so a crash leaves the old manifest). */
  async save(files: ReadonlyMap<string, IndexedFile>, dirty: ReadonlySet<number>, manifest: IndexManifest): Promise<void> {
    await fs.mkdir(path.join(this.directory, "shards"), { recursive: true });
    const byShard = new Map<number, IndexedFile[]>();
    for (const shard of dirty) byShard.set(shard, []);
    for (const file of files.values()) byShard.get(shardOf(file.path))?.push(file);
    await Promise.all([...byShard].map(([shard, records]) => writeAtomically(this.shardFile(shard), JSON.stringify(records))));
    await writeAtomically(path.join(this.directory, "manifest.json"), JSON.stringify(manifest));
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
    await fs.mkdir(this.directory, { recursive: true });
    await writeAtomically(path.join(this.directory, "vectors.json"), JSON.stringify(Object.fromEntries(vectors)));
  }
}
