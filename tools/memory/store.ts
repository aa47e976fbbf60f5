/**
 * Memories that last: key → value notes with tags and metadata, in a project scope
 * (`<workspace>/.clio/memory.json`) and a global one (`$CLIO_HOME/memory.json`, default
 * `~/.clio`). Searching ranks by key, tags and value; `relevantMemories` picks what fits a
 * token budget for the agent's prompt.
 */
import path from "node:path";
import { ToolError } from "../errors.js";
import type { FileLockOptions } from "../lock-file.js";
import { MemoryFile, type MemoryFileData, type StoredMemory } from "./memory-file.js";
import { MemoryRanking } from "./ranking.js";

export type MemoryScope = "project" | "global";
export const MEMORY_SCOPES: readonly MemoryScope[] = ["project", "global"];

export interface MemoryEntry extends StoredMemory {
  scope: MemoryScope;
}

export interface StoreInput {
  key: string;
  value: string;
  /** Tags as a list or as comma-separated text. */
  tags?: string[] | string;
  metadata?: Record<string, unknown>;
  scope?: MemoryScope;
}

export interface MemoryHit {
  entry: MemoryEntry;
  score: number;
}

export interface MemoryStoreOptions {
  /** The workspace root: project memories live in `<root>/.clio/memory.json`. */
  workspaceRoot: string;
  /** clio's home folder for global memories (from CLIO_HOME, else ~/.clio). */
  home: string;
  /** The clock (ms since the epoch). */
  now?: () => number;
  lock?: FileLockOptions;
}

export const LIMITS = { keyLength: 200, valueLength: 100_000, tagLength: 50, tags: 20, metadataLength: 10_000 };

interface Scope {
  file: MemoryFile;
  ranking: MemoryRanking;
  stale: boolean;
}

export class MemoryStore {
  private readonly scopes: Record<MemoryScope, Scope>;
  private readonly now: () => number;

  constructor(options: MemoryStoreOptions) {
    this.now = options.now ?? Date.now;
    const open = (file: string): Scope => {
      const scope: Scope = { file: new MemoryFile(file, options.lock), ranking: new MemoryRanking(), stale: true };
      scope.file.onReload = () => (scope.stale = true);
      return scope;
    };
    this.scopes = {
      project: open(path.join(options.workspaceRoot, ".clio", "memory.json")),
      global: open(path.join(options.home, "memory.json")),
    };
  }

  /** The file that holds a scope's memories. */
  fileOf(scope: MemoryScope): string {
    return this.scopes[scope].file.file;
  }

  /** Stores (or replaces) a memory; `created` tells which. */
  async store(input: StoreInput): Promise<{ entry: MemoryEntry; created: boolean }> {
    const key = checkKey(input.key);
    if (input.value.trim() === "") throw new ToolError("invalid_argument", `The value for ${key} is empty.`, "Give the text to remember in value; use forget to remove a memory.");
    if (input.value.length > LIMITS.valueLength) {
      throw new ToolError(
        "too_large",
        `The value is ${input.value.length} characters; a memory holds at most ${LIMITS.valueLength}.`,
        "Store a summary, or split it over several keys.",
      );
    }
    const tags = parseTags(input.tags);
    const metadata = checkMetadata(input.metadata);
    const scopeName = input.scope ?? "project";
    const scope = this.scopes[scopeName];
    const timestamp = new Date(this.now()).toISOString();
    const result = await scope.file.update((data) => {
      const previous = data.entries[key];
      const stored: StoredMemory = { key, value: input.value, tags, metadata, createdAt: previous?.createdAt ?? timestamp, updatedAt: timestamp };
      data.entries[key] = stored;
      return { changed: true, keys: [key], result: { stored, created: previous === undefined } };
    });
    if (!scope.stale) scope.ranking.add(result.stored);
    return { entry: { ...result.stored, scope: scopeName }, created: result.created };
  }

  /** The memory named `key` (project first, then global), or undefined. */
  async retrieve(key: string, scope?: MemoryScope): Promise<MemoryEntry | undefined> {
    const name = checkKey(key);
    for (const scopeName of scope === undefined ? MEMORY_SCOPES : [scope]) {
      const data = await this.scopes[scopeName].file.read();
      const stored = data.entries[name];
      if (stored !== undefined) return { ...stored, scope: scopeName };
    }
    return undefined;
  }

  /** Removes a memory; false when there was none. */
  async forget(key: string, scope?: MemoryScope): Promise<{ removed: boolean; scope?: MemoryScope }> {
    const name = checkKey(key);
    for (const scopeName of scope === undefined ? MEMORY_SCOPES : [scope]) {
      const target = this.scopes[scopeName];
      const removed = await target.file.update((data) => {
        if (data.entries[name] === undefined) return { changed: false, result: false };
        delete data.entries[name];
        return { changed: true, keys: [name], result: true };
      });
      if (removed) {
        if (!target.stale) target.ranking.remove(name);
        return { removed: true, scope: scopeName };
      }
    }
    return { removed: false };
  }

