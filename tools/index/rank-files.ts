/**
 * File-level ranking from chunk scores: a file's evidence is its best chunks together (several
 * matching chunks count, with diminishing weight), how much of the query it covers (each word
 * weighted by rarity), and how well one of its definitions or its file name reads as the
 * query (the words of the name, their order, and how much of the name they make up). Tests,
 * fixtures, examples and generated files go below other code unless the query asks for tests.
 * Knows nothing of storage: it reads chunk scores, chunk places and symbols through a view.
 */
import { compareCodeUnits } from "../../grammar/sorted.js";
import { isSupportPath } from "./file-kinds.js";
import type { QueryPlan } from "./query-plan.js";
import { nameParts, type SymbolNames } from "./symbol-table.js";
import { stem } from "./tokenize.js";

/** What ranking needs of an index and of one query's chunk scores. */
export interface RankingView {
  /** The ids of at least the `count` best-scored chunks (all when fewer are scored), in the order they were first scored. */
  bestChunks(count: number): number[];
  /** A chunk's score. */
  scoreOf(chunkId: number): number;
  /** The OR of the concept bits of the terms a chunk holds. */
  maskOf(chunkId: number): number;
  pathOf(chunkId: number): string;
  /** The 1-based lines of a chunk. */
  linesOf(chunkId: number): { startLine: number; endLine: number };
  /** The file's symbol table, names already cut into stemmed parts. */
  namesOf(path: string): SymbolNames | undefined;
  /** Whether the caller's filters keep the file. */
  accepts(path: string): boolean;
}

export interface NameMatch {
  /** `Parent.name` of the definition, or the file name. */
  text: string;
  /** The definition's first line (undefined for the file name). */
  line?: number;
  /** 0..1: how well the name reads as the query. */
  score: number;
}

export interface RankedFile {
  path: string;
  score: number;
  /** Its scored chunks, best first. */
  chunks: Array<{ id: number; score: number }>;
  /** The concepts the file matched (bits). */
  mask: number;
  /** The largest share of the query one chunk of the file covers. */
  best: number;
  name?: NameMatch;
  /** How well the file's name reads as the query (0..1). */
  fileName: number;
  /** A test, fixture, example or generated file. */
  support: boolean;
}

/** Chunks looked at per query: a file whose best chunk is not among them does not reach the top. */
const CANDIDATE_CHUNKS = 500;
/** Files whose names are compared with the query. */
const NAMED_CANDIDATES = 25;
/** Chunks of one file that add to its evidence. */
const CHUNKS_PER_FILE = 4;

/** The weights of ranking, in one place (bench/code-search.bench.ts measures their effect). */
export const RANKING_WEIGHTS = {
  /** Share of a chunk's score that depends on how much of the query it covers (words found together). */
  proximity: 0.3,
  /** Each further chunk of a file adds this share of the one before's weight. */
  chunkDecay: 0.5,
  /** The least share of its evidence a file keeps however little of the query it covers. */
  coverageFloor: 0.6,
  /** Share of file coverage taken from the file as a whole (the rest from its best chunk). */
  wholeFileCoverage: 0.5,
  /** How much a definition whose name reads as the query multiplies the file's score (at a perfect match). */
  name: 1.5,
  /** How much a file name that reads as the query multiplies the file's score (at a perfect match). */
  fileName: 3,
  /** Share of a name's score that depends on how much of the name the query words make up. */
  namePrecision: 0.6,
  /** Recall of the query by a name is raised to this power: below 1, a name made of some of the query's words still counts. */
  nameRecallExponent: 0.7,
  /** Factor for a name whose query words come in another order than the query's. */
  nameOutOfOrder: 0.75,
  /** Factor for tests, fixtures, examples and generated files when the query does not ask for them. */
  support: 0.3,
};

/**
 * The `limit` best files. `exactFiles` define the symbol the query names exactly (file → how
 * strongly: a class or function counts more than a constant): they come first.
 */
