/** The contracts of a code index (code-index.ts): its options, progress, report and embedder. */
import type { CheckHelperOptions, CheckHelpers } from "./check-helpers.js";
import type { SymbolDefinition } from "./symbols.js";
import type { SkippedFile } from "./walk.js";

/** Turns texts into vectors (one per text, all of one length) for semantic ranking. */
export type Embedder = (texts: string[]) => Promise<number[][]>;

export interface IndexProgress {
  phase: "scanning" | "reading" | "embedding" | "writing";
  done: number;
  total: number;
}

/** Options of an index; those of its change checks' find and stat thread are `CheckHelperOptions`. */
export interface CodeIndexOptions extends CheckHelperOptions {
  /** Files larger than this are skipped (default 1 MiB). */
  maxFileBytes?: number;
  /** Longest chunk in lines (default 60). */
  maxChunkLines?: number;
  /** Called as the work goes on (the terminal shows it). */
  onProgress?: (progress: IndexProgress) => void;
  /** Enables hybrid ranking: chunk vectors are stored beside the index. Off by default. */
  embed?: Embedder;
  /** Share of the semantic score in hybrid ranking, 0..1 (default 0.5). */
  semanticWeight?: number;
  /** Worker threads beside this one for large updates (default: the machine's parallelism less one, at most 3; 0 keeps the work in this thread). */
  workers?: number;
  /** The caller checks for changes right after opening (a fresh process's first search): find or the stat thread starts as the manifest is read, to be under way by then. */
  checkAfterOpen?: boolean;
  /** The change checks' helpers, when begun before the index code loaded (early-check.ts); made by the index otherwise. */
  helpers?: CheckHelpers;
  /** Updates that read fewer bytes than this stay in this thread (default 8 MiB). */
  parallelMinBytes?: number;
  /** Analysed files are written as a segment once they hold this many term postings (default 1,000,000): bounds a build's memory. */
  segmentPostings?: number;
  /**
   * Root-relative paths the person's deny rules keep from being read: never indexed, and
   * dropped from a stored index on open, so no search, explanation or overview shows them.
   */
  hidden?: (relative: string) => boolean;
  /**
   * False while nothing may be written in the workspace (plan mode): the index is then built
   * and kept in memory only, and written at the first update after it turns true again.
   */
  persist?: () => boolean;
}

export interface IndexReport {
  /** Files the index holds after the update. */
  files: number;
  /** Files read and analysed in this update (new or changed content). */
  indexed: number;
  unchanged: number;
  removed: number;
  skipped: SkippedFile[];
  /** Indexed files whose bytes were not valid UTF-8 (read with replacement characters). */
  invalidUtf8: string[];
  chunks: number;
  /** Symbols defined in the indexed files (counted when read: a search's update never reads it). */
  readonly symbols: number;
  /** Worker threads that analysed files (0: all in this thread). */
  workers: number;
  durationMs: number;
}

export interface SymbolLocation {
  path: string;
  symbol: SymbolDefinition;
}