  /** Memories, most recently updated first, optionally of one scope and with one tag. */
  async list(options: { scope?: MemoryScope; tag?: string } = {}): Promise<MemoryEntry[]> {
    const tag = options.tag?.trim().toLowerCase();
    const entries: MemoryEntry[] = [];
    for (const scopeName of options.scope === undefined ? MEMORY_SCOPES : [options.scope]) {
      const data = await this.scopes[scopeName].file.read();
      for (const stored of Object.values(data.entries)) {
        if (tag === undefined || tag === "" || stored.tags.includes(tag)) entries.push({ ...stored, scope: scopeName });
      }
    }
    return entries.sort((left, right) => right.updatedAt.localeCompare(left.updatedAt) || left.key.localeCompare(right.key));
  }

  /** Memories ranked for `query` by key, tags and value. */
  async search(query: string, options: { scope?: MemoryScope; tag?: string; limit?: number } = {}): Promise<MemoryHit[]> {
    if (query.trim() === "") throw new ToolError("invalid_argument", "The memory search query is empty.", 'Give words to look for, e.g. query="test command".');
    const tag = options.tag?.trim().toLowerCase();
    const limit = options.limit ?? 10;
    const hits: MemoryHit[] = [];
    for (const scopeName of options.scope === undefined ? MEMORY_SCOPES : [options.scope]) {
      const data = await this.ranked(scopeName);
      let taken = 0;
      for (const { key, score } of this.scopes[scopeName].ranking.rank(query)) {
        const stored = data.entries[key];
        if (stored === undefined || (tag !== undefined && tag !== "" && !stored.tags.includes(tag))) continue;
        hits.push({ entry: { ...stored, scope: scopeName }, score: scopeName === "project" ? score * 1.05 : score });
        if (++taken >= limit) break;
      }
    }
    hits.sort((left, right) => right.score - left.score || right.entry.updatedAt.localeCompare(left.entry.updatedAt));
    return hits.slice(0, limit);
  }

  /** The scope's data with its ranking brought up to date if the file was re-read since. */
  private async ranked(scopeName: MemoryScope): Promise<MemoryFileData> {
    const scope = this.scopes[scopeName];
    const data = await scope.file.read();
    if (scope.stale) {
      scope.ranking.sync(data.entries);
      scope.stale = false;
    }
    return data;
  }
}

/** Rough token count of a text (about four characters a token). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** One memory as the agent's prompt shows it. */
export function formatMemory(entry: MemoryEntry): string {
  const tags = entry.tags.length === 0 ? "" : ` [${entry.tags.join(", ")}]`;
  return `- ${entry.key}${tags}: ${entry.value}`;
}

/**
 * The memories most relevant to `text` that fit in `tokenBudget` tokens (formatted as
 * `formatMemory` lines), best first. The agent puts `text` into its prompt.
 */
export async function relevantMemories(store: MemoryStore, text: string, tokenBudget: number): Promise<{ entries: MemoryEntry[]; text: string; tokens: number }> {
  if (text.trim() === "" || tokenBudget <= 0) return { entries: [], text: "", tokens: 0 };
  const hits = await store.search(text, { limit: 50 });
  const entries: MemoryEntry[] = [];
  const lines: string[] = [];
  let tokens = 0;
  for (const { entry } of hits) {
    const line = formatMemory(entry);
    const cost = estimateTokens(line) + 1;
    if (tokens + cost > tokenBudget) continue;
    entries.push(entry);
    lines.push(line);
    tokens += cost;
  }
  return { entries, text: lines.join("\n"), tokens };
}

function checkKey(key: string): string {
  if (key.length === 0 || key.trim() === "") throw new ToolError("invalid_argument", "The memory key is empty.", 'Name the memory, e.g. key="test-command".');
  if (key.length > LIMITS.keyLength) {
    throw new ToolError(
      "invalid_argument",
      `The memory key is ${key.length} characters long; keys hold at most ${LIMITS.keyLength}.`,
      "Use a short name as the key and put the details in value.",
    );
  }
  if (/[\u0000-\u001f\u007f]/.test(key))
    throw new ToolError("invalid_argument", "The memory key contains a line break or control character.", "Use a single-line key such as project/test-command.");
  return key.trim();
}

/** Tags from a list or comma-separated text: trimmed, lower-cased, without repeats. */
export function parseTags(tags: string[] | string | undefined): string[] {
  const list = (typeof tags === "string" ? tags.split(",") : (tags ?? [])).map((tag) => tag.trim().toLowerCase()).filter((tag) => tag !== "");
  const unique = [...new Set(list)];
  if (unique.length > LIMITS.tags)
    throw new ToolError("invalid_argument", `${unique.length} tags given; a memory has at most ${LIMITS.tags}.`, "Keep a few tags that you will search by.");
  const long = unique.find((tag) => tag.length > LIMITS.tagLength);
  if (long !== undefined)
    throw new ToolError("invalid_argument", `The tag "${long.slice(0, 60)}…" is over ${LIMITS.tagLength} characters.`, 'Tags are short labels, e.g. tags="build,ci".');
  return unique;
}

function checkMetadata(metadata: Record<string, unknown> | undefined): Record<string, unknown> {
  if (metadata === undefined) return {};
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    throw new ToolError("invalid_argument", "metadata must be a JSON object.", 'Write metadata as an object, e.g. metadata={"source":"README"}.');
  }
  if (JSON.stringify(metadata).length > LIMITS.metadataLength) {
    throw new ToolError("too_large", `metadata is over ${LIMITS.metadataLength} characters of JSON.`, "Keep metadata to a few small fields.");
  }
  return metadata;
}