export function rankFiles(view: RankingView, plan: QueryPlan, limit: number, exactFiles: ReadonlyMap<string, number> = new Map()): RankedFile[] {
  const weights = RANKING_WEIGHTS;
  // Masks repeat across chunks: each one's coverage is worked out once.
  const coverages = new Map<number, number>();
  const coverage = (mask: number) => {
    let covered = coverages.get(mask);
    if (covered === undefined) coverages.set(mask, (covered = plan.totalWeight === 0 ? 1 : weightOf(plan, mask) / plan.totalWeight));
    return covered;
  };
  const byFile = new Map<string, RankedFile>();
  const refused = new Set<string>();
  const candidates = view.bestChunks(CANDIDATE_CHUNKS);
  // Indexed loops: a process's first searches run this code cold, where `for…of` costs several times more.
  for (let at = 0; at < candidates.length; at++) {
    const id = candidates[at]!;
    const raw = view.scoreOf(id);
    const filePath = view.pathOf(id);
    let file = byFile.get(filePath);
    if (file === undefined) {
      if (refused.has(filePath)) continue;
      if (!view.accepts(filePath)) {
        refused.add(filePath);
        continue;
      }
      byFile.set(filePath, (file = { path: filePath, score: 0, chunks: [], mask: 0, fileName: 0, best: 0, support: isSupportPath(filePath) }));
    }
    const mask = view.maskOf(id);
    const covered = coverage(mask);
    // Words found together in one chunk are near each other: a proximity signal.
    file.chunks.push({ id, score: raw * (1 - weights.proximity + weights.proximity * covered) });
    file.mask |= mask;
    if (covered > file.best) file.best = covered;
  }
  for (const exact of exactFiles.keys()) {
    if (!byFile.has(exact) && view.accepts(exact)) byFile.set(exact, { path: exact, score: 0, chunks: [], mask: 0, fileName: 0, best: 0, support: isSupportPath(exact) });
  }
  const files = [...byFile.values()];
  for (let at = 0; at < files.length; at++) {
    const file = files[at]!;
    file.chunks.sort((left, right) => right.score - left.score);
    const evidence = file.chunks.slice(0, CHUNKS_PER_FILE).reduce((sum, chunk, position) => sum + chunk.score * weights.chunkDecay ** position, 0);
    // Words spread over a large file count less than words found together.
    const covered = weights.wholeFileCoverage * coverage(file.mask) + (1 - weights.wholeFileCoverage) * file.best;
    file.score = evidence * (weights.coverageFloor + (1 - weights.coverageFloor) * covered * covered);
    if (file.support !== plan.asksForTests) file.score *= weights.support;
  }
  const named = firstInOrder(files, NAMED_CANDIDATES, (left, right) => right.score - left.score);
  const top = named[0]?.score ?? 0;
  for (const file of named) {
    file.fileName = nameScore(plan, file.path.slice(file.path.lastIndexOf("/") + 1).replace(/\.[^.]+$/, ""));
    file.score *= 1 + weights.fileName * file.fileName;
    const names = view.namesOf(file.path);
    const name = names === undefined ? undefined : bestDefinition(plan, names);
    if (name === undefined) continue;
    file.name = name;
    file.score *= 1 + weights.name * name.score;
  }
  // A query that is exactly a symbol's name puts the files that define it first.
  if (exactFiles.size > 0) for (let at = 0; at < files.length; at++) files[at]!.score += 10 * (top + 1) * (exactFiles.get(files[at]!.path) ?? 0);
  return firstInOrder(files, limit, (left, right) => right.score - left.score || compareCodeUnits(left.path, right.path));
}

/**
 * The first `count` items of a stable sort of `items` by `compare`, without sorting them all:
 * each item is compared with the last one kept, and placed among them only when it comes before it.
 */
function firstInOrder<Item>(items: readonly Item[], count: number, compare: (left: Item, right: Item) => number): Item[] {
  const kept: Item[] = [];
  if (count <= 0) return kept;
  for (let at = 0; at < items.length; at++) {
    const item = items[at]!;
    if (kept.length === count && compare(item, kept[count - 1]!) >= 0) continue;
    let place = kept.length === count ? count - 1 : kept.length;
    // After every kept item it does not come strictly before (a tie keeps the earlier item first, as a stable sort does).
    while (place > 0 && compare(item, kept[place - 1]!) < 0) place--;
    if (kept.length === count) kept.pop();
    kept.splice(place, 0, item);
  }
  return kept;
}

/** The query weight a mask covers: a word in full, a related word for half. */
function weightOf(plan: QueryPlan, mask: number): number {
  let weight = 0;
  for (const concept of plan.concepts) {
    if ((mask & concept.bit) !== 0) weight += concept.weight;
    else if ((mask & concept.relatedBit) !== 0) weight += concept.weight / 2;
  }
  return weight;
}

/** The definition of a file whose name reads best as the query, if any matches. */
function bestDefinition(plan: QueryPlan, names: SymbolNames): NameMatch | undefined {
  const matched = matchedParts(plan, names);
  if (matched.size === 0) return undefined;
  const { partStarts, partNumbers } = names;
  let best: NameMatch | undefined;
  let bestSymbol = -1;
  // A name none of whose parts match scores 0: only the names holding a matched part are scored, in symbol order.
  const holding = symbolsHolding(partStarts, partNumbers, matched.keys());
  for (let at = 0; at < holding.length; at++) {
    const symbol = holding[at]!;
    const start = partStarts[symbol]!;
    const end = partStarts[symbol + 1]!;
    const score = partsScore(plan, end - start, (position) => matched.get(partNumbers[start + position]!) ?? []);
    if (score > 0 && (best === undefined || score > best.score)) {
      best = { text: "", score };
      bestSymbol = symbol;
    }
  }
  if (best === undefined) return undefined;
  return { text: names.qualifiedName(bestSymbol), line: names.line(bestSymbol), score: best.score };
}

/**
 * The symbols whose names hold any of `parts`, ascending and each once. The part numbers are
 * searched with the typed array's own `indexOf` (native code even while this runs cold, as a
 * process's first searches do), and each place found is mapped to its symbol by binary search.
 */
