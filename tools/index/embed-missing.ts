/**
 * Chunk vectors for hybrid ranking: the chunks of files whose vectors are missing or stale are
 * read again, sent to the embedder in batches, and kept beside the index.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import { decodeText } from "./file-record.js";
import type { Embedder, IndexProgress } from "./index-types.js";
import type { IndexEntry, LiveFiles } from "./live-files.js";
import type { ChunkView } from "./segment-set.js";
import type { VectorRecord } from "./store.js";

const EMBED_BATCH = 64;

/** What embedding reads of an index: its root, live files and chunks. */
export interface EmbeddedIndex {
  readonly root: string;
  readonly files: LiveFiles;
  chunkIdsOf(filePath: string): number[];
  chunk(id: number): ChunkView;
}

export interface EmbedOptions {
  onProgress?: (progress: IndexProgress) => void;
  /** Stores the vectors (absent while nothing may be written). */
  save?: (vectors: Map<string, VectorRecord>) => Promise<void>;
  signal?: AbortSignal;
}

/** Embeds the chunks of files whose vectors are missing or stale, drops the vectors of files gone, and stores them. */
export async function embedMissing(index: EmbeddedIndex, vectors: Map<string, VectorRecord>, embed: Embedder, options: EmbedOptions): Promise<void> {
  for (const filePath of [...vectors.keys()]) if (!index.files.has(filePath)) vectors.delete(filePath);
  const stale = [...index.files.values()].filter((file) => vectors.get(file.path)?.hash !== file.hash && file.chunkCount > 0);
  if (stale.length === 0) return;
  const pending: Array<{ file: IndexEntry; text: string }> = [];
  for (const file of stale) {
    const { text } = decodeText(await fs.readFile(path.join(index.root, file.path)));
    const lines = text.split("\n");
    for (const id of index.chunkIdsOf(file.path)) {
      const chunk = index.chunk(id);
      pending.push({ file, text: lines.slice(chunk.startLine - 1, chunk.endLine).join("\n") });
    }
  }
  const results: number[][] = [];
  for (let start = 0; start < pending.length; start += EMBED_BATCH) {
    if (options.signal?.aborted) throw new ToolError("cancelled", "Embedding was cancelled.", "Run the index action again to finish it.");
    options.onProgress?.({ phase: "embedding", done: start, total: pending.length });
    const batch = pending.slice(start, start + EMBED_BATCH);
    const embedded = await embed(batch.map((entry) => entry.text));
    if (embedded.length !== batch.length) {
      throw new ToolError("internal_error", `The embedder returned ${embedded.length} vectors for ${batch.length} texts.`, "An embedder must return one vector per text.");
    }
    results.push(...embedded);
  }
  let position = 0;
  for (const file of stale) {
    vectors.set(file.path, { hash: file.hash, vectors: results.slice(position, position + file.chunkCount) });
    position += file.chunkCount;
  }
  await options.save?.(vectors);
}