function symbolsHolding(partStarts: Uint32Array, partNumbers: Uint32Array, parts: Iterable<number>): Uint32Array {
  const places: number[] = [];
  for (const part of parts) for (let at = partNumbers.indexOf(part); at !== -1; at = partNumbers.indexOf(part, at + 1)) places.push(at);
  const sorted = Uint32Array.from(places).sort();
  const symbols = new Uint32Array(sorted.length);
  let count = 0;
  let symbol = 0;
  for (let place = 0; place < sorted.length; place++) {
    const at = sorted[place]!;
    // The last symbol whose parts start at or before `at` (a symbol without parts starts where the next one does).
    let high = partStarts.length - 2;
    while (symbol < high) {
      const middle = (symbol + high + 1) >>> 1;
      if (partStarts[middle]! <= at) symbol = middle;
      else high = middle - 1;
    }
    if (count === 0 || symbols[count - 1] !== symbol) symbols[count++] = symbol;
  }
  return symbols.subarray(0, count);
}

/**
 * The file's name parts that match the query, by part number. A part matches only when it starts
 * with a form (`matchPart`), so only the runs of the sorted parts that start with a form are
 * looked at, each part once per plan.
 */
function matchedParts(plan: QueryPlan, names: SymbolNames): Map<number, PartMatch[]> {
  const matched = new Map<number, PartMatch[]>();
  if (names.count === 0) return matched;
  const known = partMatchesOf(plan);
  for (const form of plan.forms.keys()) {
    if (form.length < 2) continue;
    const [first, end] = names.partsStartingWith(form);
    for (let number = first; number < end; number++) {
      if (matched.has(number)) continue;
      const part = names.parts[number]!;
      let found = known.get(part);
      if (found === undefined) known.set(part, (found = matchPart(plan, part)));
      if (found.length > 0) matched.set(number, found);
    }
  }
  return matched;
}

type PartMatch = { bit: number; credit: number };

/** Each name part's matches against a plan, made once per plan: files share most of their parts. */
const partMatchesOfPlan = new WeakMap<QueryPlan, Map<string, PartMatch[]>>();

function partMatchesOf(plan: QueryPlan): Map<string, PartMatch[]> {
  let known = partMatchesOfPlan.get(plan);
  if (known === undefined) partMatchesOfPlan.set(plan, (known = new Map()));
  return known;
}

const partsMemo = new Map<string, string[]>();

/** `nameParts`, kept for names seen again (file names). */
function memoNameParts(name: string): string[] {
  let parts = partsMemo.get(name);
  if (parts === undefined) {
    parts = nameParts(name);
    if (partsMemo.size > 200_000) partsMemo.clear();
    partsMemo.set(name, parts);
  }
  return parts;
}

/**
 * 0..1: the share of the query's weight the name covers, times how much of the name the query
 * words make up, less when they come in another order than the query's. A joined lower-case
 * part (`cookiejar`) is split against the query's words.
 */
export function nameScore(plan: QueryPlan, name: string): number {
  const parts = memoNameParts(name);
  return partsScore(plan, parts.length, (position) => matchPart(plan, parts[position]!));
}

/** `nameScore` of a name of `count` parts, given what each part matches. */
function partsScore(plan: QueryPlan, count: number, matchesAt: (position: number) => readonly PartMatch[]): number {
  if (count === 0 || plan.totalWeight === 0) return 0;
  let matchedParts = 0;
  const found: PartMatch[] = [];
  for (let position = 0; position < count; position++) {
    const matches = matchesAt(position);
    if (matches.length === 0) continue;
    matchedParts++;
    found.push(...matches);
  }
  if (matchedParts === 0) return 0;
  let covered = 0;
  for (const concept of plan.concepts) {
    let credit = 0;
    for (const match of found) if ((match.bit & (concept.bit | concept.relatedBit)) !== 0 && match.credit > credit) credit = match.credit;
    covered += concept.weight * credit;
  }
  // Bits follow the query's word order (a related word's bit sits 16 places up): the name has the words in that order when they rise.
  const order = found.map((match) => {
    const lowest = (match.bit & -match.bit) >>> 0;
    return lowest >= 1 << 16 ? lowest / (1 << 16) : lowest;
  });
  const recall = covered / plan.totalWeight;
  const precision = matchedParts / count;
  const inOrder = order.every((bit, position) => position === 0 || bit >= order[position - 1]!);
  const weights = RANKING_WEIGHTS;
  return recall ** weights.nameRecallExponent * (1 - weights.namePrecision + weights.namePrecision * precision) * (inOrder ? 1 : weights.nameOutOfOrder);
}

/** The concepts a name part stands for: itself, or the query words it is made of. */
function matchPart(plan: QueryPlan, part: string): PartMatch[] {
  const direct = plan.forms.get(part);
  if (direct !== undefined) return [direct];
  if (part.length < 6) return [];
  // Few forms, many parts: try the forms as heads rather than every cut of the part.
  for (const [form, head] of plan.forms) {
    if (form.length < 2 || form.length > part.length - 2 || !part.startsWith(form)) continue;
    const rest = part.slice(form.length);
    const tail = plan.forms.get(rest) ?? plan.forms.get(stem(rest));
    if (tail !== undefined && head.credit + tail.credit > 1.5) return [head, tail];
  }
  return [];
}
